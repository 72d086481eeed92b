/**
 * kubectl 1.32 against kapi through its generator commands (protobuf request bodies) and
 * server-side Tables: create namespace|configmap|secret, get with Table output, -o wide, -A,
 * --show-labels, -w against a live change, and --chunk-size paging.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { startKubectl, type Kubectl, type KubectlOptions } from '../harness/kubectl.js';
import { RestClient } from '../harness/rest.js';

const ns = 'e2e-repr';
let cluster: TestCluster;
let kubectl: Kubectl;
let client: RestClient;
let kubectlOptions: KubectlOptions;

before(async () => {
  cluster = await startCluster();
  kubectl = cluster.kubectl();
  client = new RestClient(cluster.servers[0]!.url);
  kubectlOptions = { kubeconfig: cluster.kubeconfig(), cacheDir: join(cluster.dir, 'kube-cache-repr-watch'), timeoutMs: 30_000 };
});
after(async () => {
  client?.close();
  await cluster?.stop();
});

/** The rows of kubectl's table output: header cells and each row's cells (split on 2+ spaces). */
function table(output: string): { header: string[]; rows: string[][] } {
  const lines = output.trimEnd().split('\n');
  const split = (line: string) => line.trim().split(/\s{2,}/);
  return { header: split(lines[0] ?? ''), rows: lines.slice(1).map(split) };
}

void test('kubectl create namespace sends protobuf and the namespace prints as NAME STATUS AGE', async () => {
  const created = await kubectl.run(['create', 'namespace', ns, '-v=8']);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stdout, `namespace/${ns} created\n`);
  // The generator's typed client sends a protobuf body and accepts protobuf first; kapi answers in protobuf.
  assert.match(created.stderr, /POST https:\S+\/api\/v1\/namespaces\?fieldManager=kubectl-create&fieldValidation=Strict\n/);
  assert.match(created.stderr, /Request Headers:[^]*Content-Type: application\/vnd\.kubernetes\.protobuf\n[^]*Response Status: 201 Created[^]*Content-Type: application\/vnd\.kubernetes\.protobuf\n/);

  const got = table(await kubectl.ok(['get', 'namespace', ns]));
  assert.deepEqual(got.header, ['NAME', 'STATUS', 'AGE']);
  assert.equal(got.rows.length, 1);
  assert.equal(got.rows[0]![0], ns);
  assert.equal(got.rows[0]![1], 'Active');
  assert.match(got.rows[0]![2]!, /^\d+s$/);
});

void test('kubectl create configmap --from-literal and create secret generic round-trip through protobuf', async () => {
  assert.equal(await kubectl.ok(['create', 'configmap', 'literal', '-n', ns, '--from-literal=a=1', '--from-literal=b=two words']), 'configmap/literal created\n');
  const cm = await kubectl.json<{ data: Record<string, string>; metadata: { managedFields?: { manager: string }[] } }>(['get', 'configmap', 'literal', '-n', ns]);
  assert.deepEqual(cm.data, { a: '1', b: 'two words' });

  assert.equal(await kubectl.ok(['create', 'secret', 'generic', 'creds', '-n', ns, '--from-literal=user=admin', '--from-literal=password=s3cr€t']), 'secret/creds created\n');
  const secret = await kubectl.json<{ data: Record<string, string>; type: string }>(['get', 'secret', 'creds', '-n', ns]);
  assert.equal(secret.type, 'Opaque');
  assert.equal(Buffer.from(secret.data['password']!, 'base64').toString('utf8'), 's3cr€t');
  assert.equal(Buffer.from(secret.data['user']!, 'base64').toString('utf8'), 'admin');

  const cms = table(await kubectl.ok(['get', 'configmaps', '-n', ns]));
  assert.deepEqual(cms.header, ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(cms.rows.find((r) => r[0] === 'literal')?.slice(0, 2), ['literal', '2']);

  const secrets = table(await kubectl.ok(['get', 'secrets', '-n', ns]));
  assert.deepEqual(secrets.header, ['NAME', 'TYPE', 'DATA', 'AGE']);
  assert.deepEqual(secrets.rows.find((r) => r[0] === 'creds')?.slice(0, 3), ['creds', 'Opaque', '2']);

  // Binary file content goes to binaryData as raw bytes on the wire; a typed secret is validated as kube does.
  const binary = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x41]);
  writeFileSync(join(cluster.dir, 'blob.bin'), binary);
  assert.equal(await kubectl.ok(['create', 'configmap', 'blob', '-n', ns, `--from-file=blob.bin=${join(cluster.dir, 'blob.bin')}`]), 'configmap/blob created\n');
  const blob = await kubectl.json<{ binaryData: Record<string, string>; data?: unknown }>(['get', 'configmap', 'blob', '-n', ns]);
  assert.deepEqual(Buffer.from(blob.binaryData['blob.bin']!, 'base64'), binary);
  assert.equal(blob.data, undefined);
  assert.equal(
    await kubectl.ok(['create', 'secret', 'docker-registry', 'pull', '-n', ns, '--docker-server=registry.example', '--docker-username=u', '--docker-password=p']),
    'secret/pull created\n',
  );
  const pull = await kubectl.json<{ type: string; data: Record<string, string> }>(['get', 'secret', 'pull', '-n', ns]);
  assert.equal(pull.type, 'kubernetes.io/dockerconfigjson');
  assert.match(Buffer.from(pull.data['.dockerconfigjson']!, 'base64').toString(), /"registry\.example"/);

  // A second create of the same name is kube's AlreadyExists (a protobuf Status kubectl decodes).
  const again = await kubectl.run(['create', 'configmap', 'literal', '-n', ns, '--from-literal=a=1']);
  assert.equal(again.code, 1);
  assert.equal(again.stderr, 'error: failed to create configmap: configmaps "literal" already exists\n');
});

void test('kubectl get: -o wide, --show-labels, -A, service accounts, leases and events as kube prints them', async () => {
  await client.expect(201, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'labelled', labels: { tier: 'web', app: 'shop' } }, data: { k: 'v' } });
  const labelled = table(await kubectl.ok(['get', 'configmap', 'labelled', '-n', ns, '--show-labels']));
  assert.deepEqual(labelled.header, ['NAME', 'DATA', 'AGE', 'LABELS']);
  assert.equal(labelled.rows[0]![3], 'app=shop,tier=web');

  const all = table(await kubectl.ok(['get', 'configmaps', '-A']));
  assert.deepEqual(all.header, ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
  assert.ok(all.rows.some((r) => r[0] === ns && r[1] === 'labelled'), JSON.stringify(all.rows));

  await client.expect(201, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'robot' }, secrets: [{ name: 'a' }, { name: 'b' }] });
  const sa = table(await kubectl.ok(['get', 'serviceaccounts', 'robot', '-n', ns]));
  assert.deepEqual(sa.header, ['NAME', 'SECRETS', 'AGE']);
  assert.deepEqual(sa.rows[0]?.slice(0, 2), ['robot', '2']);

  await client.expect(201, 'POST', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { metadata: { name: 'leader' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 15 } });
  const lease = table(await kubectl.ok(['get', 'leases', '-n', ns]));
  assert.deepEqual(lease.header, ['NAME', 'HOLDER', 'AGE']);
  assert.deepEqual(lease.rows[0]?.slice(0, 2), ['leader', 'node-1']);

  const now = new Date(Date.now() - 120_000).toISOString().slice(0, 19) + 'Z';
  await client.expect(201, 'POST', `/api/v1/namespaces/${ns}/events`, {
    metadata: { name: 'labelled.1' },
    involvedObject: { kind: 'ConfigMap', namespace: ns, name: 'labelled', fieldPath: 'data' },
    reason: 'Synced',
    message: '  configmap synced  ',
    type: 'Normal',
    count: 3,
    firstTimestamp: now,
    lastTimestamp: now,
    source: { component: 'e2e', host: 'node-1' },
  });
  const events = table(await kubectl.ok(['get', 'events', '-n', ns]));
  assert.deepEqual(events.header, ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
  assert.deepEqual(events.rows[0]?.slice(1), ['Normal', 'Synced', 'configmap/labelled', 'configmap synced']);
  assert.match(events.rows[0]![0]!, /^2m\d*s?$/);
  const wide = table(await kubectl.ok(['get', 'events', '-n', ns, '-o', 'wide']));
  assert.deepEqual(wide.header, ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
  assert.deepEqual(wide.rows[0]?.slice(4), ['data', 'e2e, node-1', 'configmap synced', wide.rows[0]![7]!, '3', 'labelled.1']);
});

void test('kubectl get --chunk-size=5 pages through 23 objects with continue tokens and prints one header', async () => {
  const pagedNs = `${ns}-paged`;
  await kubectl.ok(['create', 'namespace', pagedNs]);
  for (let i = 0; i < 23; i++) {
    await client.expect(201, 'POST', `/api/v1/namespaces/${pagedNs}/configmaps`, { metadata: { name: `page-${String(i).padStart(2, '0')}` }, data: { i: String(i) } });
  }
  const result = await kubectl.run(['get', 'configmaps', '-n', pagedNs, '--chunk-size=5', '-v=6']);
  assert.equal(result.code, 0, result.stderr);
  const printed = table(result.stdout);
  assert.deepEqual(printed.header, ['NAME', 'DATA', 'AGE']);
  // kube-root-ca.crt is not published by kapi, so exactly the 23 objects.
  assert.deepEqual(printed.rows.map((r) => r[0]), Array.from({ length: 23 }, (_, i) => `page-${String(i).padStart(2, '0')}`));
  const requests = result.stderr.match(/GET https:\S+\/configmaps\?\S*limit=5\S* 200 OK/g) ?? [];
  assert.equal(requests.length, 5, result.stderr);
  assert.equal(requests.filter((r) => r.includes('continue=')).length, 4);
});

void test('kubectl get -w prints Table rows for a live change with one header', async () => {
  const watchNs = `${ns}-watch`;
  await kubectl.ok(['create', 'namespace', watchNs]);
  await kubectl.ok(['create', 'configmap', 'watched', '-n', watchNs, '--from-literal=a=1']);
  const watch = startKubectl(kubectlOptions, ['get', 'configmaps', '-n', watchNs, '-w', '-o', 'wide']);
  try {
    await watch.waitForOutput(/^watched\s+1\s/m);
    await client.expect(200, 'PATCH', `/api/v1/namespaces/${watchNs}/configmaps/watched`, { data: { a: '1', b: '2', c: '3' } }, 'application/merge-patch+json');
    await watch.waitForOutput(/^watched\s+3\s/m);
    await kubectl.ok(['create', 'configmap', 'later', '-n', watchNs, '--from-literal=x=y']);
    await watch.waitForOutput(/^later\s+1\s/m);
    assert.equal(watch.stdout().match(/^NAME\s+DATA\s+AGE\s*$/gm)?.length, 1, watch.stdout());
  } finally {
    const result = await watch.stop();
    assert.doesNotMatch(result.stderr, /error/i, result.stderr);
  }
});
