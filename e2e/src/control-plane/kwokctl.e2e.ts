/**
 * `make e2e-control-plane`, second part: kwokctl v0.8.0 as a user runs it —
 * `kwokctl create cluster --runtime binary --kube-apiserver-binary <kapi>` with the cached
 * kube-controller-manager, kube-scheduler and kwok and the machine's etcd — brings up a cluster
 * on kapi with the command line kwokctl builds for a kube-apiserver (certificates, Node,RBAC,
 * service-account keys, proxy-client pair; here also an audit policy and kwokctl's "no QPS
 * limits" flags), a Deployment's pods run on its fake nodes, and `kwokctl delete cluster`
 * stops every process. Not in `make test`'s walk: it needs the Go binaries.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { defaultApiserverBinary } from '@kapi/apiserver/testing';
import { Kubectl } from '../harness/kubectl.js';
import { binDir, eventually, KAPI_CONTROLLERS_OFF } from './control-plane.js';
import { allRunning, deployment, spread, yamlStream, type List } from './scenarios.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const MINUTE = 60_000;
const CLUSTER = 'kapi-e2e';
const NODES = 3;
const REPLICAS = 6;
/** kapi's kube-controller-manager controllers, all off: kwokctl runs the real kube-controller-manager. */
/** Runs kwokctl with its work directory in the run's directory; rejects with its output on a non-zero exit. */
function kwokctl(workDir: string, args: string[], timeoutMs = 5 * MINUTE): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, 'kwokctl'), ['--name', CLUSTER, ...args], { env: { ...process.env, KWOK_WORKDIR: workDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`kwokctl ${args.join(' ')} exited ${code ?? signal}:\n${output.slice(-4000)}`));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

void describe('kwokctl create cluster --runtime binary with kapi as kube-apiserver', { timeout: 20 * MINUTE }, () => {
  const dir = join(repoRoot, '.data/e2e-control-plane', `kwokctl-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const workDir = join(dir, 'kwok');
  const clusterDir = join(workDir, 'clusters', CLUSTER);
  const kubeconfig = join(dir, 'kubeconfig');
  let created = false;
  let failed = false;
  let kapiPid = 0;
  const kubectl = () => new Kubectl({ kubeconfig, cacheDir: join(dir, 'kubectl-cache'), timeoutMs: 120_000 });

  before(async () => {
    mkdirSync(dir, { recursive: true });
    // kwokctl runs the binary it is given with kube-apiserver's arguments (and `--version` first).
    const wrapper = join(dir, 'kapi-apiserver');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(process.env.KAPI_APISERVER_BIN ?? defaultApiserverBinary)} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const policy = join(dir, 'audit-policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources:\n  - group: apps\n    resources: [deployments]\n- level: None\n');
    const etcd = process.env.KAPI_ETCD_BIN ?? execFileSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).trim();
    created = true;
    await kwokctl(workDir, [
      'create', 'cluster', '--runtime=binary',
      `--kube-apiserver-binary=${wrapper}`,
      `--kube-controller-manager-binary=${join(binDir, 'kube-controller-manager')}`,
      `--kube-scheduler-binary=${join(binDir, 'kube-scheduler')}`,
      `--kwok-controller-binary=${join(binDir, 'kwok')}`,
      `--etcd-binary=${etcd}`,
      `--kubeconfig=${kubeconfig}`,
      `--kube-audit-policy=${policy}`,
      // kwokctl's kube-controller-manager runs every controller: kapi's copies are switched off (README § kwokctl).
      `--extra-args=kube-apiserver=controllers=${KAPI_CONTROLLERS_OFF}`,
      '--disable-qps-limits',
      '--wait=3m',
      '--timeout=5m',
    ]);
    kapiPid = Number(readFileSync(join(clusterDir, 'pids', 'kube-apiserver.pid'), 'utf8').trim());
  });

  after(async () => {
    if (created && existsSync(clusterDir)) {
      await kwokctl(workDir, ['delete', 'cluster']).catch((err: unknown) => process.stderr.write(`${String(err)}\n`));
    }
    const keep = failed || process.env.KAPI_CP_KEEP === '1';
    if (!keep) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`kwokctl e2e ${failed ? 'failed' : 'passed'}: kwokctl's work directory (every component's log) is under ${dir}\n`);
  });

  const scenario = (name: string, fn: () => Promise<void>) =>
    void test(name, { timeout: 10 * MINUTE }, async () => {
      try {
        await fn();
      } catch (err) {
        failed = true;
        throw err;
      }
    });

  scenario('kapi starts with the kube-apiserver command line kwokctl builds', async () => {
    const config = readFileSync(join(clusterDir, 'kwok.yaml'), 'utf8');
    // kwokctl's flags for this cluster, each of which kapi accepted (it refuses flags it does not implement).
    for (const flag of ['--etcd-prefix=/registry', '--allow-privileged=true', '--authorization-mode=Node,RBAC', '--tls-cert-file=', '--client-ca-file=',
      '--service-account-signing-key-file=', '--proxy-client-cert-file=', '--audit-policy-file=', '--audit-log-path=',
      '--max-requests-inflight=0', '--enable-priority-and-fairness=false', `--controllers=${KAPI_CONTROLLERS_OFF}`]) {
      assert.ok(config.includes(flag), `kwokctl no longer passes ${flag}`);
    }
    assert.ok(kapiPid > 0 && alive(kapiPid), 'the kube-apiserver (kapi) process runs');
    const version = await kubectl().json<{ serverVersion: { gitVersion: string } }>(['version', '-o', 'json']);
    assert.match(version.serverVersion.gitVersion, /^v1\.32\./);
  });

  scenario(`kwokctl scale node adds ${NODES} Ready nodes`, async () => {
    await kwokctl(workDir, ['scale', 'node', `--replicas=${NODES}`]);
    await eventually(`${NODES} Ready nodes`, 3 * MINUTE, async () => {
      const nodes = await kubectl().json<List<{ metadata: { name: string }; status: { conditions?: { type: string; status: string }[] } }>>(['get', 'nodes']);
      const ready = nodes.items.filter((n) => n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === NODES ? ready : `${ready.length}/${nodes.items.length} nodes Ready`;
    });
  });

  scenario(`a Deployment of ${REPLICAS} reaches ${REPLICAS} Running pods on the kwok nodes, and the audit log records it`, async () => {
    await kubectl().ok(['apply', '-f', '-'], yamlStream([deployment('web', 'default', REPLICAS, 'registry.k8s.io/pause:3.9')]));
    const pods = await eventually(`${REPLICAS} Running pods`, 5 * MINUTE, () => allRunning(kubectl(), 'default', 'app=web', REPLICAS));
    const nodes = (await kubectl().json<List<{ metadata: { name: string } }>>(['get', 'nodes'])).items.map((n) => n.metadata.name);
    for (const [node] of spread(pods)) assert.ok(nodes.includes(node), `pod on unknown node ${node}`);
    assert.ok(spread(pods).size > 1, `all ${REPLICAS} pods landed on one node`);
    const deploy = await kubectl().json<{ status: { readyReplicas?: number; availableReplicas?: number } }>(['get', 'deployment', 'web', '-n', 'default']);
    assert.equal(deploy.status.readyReplicas, REPLICAS);
    // kwokctl's --kube-audit-policy becomes --audit-policy-file/--audit-log-path in the cluster's logs directory.
    const audit = readFileSync(join(clusterDir, 'logs', 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { verb: string; objectRef?: { resource?: string; name?: string }; level: string });
    assert.ok(audit.some((e) => e.verb === 'create' && e.objectRef?.resource === 'deployments' && e.objectRef.name === 'web' && e.level === 'Metadata'), 'the Deployment create is in the audit log');
    assert.ok(audit.every((e) => e.objectRef?.resource === 'deployments'), 'the policy logs deployments only');
    // With kapi's controllers off, the default ServiceAccount the pods run as is kube-controller-manager's work.
    const sa = await kubectl().json<{ metadata: { name: string } }>(['get', 'serviceaccount', 'default', '-n', 'default']);
    assert.equal(sa.metadata.name, 'default');
  });

  scenario('kwokctl delete cluster stops kapi and removes the cluster', async () => {
    await kwokctl(workDir, ['delete', 'cluster']);
    await eventually('kapi to exit', MINUTE, () => Promise.resolve(alive(kapiPid) ? `pid ${kapiPid} still runs` : true));
    assert.equal(existsSync(clusterDir), false, 'the cluster directory is removed');
  });
});
