/** The fault checker finds each kind of violation it claims to (and accepts the legitimate outcomes of ambiguous writes). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkCounters, checkKeys, checkListedStates, checkLists, checkStore, checkWatchEpochs, stateAt, type HistoryEvent, type KeyEntry, type KeyState, type WatchEpoch } from './checker.js';
import { reflectorEpochs } from './reflector-trace.js';

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
    resumes: [],
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

void describe('watch resumes and listed states', () => {
  const history: HistoryEvent[] = [
    { type: 'ADDED', name: 'a', resourceVersion: '11' },
    { type: 'MODIFIED', name: 'a', resourceVersion: '12' },
    { type: 'ADDED', name: 'b', resourceVersion: '14' },
    { type: 'DELETED', name: 'a', resourceVersion: '15' },
  ];
  const initial = new Map([['c', '3']]);
  const seen = (type: string, name: string, resourceVersion: string) => ({ type: type as 'ADDED', name, resourceVersion });

  void it('rebuilds etcd\'s state at any revision from the initial state and the history', () => {
    assert.deepEqual([...stateAt(initial, history, 10n)], [['c', '3']]);
    assert.deepEqual([...stateAt(initial, history, 14n)].sort(), [['a', '12'], ['b', '14'], ['c', '3']]);
    assert.deepEqual([...stateAt(initial, history, 99n)].sort(), [['b', '14'], ['c', '3']]);
  });

  void it('a watch resumed past the last revision seen is reported, even when the later events match', () => {
    // The informer saw a@11, its next watch asked from 14: MODIFIED a@12 was never checked.
    const skipped: WatchEpoch = { watcher: 'w', startResourceVersion: '10', events: [seen('ADDED', 'a', '11'), seen('DELETED', 'a', '15')], resumes: [{ from: '10', afterEvents: 0 }, { from: '14', afterEvents: 1 }] };
    assert.match(checkWatchEpochs([skipped], history, 5n).join('\n'), /resumed from 14 after the last revision seen was 11/);
    const exact: WatchEpoch = { ...skipped, events: [seen('ADDED', 'a', '11'), seen('MODIFIED', 'a', '12'), seen('BOOKMARK', '', '13'), seen('ADDED', 'b', '14')], resumes: [{ from: '10', afterEvents: 0 }, { from: '12', afterEvents: 2 }, { from: '13', afterEvents: 3 }] };
    assert.deepEqual(checkWatchEpochs([exact], history, 5n), []);
  });

  void it('a list that holds a deleted object, misses one or has an old revision is reported', () => {
    const epoch = (listed: [string, string][], at = '14'): WatchEpoch => ({ watcher: 'w', startResourceVersion: at, events: [], resumes: [], listed: new Map(listed) });
    assert.deepEqual(checkListedStates([epoch([['a', '12'], ['b', '14'], ['c', '3']])], initial, history, 5n), []);
    assert.match(checkListedStates([epoch([['a', '12'], ['b', '14'], ['c', '3']], '15')], initial, history, 5n)[0]!, /the list differs from etcd's state at 15 \(1\): extra a@12/);
    assert.match(checkListedStates([epoch([['b', '14'], ['c', '3']])], initial, history, 5n)[0]!, /missing a@12/);
    assert.match(checkListedStates([epoch([['a', '11'], ['b', '14'], ['c', '3']])], initial, history, 5n)[0]!, /stale a@11 \(etcd 12\)/);
  });

  void it('reads the client-go Reflector\'s trace as epochs: lists (and their later pages), watches as resumes, events it took', () => {
    const trace = [
      { op: 'list', rv: '0', continue: '', listRV: '10', items: ['c@3'] },
      { op: 'watch', watch: 1, rv: '10' },
      { op: 'event', watch: 1, type: 'ADDED', name: 'a', rv: '11' },
      { op: 'event', watch: 1, type: 'MODIFIED', name: 'a', rv: '12' },
      { op: 'event', watch: 1, type: 'BOOKMARK', name: '', rv: '13' },
      { op: 'watch', watch: 2, rv: '13', error: 'connection refused' },
      { op: 'watch', watch: 3, rv: '13' },
      { op: 'event', watch: 3, type: 'ERROR', object: '410' },
      { op: 'list', rv: '13', continue: '', listRV: '15', items: ['b@14'] },
      { op: 'list', rv: '13', continue: 'token', listRV: '15', items: ['c@3'] },
      { op: 'http', seq: 9, url: '/x' },
    ].map((e) => JSON.stringify(e)).join('\n');
    const epochs = reflectorEpochs(trace);
    assert.equal(epochs.length, 2);
    assert.deepEqual(epochs[0]!.resumes, [{ from: '10', afterEvents: 0 }, { from: '13', afterEvents: 3 }]);
    assert.deepEqual(epochs[0]!.events.map((e) => `${e.type} ${e.name}@${e.resourceVersion}`), ['ADDED a@11', 'MODIFIED a@12', 'BOOKMARK @13']);
    assert.deepEqual([...epochs[1]!.listed!].sort(), [['b', '14'], ['c', '3']]);
    assert.deepEqual(checkWatchEpochs(epochs, history, 5n), []);
    assert.deepEqual(checkListedStates(epochs, initial, history, 5n), []);
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
