import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const CM = '/api/v1/namespaces/default/configmaps';

void describe('optimistic concurrency under contention', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('50 writers doing read-modify-write PUTs with resourceVersion: the final object holds exactly the acknowledged writes', async () => {
    const created = await t.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'contended' }, data: { init: 'x' } } });
    assert.equal(created.status, 201);
    const acknowledged: string[] = [];
    const versions = new Set<string>();
    let conflicts = 0;
    const writer = async (id: number) => {
      for (;;) {
        const current = (await t.request('GET', `${CM}/contended`)).json as { metadata: Record<string, unknown>; data?: Record<string, string> };
        const data = { ...(current.data ?? {}), [`writer-${id}`]: String(id) };
        const res = await t.request('PUT', `${CM}/contended?fieldManager=writer-${id}`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: current.metadata, data } });
        if (res.status === 409) {
          conflicts++;
          assert.equal(res.json['reason'], 'Conflict');
          continue;
        }
        assert.equal(res.status, 200, res.text);
        acknowledged.push(`writer-${id}`);
        versions.add((res.json['metadata'] as Record<string, string>)['resourceVersion']!);
        return;
      }
    };
    await Promise.all(Array.from({ length: 50 }, (_, i) => writer(i)));
    const final = (await t.request('GET', `${CM}/contended`)).json as { data: Record<string, string>; metadata: { managedFields: { manager: string }[] } };
    assert.deepEqual(Object.keys(final.data).sort(), ['init', ...acknowledged].sort());
    assert.equal(acknowledged.length, 50);
    // Every acknowledged write produced its own revision.
    assert.equal(versions.size, 50);
    assert.ok(conflicts > 0, 'the writers never collided');
    // managedFields kept at most 10 Update managers, the rest merged into ancient-changes.
    assert.equal(final.metadata.managedFields.length, 10);
  });
});
