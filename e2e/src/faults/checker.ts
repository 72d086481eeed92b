/**
 * The fault suite's checker: pure functions over what the workload recorded (acknowledged and
 * ambiguous writes, counter increments, lists, watch epochs, informer stores) and the ground
 * truth read from etcd itself (its final state and its history of the namespace's keys).
 * Every function returns violations as strings; an empty list means the property held.
 */

/** What one key holds: absent, or present with the workload's unique token and a revision. */
export type KeyState = { exists: false } | { exists: true; token: string; resourceVersion: string };

/**
 * One entry of a key's log, in the order its (only) writer issued them:
 * - `ack`: a write the server acknowledged (2xx) with the resulting state;
 * - `ambiguous`: a write whose outcome is unknown (5xx, timeout, reset) and the state it would have produced;
 * - `observed`: a quorum read after an ambiguous or refused write (the writer's new baseline).
 */
export type KeyEntry =
  | { kind: 'ack'; op: 'create' | 'update' | 'delete'; state: KeyState }
  | { kind: 'ambiguous'; op: 'create' | 'update' | 'delete'; state: KeyState }
  | { kind: 'observed'; state: KeyState };

const sameState = (a: KeyState, b: KeyState): boolean =>
  a.exists === b.exists && (!a.exists || (b.exists && a.token === b.token));

const show = (s: KeyState | undefined): string => (s === undefined ? 'never written' : s.exists ? `${s.token}@${s.resourceVersion}` : 'absent');

/**
 * No acknowledged write lost: each key's final state is the state of its last acknowledged (or
 * observed) write — same token, and the same revision when the last entry was that write — or
 * the state of an ambiguous write issued after it. Deleted keys are absent.
 */
export function checkKeys(logs: ReadonlyMap<string, readonly KeyEntry[]>, final: ReadonlyMap<string, KeyState>): string[] {
  const violations: string[] = [];
  for (const [key, entries] of logs) {
    let expected: KeyState | undefined;
    let exact = false;
    let pending: KeyState[] = [];
    for (const e of entries) {
      if (e.kind === 'ambiguous') {
        pending.push(e.state);
        exact = false;
      } else {
        expected = e.state;
        exact = true;
        if (e.kind === 'ack') pending = [];
      }
    }
    if (expected === undefined) continue;
    const got = final.get(key) ?? { exists: false as const };
    if (sameState(got, expected)) {
      if (exact && got.exists && expected.exists && got.resourceVersion !== expected.resourceVersion) {
        violations.push(`key ${key}: final ${show(got)} but the last acknowledged write left ${show(expected)}`);
      }
      continue;
    }
    if (pending.some((p) => sameState(got, p))) continue;
    violations.push(
      `key ${key}: lost write — final ${show(got)}, last acknowledged ${show(expected)}` +
        (pending.length > 0 ? `, ambiguous since: ${pending.map(show).join(', ')}` : ''),
    );
  }
  return violations;
}

/** A counter object: increments applied with resourceVersion preconditions, each appending its id. */
export interface CounterRecord {
  name: string;
  /** Increment ids the server acknowledged (200 to the conditional PUT). */
  acked: readonly string[];
  /** Increment ids whose outcome is unknown. */
  ambiguous: readonly string[];
  /** The final object: `n` and the list of applied increment ids. */
  final: { n: number; ops: readonly string[] } | undefined;
}

/** No lost update: n equals the number of applied ids, ids are unique, every acknowledged id is applied, nothing unknown is. */
export function checkCounters(counters: readonly CounterRecord[]): string[] {
  const violations: string[] = [];
  for (const c of counters) {
    if (!c.final) {
      violations.push(`counter ${c.name}: missing at the end`);
      continue;
    }
    const applied = new Set(c.final.ops);
    if (applied.size !== c.final.ops.length) violations.push(`counter ${c.name}: an increment applied twice (${c.final.ops.length - applied.size} duplicates)`);
    if (c.final.n !== c.final.ops.length) violations.push(`counter ${c.name}: n=${c.final.n} but ${c.final.ops.length} increments recorded`);
    const lost = c.acked.filter((id) => !applied.has(id));
    if (lost.length > 0) violations.push(`counter ${c.name}: ${lost.length} acknowledged increments lost (${lost.slice(0, 5).join(', ')})`);
    const known = new Set([...c.acked, ...c.ambiguous]);
    const phantom = c.final.ops.filter((id) => !known.has(id));
    if (phantom.length > 0) violations.push(`counter ${c.name}: ${phantom.length} increments applied that were reported as failed (${phantom.slice(0, 5).join(', ')})`);
    if (c.final.n < c.acked.length || c.final.n > c.acked.length + c.ambiguous.length) {
      violations.push(`counter ${c.name}: n=${c.final.n} outside [acknowledged ${c.acked.length}, acknowledged + ambiguous ${c.acked.length + c.ambiguous.length}]`);
    }
  }
  return violations;
}

/** A list through the balancer and the highest revision acknowledged to any writer before it was sent. */
export interface ListRecord {
  resourceVersion: string;
  ackedBefore: bigint;
}

/** Lists without a resourceVersion are consistent reads: never older than a write acknowledged before them. */
export function checkLists(lists: readonly ListRecord[]): string[] {
  const stale = lists.filter((l) => BigInt(l.resourceVersion) < l.ackedBefore);
  return stale.slice(0, 10).map((l) => `stale list: resourceVersion ${l.resourceVersion} after a write acknowledged at ${l.ackedBefore}`)
    .concat(stale.length > 10 ? [`... and ${stale.length - 10} more stale lists`] : []);
}

/** One watch event as a watcher received it (ERROR events are not recorded here). */
export interface SeenEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  name: string;
  resourceVersion: string;
}

/** A history event of etcd (ground truth), named by the key's last segment. */
export interface HistoryEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  resourceVersion: string;
}

/** A watch the watcher (re-)opened `from` a resourceVersion after it had taken `afterEvents` events of its epoch. */
export interface Resume {
  from: string;
  afterEvents: number;
}

/**
 * A watcher's life between two lists: it listed at `startResourceVersion` (and got `listed`,
 * name → resourceVersion, when known), then watched from there, resuming each broken watch
 * (`resumes`) until the end or a 410 made it list again (the next epoch).
 */
export interface WatchEpoch {
  watcher: string;
  startResourceVersion: string;
  events: readonly SeenEvent[];
  resumes: readonly Resume[];
  listed?: ReadonlyMap<string, string>;
}

/**
 * Per epoch: events are ordered by resourceVersion, unique (strictly increasing except that a
 * bookmark may repeat the last revision), each resume starts exactly at the last revision seen
 * (a resume from further on would skip events unchecked), and the events equal etcd's history
 * of the namespace in (start, last revision seen] — nothing missing, nothing extra, the same
 * types. Together with checkListedStates this says the watcher's store was etcd's state at its
 * resourceVersion at every moment: an informer built on it can never keep a deleted object.
 */
export function checkWatchEpochs(epochs: readonly WatchEpoch[], history: readonly HistoryEvent[], historyFrom: bigint): string[] {
  const violations: string[] = [];
  for (const [i, epoch] of epochs.entries()) {
    const label = `${epoch.watcher} epoch ${i} (from ${epoch.startResourceVersion})`;
    const start = BigInt(epoch.startResourceVersion);
    let last = start;
    const real: SeenEvent[] = [];
    let problems = 0;
    const resumes = [...epoch.resumes].sort((a, b) => a.afterEvents - b.afterEvents);
    let next = 0;
    const checkResumes = (taken: number) => {
      for (; next < resumes.length && resumes[next]!.afterEvents <= taken; next++) {
        const resume = resumes[next]!;
        if (BigInt(resume.from) !== last && problems++ < 3) violations.push(`${label}: a watch resumed from ${resume.from} after the last revision seen was ${last}`);
      }
    };
    for (const [n, e] of epoch.events.entries()) {
      checkResumes(n);
      const rv = BigInt(e.resourceVersion);
      const ok = e.type === 'BOOKMARK' ? rv >= last : rv > last;
      if (!ok && problems++ < 3) violations.push(`${label}: ${e.type} ${e.name}@${e.resourceVersion} after ${last} (out of order or repeated)`);
      if (rv > last) last = rv;
      if (e.type !== 'BOOKMARK') real.push(e);
    }
    checkResumes(Infinity);
    if (start < historyFrom) {
      violations.push(`${label}: starts before the recorded history (${historyFrom}); cannot check`);
      continue;
    }
    const want = history.filter((h) => BigInt(h.resourceVersion) > start && BigInt(h.resourceVersion) <= last);
    const key = (e: { type: string; name: string; resourceVersion: string }) => `${e.type} ${e.name}@${e.resourceVersion}`;
    const got = new Set(real.map(key));
    const wanted = new Set(want.map(key));
    const missing = want.filter((h) => !got.has(key(h)));
    const extra = real.filter((e) => !wanted.has(key(e)));
    if (missing.length > 0) violations.push(`${label}: ${missing.length} events missing up to ${last} (gap), first ${missing.slice(0, 3).map(key).join(', ')}`);
    if (extra.length > 0) violations.push(`${label}: ${extra.length} events not in etcd's history, first ${extra.slice(0, 3).map(key).join(', ')}`);
  }
  return violations;
}

/** etcd's state of the namespace at `revision` (name → resourceVersion): `initial` (at the history's start) plus every change up to `revision`. */
export function stateAt(initial: ReadonlyMap<string, string>, history: readonly HistoryEvent[], revision: bigint): Map<string, string> {
  const state = new Map(initial);
  for (const h of history) {
    if (BigInt(h.resourceVersion) > revision) break;
    if (h.type === 'DELETED') state.delete(h.name);
    else state.set(h.name, h.resourceVersion);
  }
  return state;
}

/**
 * Every list that started an epoch held exactly etcd's state at the resourceVersion it
 * reported: no object already deleted (a list from a cache behind its claimed revision), none
 * missing, none at another revision. `history` must be in revision order from `historyFrom`,
 * where the namespace held `initial`.
 */
export function checkListedStates(epochs: readonly WatchEpoch[], initial: ReadonlyMap<string, string>, history: readonly HistoryEvent[], historyFrom: bigint): string[] {
  const violations: string[] = [];
  for (const [i, epoch] of epochs.entries()) {
    if (epoch.listed === undefined) continue;
    const at = BigInt(epoch.startResourceVersion);
    if (at < historyFrom) continue; // reported by checkWatchEpochs
    violations.push(...checkStore(`${epoch.watcher} epoch ${i}: the list`, epoch.listed, stateAt(initial, history, at), `etcd's state at ${epoch.startResourceVersion}`));
  }
  return violations;
}

/** A cache (informer store) by name → resourceVersion compared with etcd's state (`expected`, by default its final state). */
export function checkStore(label: string, store: ReadonlyMap<string, string>, expected: ReadonlyMap<string, string>, what = "etcd's final state"): string[] {
  const out: string[] = [];
  for (const [name, rv] of expected) {
    if (!store.has(name)) out.push(`missing ${name}@${rv}`);
    else if (store.get(name) !== rv) out.push(`stale ${name}@${store.get(name)} (etcd ${rv})`);
  }
  for (const [name, rv] of store) if (!expected.has(name)) out.push(`extra ${name}@${rv}`);
  return out.length === 0 ? [] : [`${label} differs from ${what} (${out.length}): ${out.slice(0, 5).join(', ')}`];
}
