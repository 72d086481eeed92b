/** The case generator is replayable: a seed gives the same requests however often it is drawn, and mutations never change the arbitraries' shared constants. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyMutation, type Mutation } from './mutations.js';
import { fuzzCase, type FuzzCase } from './requests.js';

const wire = (c: FuzzCase) => JSON.stringify([c.request.method, c.request.path, c.request.headers, c.request.body?.toString('base64'), c.ensure]);

void describe('fuzz cases', () => {
  void it('the same seed draws the same requests, also after other draws', () => {
    const first = fc.sample(fuzzCase, { seed: 42, numRuns: 400 }).map(wire);
    fc.sample(fuzzCase, { seed: 7, numRuns: 400 });
    const again = fc.sample(fuzzCase, { seed: 42, numRuns: 400 }).map(wire);
    assert.deepEqual(again, first);
  });

  void it('a mutation inserts a copy of its value, so a later mutation cannot change (or nest) the shared constant', () => {
    const shared: unknown[] = [];
    const insert: Mutation = { walk: [], op: 'set-field', field: ['spec', 'tags'], value: { label: 'empty-collection', value: shared } };
    const push: Mutation = { walk: [0, 0], op: 'add-unknown', field: ['spec'], value: { label: 'empty-collection', value: shared } };
    const root = applyMutation(applyMutation({ spec: {} }, insert), push) as { spec: { tags: unknown[]; fuzzUnknowntags: unknown[] } };
    root.spec.tags.push('x');
    root.spec.fuzzUnknowntags.push('y');
    assert.deepEqual(shared, []);
    assert.deepEqual(root, { spec: { tags: ['x'], fuzzUnknowntags: ['y'] } });
  });
});
