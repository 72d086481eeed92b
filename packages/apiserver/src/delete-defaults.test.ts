/**
 * kube's default garbage collection policies: deleting a ReplicationController or a Job with
 * no propagation policy orphans its dependents (the object answers with the `orphan`
 * finalizer, which the garbage collector then handles), and a Job's delete warns about it;
 * an explicit policy overrides the default (and silences the warning).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MINIMAL_OBJECTS } from './testing/index.js';
import { eventually, startTestServer, type TestServer } from './testing/fixture.js';

type Json = Record<string, unknown>;
const WARNING = '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';
const sample = (key: string, name: string) => ({ ...MINIMAL_OBJECTS[key]!.object, metadata: { name } });

void describe('default propagation of deletes', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('ReplicationControllers and Jobs orphan by default; Jobs warn', async () => {
    const rcs = '/api/v1/namespaces/default/replicationcontrollers';
    assert.equal((await t.request('POST', rcs, { body: sample('/replicationcontrollers', 'rc') })).status, 201);
    const rc = await t.request('DELETE', `${rcs}/rc`);
    assert.equal(rc.status, 200, rc.text);
    assert.deepEqual((rc.json['metadata'] as Json)['finalizers'], ['orphan']);
    assert.equal(rc.headers.get('warning'), null);
    await eventually('the garbage collector orphans and removes it', async () => (await t.request('GET', `${rcs}/rc`)).status === 404);

    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    assert.equal((await t.request('POST', jobs, { body: sample('batch/jobs', 'j1') })).status, 201);
    const job = await t.request('DELETE', `${jobs}/j1`);
    assert.equal(job.status, 200, job.text);
    assert.deepEqual((job.json['metadata'] as Json)['finalizers'], ['orphan']);
    assert.equal(job.headers.get('warning'), WARNING);

    assert.equal((await t.request('POST', jobs, { body: sample('batch/jobs', 'j2') })).status, 201);
    const background = await t.request('DELETE', `${jobs}/j2?propagationPolicy=Background`);
    assert.equal(background.status, 200, background.text);
    assert.equal(background.headers.get('warning'), null);
    assert.equal(background.json['kind'], 'Status', 'removed at once');
  });
});
