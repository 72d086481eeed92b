/** The fault checker finds each kind of violation it claims to (and accepts the legitimate outcomes of ambiguous writes). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkCounters, checkKeys, checkLists, checkStore, checkWatchEpochs, type HistoryEvent, type KeyEntry, type KeyState } from './checker.js';

const present = (token: string, resourceVersion: string): KeyState => ({ exists: true, token, resourceVersion });
const absent: KeyState = { exists: false };

void describe('checkKeys', () => {
  const acked: KeyEntry[] = [
    { kind: 'ack', op: 'create', state: present('a1', '10') },
    { kind: 'ack', op: 'update', state: present('a2', '12') },
  ];

  void it('passes when the final state is the last acknowledged write', () => {
    assert.deepEqual(checkKeys(new Map([['k', acked]]), new Map([['k', present('a2', '12')]])), []);
  });

  void it('reports a lost update, a lost delete, a resurrected key and a changed revision', () => {
    assert.match(checkKeys(new Map([['k', acked]]), new Map([['k', present('a1', '10')]]))[0]!, /lost write/);
    const deleted: KeyEntry[] = [...acked, { kind: 'ack', op: 'delete', state: absent }];
    assert.match(checkKeys(new Map([['k', deleted]]), new Map([['k', present('a2', '12')]]))[0]!, /lost write — final a2@12, last acknowledged absent/);
    assert.match(checkKeys(new Map([['k', acked]]), new Map())[0]!, /final absent/);
    assert.match(checkKeys(new Map([['k', acked]]), new Map([['k', present('a2', '13')]]))[0]!, /final a2@13 but the last acknowledged write left a2@12/);
  });

  void it('accepts either outcome of an ambiguous write after the last acknowledged one, and nothing else', () => {
    const entries: KeyEntry[] = [...acked, { kind: 'ambiguous', op: 'update', state: present('a3', '') }];
    assert.deepEqual(checkKeys(new Map([['k', entries]]), new Map([['k', present('a2', '12')]])), []);
    assert.deepEqual(checkKeys(new Map([['k', entries]]), new Map([['k', present('a3', '14')]])), []);
    assert.equal(checkKeys(new Map([['k', entries]]), new Map([['k', present('a1', '10')]])).length, 1);
    // An acknowledged write after the ambiguous one settles it.
    const settled: KeyEntry[] = [...entries, { kind: 'observed', state: present('a2', '12') }, { kind: 'ack', op: 'update', state: present('a4', '15') }];
    assert.equal(checkKeys(new Map([['k', settled]]), new Map([['k', present('a3', '14')]])).length, 1);
  });
});

void describe('checkCounters', () => {
  void it('passes when every acknowledged increment is applied once and n matches', () => {
    assert.deepEqual(checkCounters([{ name: 'c', acked: ['a', 'b'], ambiguous: ['x'], final: { n: 3, ops: ['a', 'x', 'b'] } }]), []);
    assert.deepEqual(checkCounters([{ name: 'c', acked: ['a', 'b'], ambiguous: ['x'], final: { n: 2, ops: ['a', 'b'] } }]), []);
  });

  void it('reports a lost update, a double apply, a phantom increment, a wrong n and a missing counter', () => {
    assert.match(checkCounters([{ name: 'c', acked: ['a', 'b'], ambiguous: [], final: { n: 1, ops: ['b'] } }]).join('\n'), /1 acknowledged increments lost \(a\)/);
    assert.match(checkCounters([{ name: 'c', acked: ['a'], ambiguous: [], final: { n: 2, ops: ['a', 'a'] } }]).join('\n'), /applied twice/);
    assert.match(checkCounters([{ name: 'c', acked: ['a'], ambiguous: [], final: { n: 2, ops: ['a', 'z'] } }]).join('\n'), /reported as failed \(z\)/);
    assert.match(checkCounters([{ name: 'c', acked: ['a'], ambiguous: [], final: { n: 5, ops: ['a'] } }]).join('\n'), /n=5 but 1 increments/);
    assert.match(checkCounters([{ name: 'c', acked: [], ambiguous: [], final: undefined }]).join('\n'), /missing/);
  });
});

void describe('checkLists', () => {
  void it('reports a list older than an acknowledged write', () => {
    assert.deepEqual(checkLists([{ resourceVersion: '20', ackedBefore: 20n }]), []);
    assert.match(checkLists([{ resourceVersion: '19', ackedBefore: 20n }])[0]!, /stale list/);
  });
});

void describe('checkWatchEpochs', () => {
  const history: HistoryEvent[] = [
    { type: 'ADDED', name: 'a', resourceVersion: '11' },
    { type: 'MODIFIED', name: 'a', resourceVersion: '12' },
    { type: 'ADDED', name: 'b', resourceVersion: '14' },
    { type: 'DELETED', name: 'a', resourceVersion: '15' },
  ];
  const epoch = (events: [string, string, string][], start = '10') => ({
    watcher: 'w',
    startResourceVersion: start,
    resumedFrom: [],
    events: events.map(([type, name, resourceVersion]) => ({ type: type as 'ADDED', name, resourceVersion })),
  });

  void it('passes for the exact history, with bookmarks, and for a prefix of it', () => {
    assert.deepEqual(checkWatchEpochs([epoch([['ADDED', 'a', '11'], ['MODIFIED', 'a', '12'], ['BOOKMARK', '', '13'], ['ADDED', 'b', '14'], ['DELETED', 'a', '15']])], history, 5n), []);
    assert.deepEqual(checkWatchEpochs([epoch([['ADDED', 'b', '14'], ['DELETED', 'a', '15']], '12')], history, 5n), []);
    assert.deepEqual(checkWatchEpochs([epoch([['ADDED', 'a', '11'], ['BOOKMARK', '', '13']])], history, 5n).length, 1, 'the bookmark at 13 claims 12 was delivered');
  });

  void it('reports a gap, a duplicate, a reordering, a foreign event and a wrong type', () => {
    assert.match(checkWatchEpochs([epoch([['ADDED', 'a', '11'], ['ADDED', 'b', '14']])], history, 5n).join('\n'), /1 events missing .*MODIFIED a@12/);
    assert.match(checkWatchEpochs([epoch([['ADDED', 'a', '11'], ['ADDED', 'a', '11'], ['MODIFIED', 'a', '12']])], history, 5n).join('\n'), /out of order or repeated/);
    assert.match(checkWatchEpochs([epoch([['MODIFIED', 'a', '12'], ['ADDED', 'a', '11']])], history, 5n).join('\n'), /out of order/);
    assert.match(checkWatchEpochs([epoch([['ADDED', 'a', '11'], ['ADDED', 'x', '12']])], history, 5n).join('\n'), /not in etcd's history.*ADDED x@12/);
    assert.match(checkWatchEpochs([epoch([['ADDED', 'a', '11'], ['ADDED', 'a', '12']])], history, 5n).join('\n'), /not in etcd's history/);
    assert.match(checkWatchEpochs([epoch([['ADDED', 'a', '11']], '3')], history, 5n).join('\n'), /before the recorded history/);
  });
});

void describe('checkStore', () => {
  void it('reports missing, stale and extra objects', () => {
    const final = new Map([['a', '5'], ['b', '6']]);
    assert.deepEqual(checkStore('s', new Map([['a', '5'], ['b', '6']]), final), []);
    assert.match(checkStore('s', new Map([['a', '4'], ['c', '1']]), final)[0]!, /differs from etcd's final state \(3\)/);
    assert.match(checkStore('s', new Map([['a', '4'], ['c', '1']]), final)[0]!, /stale a@4 \(etcd 5\), missing b@6, extra c@1/);
  });
});
