/**
 * A real Kubernetes control plane on kapi, for `make e2e-control-plane`: etcd, two kapi
 * replicas behind kapi-lb (client-certificate authentication, RBAC, service-account keys),
 * kube-controller-manager and kube-scheduler v1.32.13 (leader-elected, each with its own
 * client certificate, through the balancer) and kwok v0.8.0 playing the kubelets of fake
 * nodes. Every process logs into the run directory, which `stop({ keep: true })` leaves in
 * place as the evidence of a failed run.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startEtcd, type TestEtcd } from '@kapi/storage/testing';
import {
  Component, clientCertKubeconfig, createTestCa, defaultApiserverBinary, insecureGet, kubeControllerManagerArgs, kubeSchedulerArgs, kwokArgs, kwokNode, writeServiceAccountKeys, type TestCa,
} from '@kapi/apiserver/testing';
import { Kubectl } from '../harness/kubectl.js';
import { yamlStream } from './scenarios.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Where build-binaries.sh put kube-controller-manager, kube-scheduler and kwok. */
export const binDir = process.env.KAPI_REF_BIN ?? join(process.env.HOME ?? '/root', '.cache/kapi-ref/bin');

export { kwokNode, kwokNodeAnnotation } from '@kapi/apiserver/testing';

/**
 * The kapi flags of this control plane beyond listeners, etcd and certificates — the one place
 * that says which of kapi's own controllers run next to kube-controller-manager's: none.
 * kube-controller-manager owns namespace deletion, garbage collection, service accounts, root
 * CA publishing, ClusterRole aggregation and policy type checking (README § Running with kube-controller-manager),
 * so the two never act on the same objects.
 */
export const KAPI_CONTROLLERS_OFF =
  '-namespace-controller,-garbage-collector-controller,-serviceaccount-controller,-serviceaccount-token-controller,-root-ca-certificate-publisher-controller,-clusterrole-aggregation-controller,-validatingadmissionpolicy-status-controller,-persistentvolumeclaim-protection-controller,-persistentvolume-protection-controller,-resourcequota-controller';

export const KAPI_FLAGS: readonly string[] = [
  '--authorization-mode=RBAC',
  '--service-cluster-ip-range=10.96.0.0/16',
  `--controllers=${KAPI_CONTROLLERS_OFF}`,
];

export interface ControlPlaneOptions {
  /** How many fake nodes kwok manages; default 10. */
  nodes?: number;
  /** The run directory (logs, kubeconfigs, certificates); default a fresh one under .data/e2e-control-plane. */
  dir?: string;
}

export interface ControlPlane {
  readonly dir: string;
  readonly etcd: TestEtcd;
  /** The kapi replicas, then kapi-lb, kube-controller-manager, kube-scheduler, kwok. */
  readonly replicas: Component[];
  readonly lb: Component;
  readonly controllerManager: Component;
  readonly scheduler: Component;
  readonly kwok: Component;
  /** The balancer's URL, which every client uses. */
  readonly server: string;
  /** Secure ports of the replicas, in `replicas` order. */
  readonly replicaPorts: number[];
  /** An admin kubeconfig (system:masters client certificate) through the balancer. */
  readonly adminKubeconfig: string;
  readonly nodeNames: string[];
  kubectl(): Kubectl;
  /** Stops everything; deletes the run directory unless `keep`. */
  stop(options?: { keep?: boolean }): Promise<void>;
}

async function answers200(url: string): Promise<boolean> {
  const res = await insecureGet(url, 2000);
  return res.status === 200;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const dir = resolve(options.dir ?? join(repoRoot, '.data/e2e-control-plane', new Date().toISOString().replace(/[:.]/g, '-')));
  mkdirSync(dir, { recursive: true });
  const log = (name: string) => join(dir, `${name}.log`);
  const started: Component[] = [];
  let etcd: TestEtcd | undefined;
  let ca: TestCa | undefined;
  const stopAll = async (keep: boolean) => {
    for (const c of [...started].reverse()) await c.stop();
    await etcd?.stop();
    if (ca) {
      if (keep) writeFileSync(join(dir, 'ca.crt'), ca.cert);
      ca.remove();
    }
    if (!keep) rmSync(dir, { recursive: true, force: true });
  };
  const launch = async (c: Component, timeoutMs?: number) => {
    started.push(c);
    await c.start(timeoutMs);
    return c;
  };

  try {
    etcd = await startEtcd();
    ca = createTestCa('kapi-control-plane-ca');
    mkdirSync(join(dir, 'sa'), { recursive: true });
    const sa = writeServiceAccountKeys(join(dir, 'sa'));
    const certDir = join(dir, 'serving');
    mkdirSync(certDir, { recursive: true });

    const replicaPorts = [await freePort(), await freePort()];
    const replicas = replicaPorts.map((port, i) => new Component({
      name: `kapi-${i + 1}`,
      command: process.execPath,
      args: [
        process.env.KAPI_APISERVER_BIN ?? defaultApiserverBinary,
        `--etcd-servers=${etcd!.endpoints.join(',')}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${certDir}`,
        `--client-ca-file=${ca!.certFile}`,
        `--service-account-issuer=https://kubernetes.default.svc.cluster.local`,
        `--service-account-key-file=${sa.keyFile}`,
        `--service-account-signing-key-file=${sa.signingKeyFile}`,
        ...KAPI_FLAGS,
      ],
      logFile: log(`kapi-${i + 1}`),
      ready: () => answers200(`https://127.0.0.1:${port}/readyz`),
    }));
    // One at a time: the first writes the serving pair into the shared --cert-dir, the second reuses it.
    for (const r of replicas) await launch(r, 90_000);

    const lbPort = await freePort();
    const server = `https://127.0.0.1:${lbPort}`;
    const lb = await launch(new Component({
      name: 'kapi-lb',
      command: process.execPath,
      args: [join(repoRoot, 'deploy/lb.mjs'), `--listen=127.0.0.1:${lbPort}`, `--backends=${replicaPorts.map((p, i) => `kapi-${i + 1}=127.0.0.1:${p}`).join(',')}`],
      logFile: log('kapi-lb'),
      ready: () => answers200(`${server}/readyz`),
    }));

    const admin = ca.client('kapi-admin', ['system:masters']);
    const adminKubeconfig = clientCertKubeconfig(join(dir, 'admin.kubeconfig'), server, admin);
    const kcmKubeconfig = clientCertKubeconfig(join(dir, 'kube-controller-manager.kubeconfig'), server, ca.client('system:kube-controller-manager'));
    const schedulerKubeconfig = clientCertKubeconfig(join(dir, 'kube-scheduler.kubeconfig'), server, ca.client('system:kube-scheduler'));
    const kwokKubeconfig = clientCertKubeconfig(join(dir, 'kwok.kubeconfig'), server, ca.client('kwok', ['system:masters']));
    const kubectl = () => new Kubectl({ kubeconfig: adminKubeconfig, cacheDir: join(dir, 'kubectl-cache'), timeoutMs: 120_000 });

    // Nodes first, so the scheduler and the DaemonSet controller see all of them from the start.
    const nodeNames = Array.from({ length: options.nodes ?? 10 }, (_, i) => `kwok-node-${i}`);
    await kubectl().ok(['apply', '-f', '-'], yamlStream(nodeNames.map(kwokNode)));

    const kwok = await launch(new Component({
      name: 'kwok',
      command: join(binDir, 'kwok'),
      args: kwokArgs({ kubeconfig: kwokKubeconfig, serverPort: await freePort() }),
      logFile: log('kwok'),
      restartOnExit: true,
    }));

    const kcmPort = await freePort();
    const controllerManager = await launch(new Component({
      name: 'kube-controller-manager',
      command: join(binDir, 'kube-controller-manager'),
      args: kubeControllerManagerArgs({
        kubeconfig: kcmKubeconfig, securePort: kcmPort, certDir: join(dir, 'kcm-serving'), verbosity: 2,
        serviceAccountSigningKeyFile: sa.signingKeyFile, caCertFile: ca.certFile, caKeyFile: ca.keyFile,
      }),
      logFile: log('kube-controller-manager'),
      restartOnExit: true,
      ready: () => answers200(`https://127.0.0.1:${kcmPort}/healthz`),
    }), 120_000);

    const schedulerPort = await freePort();
    const scheduler = await launch(new Component({
      name: 'kube-scheduler',
      command: join(binDir, 'kube-scheduler'),
      args: kubeSchedulerArgs({ kubeconfig: schedulerKubeconfig, securePort: schedulerPort, certDir: join(dir, 'scheduler-serving'), verbosity: 2 }),
      logFile: log('kube-scheduler'),
      restartOnExit: true,
      ready: () => answers200(`https://127.0.0.1:${schedulerPort}/healthz`),
    }), 120_000);

    return {
      dir,
      etcd,
      replicas,
      lb,
      controllerManager,
      scheduler,
      kwok,
      server,
      replicaPorts,
      adminKubeconfig,
      nodeNames,
      kubectl,
      stop: (opts = {}) => stopAll(opts.keep ?? false),
    };
  } catch (err) {
    await stopAll(true);
    throw new Error(`control plane did not start (logs in ${dir}): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Polls `check` every `intervalMs` until it returns a value; throws with the last reason after `timeoutMs`. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | string>, intervalMs = 1000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await check();
      if (typeof value !== 'string') return value;
      last = value;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${last}`);
    await sleep(intervalMs);
  }
}
