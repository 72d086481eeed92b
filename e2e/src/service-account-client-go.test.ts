/**
 * A pod's process reaching the API with client-go and its service account: kapi-apiserver
 * (the binary) with RBAC and service account tokens; the pod gets its kube-api-access volume
 * from the ServiceAccount admission plugin; the test plays the kubelet (a pod-bound
 * TokenRequest of 3607 s, kube-root-ca.crt's ca.crt, the namespace) and runs
 * e2e/go/cmd/kapi-sa-client with that volume. The client can do exactly what the Role bound
 * to its account allows (403 otherwise), and nothing once the pod is gone (401).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { startKapiServer, writeKubeconfig, writeServiceAccountKeys, type KapiServer } from '@kapi/apiserver/testing';
import { buildGoCommand } from './harness/go-program.js';
import { Kubectl } from './harness/kubectl.js';

const NS = 'e2e-sa';
let etcd: TestEtcd;
let server: KapiServer;
let kubectl: Kubectl;
let binary: string;
let dir: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 30_000; !(await probe()); await sleep(200)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kapi-e2e-sa-'));
  const keys = writeServiceAccountKeys(dir);
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'e2e-admin,admin,admin-uid,"system:masters"\n');
  const [built, startedEtcd] = await Promise.all([buildGoCommand('kapi-sa-client'), startEtcd()]);
  binary = built.binary;
  etcd = startedEtcd;
  server = await startKapiServer({
    etcdServers: etcd.endpoints,
    extraArgs: [
      '--authorization-mode=RBAC',
      `--token-auth-file=${tokens}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${keys.keyFile}`,
      `--service-account-signing-key-file=${keys.signingKeyFile}`,
    ],
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, { server: server.url, certificateAuthority: server.caFile, token: 'e2e-admin' });
  kubectl = new Kubectl({ kubeconfig, cacheDir: join(dir, 'cache') });
});
after(async () => {
  await server?.stop();
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function runClient(volume: string): Promise<Record<string, number>> {
  const port = new URL(server.url).port;
  return new Promise((resolve, reject) => {
    execFile(binary, [`--volume=${volume}`, '--other-namespace=default'], { env: { ...process.env, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err !== null) return reject(new Error(`kapi-sa-client: ${err.message}\n${stderr}`));
      const line = JSON.parse(stdout.trim()) as { codes: Record<string, number>; error?: string };
      if (line.error !== undefined) return reject(new Error(line.error));
      resolve(line.codes);
    });
  });
}

void test('client-go with a pod-bound service account token can do exactly what its Role allows', async () => {
  await kubectl.ok(['create', 'namespace', NS]);
  await until('the default ServiceAccount', async () => (await kubectl.run(['get', 'serviceaccount', 'default', '-n', NS])).code === 0);
  await kubectl.ok(['create', 'serviceaccount', 'app', '-n', NS]);
  await kubectl.ok(['create', 'role', 'cm', '-n', NS, '--verb=get,list,create', '--resource=configmaps']);
  await kubectl.ok(['create', 'rolebinding', 'cm', '-n', NS, '--role=cm', `--serviceaccount=${NS}:app`]);
  await kubectl.ok(['apply', '-n', NS, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'app' }, spec: { serviceAccountName: 'app', containers: [{ name: 'c', image: 'busybox' }] } }));
  const pod = await kubectl.json<{ spec: { volumes: { name: string; projected?: unknown }[]; containers: { volumeMounts: { name: string; mountPath: string }[] }[] } }>(['get', 'pod', 'app', '-n', NS]);
  const volume = pod.spec.volumes.find((v) => v.name.startsWith('kube-api-access-'));
  assert.ok(volume?.projected !== undefined, JSON.stringify(pod.spec.volumes));
  assert.deepEqual(pod.spec.containers[0]!.volumeMounts.map((m) => [m.name, m.mountPath]), [[volume.name, '/var/run/secrets/kubernetes.io/serviceaccount']]);

  // The kubelet's part: the projected volume's three files.
  const mounted = join(dir, 'volume');
  mkdirSync(mounted);
  await until('kube-root-ca.crt', async () => (await kubectl.run(['get', 'configmap', 'kube-root-ca.crt', '-n', NS])).code === 0);
  const ca = await kubectl.ok(['get', 'configmap', 'kube-root-ca.crt', '-n', NS, '-o', 'jsonpath={.data.ca\\.crt}']);
  writeFileSync(join(mounted, 'ca.crt'), ca);
  writeFileSync(join(mounted, 'namespace'), NS);
  const token = (await kubectl.ok(['create', 'token', 'app', '-n', NS, '--bound-object-kind=Pod', '--bound-object-name=app', '--duration=3607s'])).trim();
  writeFileSync(join(mounted, 'token'), token);

  // The first run after the RoleBinding reached the authorizer (its create is not repeated).
  let codes: Record<string, number> = {};
  await until('the RoleBinding in effect', async () => (codes = await runClient(mounted))['list configmaps'] === 200);
  assert.deepEqual(codes, {
    'list configmaps': 200,
    'get configmap kube-root-ca.crt': 200,
    'create configmap': 200,
    'delete configmap': 403,
    'list secrets': 403,
    'list configmaps in another namespace': 403,
  });

  // The pod goes: its token is refused.
  await kubectl.ok(['delete', 'pod', 'app', '-n', NS, '--grace-period=0', '--wait=false']);
  await until('the pod-bound token refused', async () => (await runClient(mounted))['list configmaps'] === 401);
  const after = await runClient(mounted);
  assert.ok(Object.values(after).every((code) => code === 401), JSON.stringify(after));
});
