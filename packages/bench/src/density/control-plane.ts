/**
 * The density scenario's cluster: a fresh etcd, one API server (kapi or kube-apiserver, see
 * kube-apiserver-command.ts), `nodes` kwok nodes, kwok v0.8.0 playing their kubelets, and
 * kube-controller-manager and kube-scheduler v1.32.13 — the control plane of
 * `make e2e-control-plane`, with one server and no balancer. Every process logs into the run
 * directory, which is kept when `stop({ keep: true })`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startEtcd, type TestEtcd } from '@kapi/storage/testing';
import {
  Component,
  createTestCa,
  clientCertKubeconfig,
  insecureGet,
  kubeControllerManagerArgs,
  kubeSchedulerArgs,
  kwokArgs,
  kwokNode,
  writeServiceAccountKeys,
  type TestCa,
} from '@kapi/apiserver/testing';
import { KapiClient } from '../kapi-client.js';
import { registerAuth } from '../target.js';
import { serverCommand, type DensityServerKind } from './kube-apiserver-command.js';

export interface DensityClusterOptions {
  readonly kind: DensityServerKind;
  readonly nodes: number;
  /** The run directory (logs, certificates, kubeconfigs). */
  readonly dir: string;
  /** build-binaries.sh's cache: kube-apiserver, kube-controller-manager, kube-scheduler, kwok. */
  readonly binDir: string;
}

export interface DensityCluster {
  readonly kind: DensityServerKind;
  /** `https://127.0.0.1:<port>`, with the admin client certificate registered for it (target.ts). */
  readonly url: string;
  readonly serverPid: number;
  /** An admin client (system:masters) for the scenario's own requests. */
  readonly admin: KapiClient;
  readonly components: readonly Component[];
  stop(options?: { keep?: boolean }): Promise<void>;
}

const answers200 = async (url: string) => (await insecureGet(url, 2000)).status === 200;

/** Starts the cluster; on failure stops what started (keeping the logs) and rejects with the run directory in the message. */
export async function startDensityCluster(o: DensityClusterOptions): Promise<DensityCluster> {
  mkdirSync(o.dir, { recursive: true });
  const started: Component[] = [];
  let etcd: TestEtcd | undefined;
  let ca: TestCa | undefined;
  const stop = async (keep: boolean) => {
    for (const c of [...started].reverse()) await c.stop();
    await etcd?.stop();
    ca?.remove();
    if (!keep) rmSync(o.dir, { recursive: true, force: true });
  };
  const launch = async (spec: ConstructorParameters<typeof Component>[0], timeoutMs = 120_000) => {
    const c = new Component(spec);
    started.push(c);
    await c.start(timeoutMs);
    return c;
  };
  const log = (name: string) => join(o.dir, `${name}.log`);
  try {
    etcd = await startEtcd();
    ca = createTestCa(`kapi-density-${o.kind}`);
    mkdirSync(join(o.dir, 'sa'), { recursive: true });
    const sa = writeServiceAccountKeys(join(o.dir, 'sa'));
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const server = serverCommand({
      kind: o.kind,
      binDir: o.binDir,
      etcdServers: etcd.endpoints,
      port,
      certDir: join(o.dir, 'serving'),
      clientCaFile: ca.certFile,
      serviceAccountKeyFile: sa.keyFile,
      serviceAccountSigningKeyFile: sa.signingKeyFile,
    });
    const apiserver = await launch({ name: o.kind, ...server, logFile: log(o.kind), ready: () => answers200(`${url}/readyz`) });
    const serverPid = apiserver.pid();
    if (serverPid === undefined) throw new Error(`${o.kind} exited after it became ready`);

    const adminPem = ca.client('density-admin', ['system:masters']);
    registerAuth(url, { cert: Buffer.from(adminPem.cert), key: Buffer.from(adminPem.key), insecure: true });
    const admin = new KapiClient(url, 8);
    // Nodes first, so the scheduler sees all of them from the start.
    for (let i = 0; i < o.nodes; i++) await admin.json('POST', '/api/v1/nodes', 201, kwokNode(`kwok-node-${i}`));

    const kwokConfig = clientCertKubeconfig(join(o.dir, 'kwok.kubeconfig'), url, ca.client('kwok', ['system:masters']));
    await launch({
      name: 'kwok',
      command: join(o.binDir, 'kwok'),
      args: kwokArgs({ kubeconfig: kwokConfig, serverPort: await freePort() }),
      logFile: log('kwok'),
      restartOnExit: true,
    });

    const kcmConfig = clientCertKubeconfig(join(o.dir, 'kcm.kubeconfig'), url, ca.client('system:kube-controller-manager'));
    const kcmPort = await freePort();
    await launch({
      name: 'kube-controller-manager',
      command: join(o.binDir, 'kube-controller-manager'),
      args: kubeControllerManagerArgs({
        kubeconfig: kcmConfig, securePort: kcmPort, certDir: join(o.dir, 'kcm-serving'), verbosity: 1,
        serviceAccountSigningKeyFile: sa.signingKeyFile, caCertFile: ca.certFile, caKeyFile: ca.keyFile,
      }),
      logFile: log('kube-controller-manager'),
      restartOnExit: true,
      ready: () => answers200(`https://127.0.0.1:${kcmPort}/healthz`),
    });

    const schedulerConfig = clientCertKubeconfig(join(o.dir, 'scheduler.kubeconfig'), url, ca.client('system:kube-scheduler'));
    const schedulerPort = await freePort();
    await launch({
      name: 'kube-scheduler',
      command: join(o.binDir, 'kube-scheduler'),
      args: kubeSchedulerArgs({ kubeconfig: schedulerConfig, securePort: schedulerPort, certDir: join(o.dir, 'scheduler-serving'), verbosity: 2 }),
      logFile: log('kube-scheduler'),
      restartOnExit: true,
      ready: () => answers200(`https://127.0.0.1:${schedulerPort}/healthz`),
    });

    return { kind: o.kind, url, serverPid, admin, components: started, stop: (opts = {}) => stop(opts.keep ?? false) };
  } catch (err) {
    await stop(true);
    throw new Error(`density cluster (${o.kind}) did not start (logs in ${o.dir}): ${err instanceof Error ? err.message : String(err)}`);
  }
}
