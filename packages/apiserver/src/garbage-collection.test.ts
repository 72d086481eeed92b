import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, eventually } from './testing/fixture.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

const FAST = { controllers: { leaderElection: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 }, namespaceResyncMs: 100 } };
const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;


void describe('garbage collection over HTTP (Background, Orphan, Foreground)', () => {
  let t: TestServer;
  const create = async (ns: string, name: string, owners: Obj[] = [], extra: Record<string, unknown> = {}, block = false): Promise<Obj> => {
    const ownerReferences = owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata['name'], uid: o.metadata['uid'], ...(block ? { blockOwnerDeletion: true } : {}) }));
    const res = await t.request('POST', CM(ns), { body: { metadata: { name, ...(ownerReferences.length > 0 ? { ownerReferences } : {}), ...extra } } });
    assert.equal(res.status, 201, res.text);
    return res.json as Obj;
  };
  const status = async (ns: string, name: string) => (await t.request('GET', `${CM(ns)}/${name}`)).status;
  const gone = (ns: string, name: string) => eventually(`${ns}/${name} to be gone`, async () => (await status(ns, name)) === 404);

  before(async () => {
    t = await startTestServer(FAST);
    for (const ns of ['gc', 'gc-other']) assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  });
  after(async () => t.close());

  void it('Background: a dependent chain three deep goes after its root', async () => {
    const a = await create('gc', 'a');
    const b = await create('gc', 'b', [a]);
    await create('gc', 'c', [b]);
    assert.equal((await t.request('DELETE', `${CM('gc')}/a`)).status, 200);
    await gone('gc', 'b');
    await gone('gc', 'c');
  });

  void it('Orphan: the owner goes, its dependents stay without the ownerReference', async () => {
    const o = await create('gc', 'o');
    const other = await create('gc', 'o2');
    await create('gc', 'd', [o, other]);
    const del = await t.request('DELETE', `${CM('gc')}/o?propagationPolicy=Orphan`);
    assert.deepEqual((del.json as Obj).metadata['finalizers'], ['orphan']);
    await gone('gc', 'o');
    const d = (await t.request('GET', `${CM('gc')}/d`)).json as Obj;
    assert.deepEqual((d.metadata['ownerReferences'] as Obj[]).map((r) => r['name']), ['o2']);
  });

  void it('Foreground: the owner stays until a blocking dependent with its own finalizer is gone', async () => {
    const f = await create('gc', 'f');
    await create('gc', 'g', [f], { finalizers: ['example.com/hold'] }, true);
    const del = await t.request('DELETE', `${CM('gc')}/f`, { body: { propagationPolicy: 'Foreground' } });
    assert.deepEqual((del.json as Obj).metadata['finalizers'], ['foregroundDeletion']);
    await eventually('the dependent to be deleted (pending its finalizer)', async () => {
      const g = (await t.request('GET', `${CM('gc')}/g`)).json as Obj;
      return g.metadata['deletionTimestamp'] !== undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await status('gc', 'f'), 200, 'the owner waits for its blocking dependent');
    const g = (await t.request('GET', `${CM('gc')}/g`)).json as Obj;
    assert.equal((await t.request('PUT', `${CM('gc')}/g`, { body: { ...g, metadata: { ...g.metadata, finalizers: [] } } })).status, 200);
    await gone('gc', 'f');
  });

  void it('an owner in another namespace counts as absent; an unknown kind is left alone', async () => {
    const owner = await create('gc-other', 'elsewhere');
    await create('gc', 'cross', [owner]);
    await gone('gc', 'cross');
    assert.equal(await status('gc-other', 'elsewhere'), 200);
    await create('gc', 'widget-owned', [], { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w-uid' }] });
    await create('gc', 'sentinel', [{ metadata: { name: 'never', uid: 'never-uid' } } as Obj]);
    await gone('gc', 'sentinel');
    assert.equal(await status('gc', 'widget-owned'), 200, 'after a pass that removed the sentinel');
  });
});
