/**
 * ResourceQuota admission with the resourcequota controller on a real etcd: the controller
 * fills status.hard and status.used, admission charges creates (kube's 403 texts when over a
 * limit or missing what a quota needs), deletes are given back by the controller, and
 * concurrent creates never exceed a limit nor lose a charge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestServer, type TestServer } from './testing/fixture.js';

type Json = Record<string, unknown>;
const NS = '/api/v1/namespaces/quota';
const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: {} });
const statusOf = async (t: TestServer, name: string) => ((await t.request('GET', `${NS}/resourcequotas/${name}`)).json['status'] ?? {}) as { hard?: Json; used?: Json };

void describe('ResourceQuota admission and the resourcequota controller', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } })).status, 201);
    await eventually('the default service account', async () => (await t.request('GET', `${NS}/serviceaccounts/default`)).status === 200);
  });
  after(async () => {
    await t.close();
  });

  void it('counts, refuses over the limit with kube\'s message, and gives back deleted objects', async () => {
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'objects' }, spec: { hard: { 'count/secrets': '2', 'services.nodeports': '1', services: '5' } } };
    assert.equal((await t.request('POST', `${NS}/resourcequotas`, { body: quota })).status, 201);
    await eventually('the controller fills the status', async () => (await statusOf(t, 'objects')).used?.['count/secrets'] === '0');
    assert.deepEqual((await statusOf(t, 'objects')).hard, { 'count/secrets': '2', services: '5', 'services.nodeports': '1' });
    assert.equal((await t.request('POST', `${NS}/secrets`, { body: secret('a') })).status, 201);
    assert.equal((await statusOf(t, 'objects')).used?.['count/secrets'], '1');
    assert.equal((await t.request('POST', `${NS}/secrets`, { body: secret('b') })).status, 201);
    const refused = await t.request('POST', `${NS}/secrets`, { body: secret('c') });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json['reason'], 'Forbidden');
    assert.equal(refused.json['message'], 'secrets "c" is forbidden: exceeded quota: objects, requested: count/secrets=1, used: count/secrets=2, limited: count/secrets=2');
    const generated = await t.request('POST', `${NS}/secrets`, { body: { ...secret(''), metadata: { generateName: 'c-' } } });
    assert.match(String(generated.json['message']), /^secrets "c-[a-z0-9]{5}" is forbidden: exceeded quota: objects,/);
    const dryRun = await t.request('POST', `${NS}/secrets?dryRun=All`, { body: secret('d') });
    assert.equal(dryRun.status, 403, 'a dry run is checked too');

    const nodePort = (name: string, ports: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'NodePort', ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) } });
    const twoPorts = await t.request('POST', `${NS}/services`, { body: nodePort('two', 2) });
    assert.equal(twoPorts.status, 403);
    assert.equal(twoPorts.json['message'], 'services "two" is forbidden: exceeded quota: objects, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    assert.equal((await t.request('POST', `${NS}/services`, { body: nodePort('one', 1) })).status, 201);

    assert.equal((await t.request('DELETE', `${NS}/secrets/a`)).status, 200);
    await eventually('the controller gives the secret back', async () => (await statusOf(t, 'objects')).used?.['count/secrets'] === '1');
    assert.equal((await t.request('POST', `${NS}/secrets`, { body: secret('c') })).status, 201);
  });

  void it('needs every container to state what a compute quota limits, and charges pods\' requests', async () => {
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute' }, spec: { hard: { 'limits.cpu': '1', 'requests.memory': '1Gi', pods: '3' } } };
    assert.equal((await t.request('POST', `${NS}/resourcequotas`, { body: quota })).status, 201);
    await eventually('the controller fills the status', async () => (await statusOf(t, 'compute')).used?.['pods'] === '0');
    const pod = (name: string, resources: Json) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox', resources }, { name: 'side', image: 'busybox', resources }] } });
    const bare = await t.request('POST', `${NS}/pods`, { body: pod('bare', {}) });
    assert.equal(bare.status, 403);
    assert.equal(bare.json['message'], 'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: app,side; requests.memory for: app,side');
    const ok = await t.request('POST', `${NS}/pods`, { body: pod('ok', { limits: { cpu: '250m', memory: '256Mi' } }) });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual((await statusOf(t, 'compute')).used, { 'limits.cpu': '500m', pods: '1', 'requests.memory': '512Mi' });
    const big = await t.request('POST', `${NS}/pods`, { body: pod('big', { limits: { cpu: '300m', memory: '100Mi' } }) });
    assert.equal(big.status, 403);
    assert.equal(big.json['message'], 'pods "big" is forbidden: exceeded quota: compute, requested: limits.cpu=600m, used: limits.cpu=500m, limited: limits.cpu=1');
  });

  void it('charges concurrent creates one by one: exactly the limit succeeds', async () => {
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'race' } } })).status, 201);
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'cm' }, spec: { hard: { 'count/persistentvolumeclaims': '5' } } };
    assert.equal((await t.request('POST', '/api/v1/namespaces/race/resourcequotas', { body: quota })).status, 201);
    await eventually('the controller fills the status', async () => {
      const status = (await t.request('GET', '/api/v1/namespaces/race/resourcequotas/cm')).json['status'] as { used?: Json } | undefined;
      return status?.used?.['count/persistentvolumeclaims'] === '0';
    });
    const claim = (name: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => t.request('POST', '/api/v1/namespaces/race/persistentvolumeclaims', { body: claim(`c${i}`) })));
    assert.equal(results.filter((r) => r.status === 201).length, 5, results.map((r) => r.status).join(','));
    assert.ok(results.every((r) => r.status === 201 || r.status === 403));
    const status = (await t.request('GET', '/api/v1/namespaces/race/resourcequotas/cm')).json['status'] as { used: Json };
    assert.equal(status.used['count/persistentvolumeclaims'], '5');
  });
});
