import type { IEvent, IKeyValue } from 'etcd3';
import type { KubeObject } from '@kapi/machinery';
import type { Change, Predicate, WatchEvent } from '../interface.js';
import { StorageError } from '../errors.js';
import type { StorageCodec as Codec } from './codec.js';
import { decodeKV, revisionOf, withResourceVersion } from './kv.js';
import type { WrittenValues } from './written-values.js';

/** Decodes `kv`'s value with resourceVersion = `revision` (a fresh, unshared object). */
function decodeAt(codec: Codec, kv: IKeyValue, revision: number): KubeObject {
  const key = kv.key.toString();
  return withResourceVersion(codec.decode(kv.value, key), revision);
}

/**
 * The change an etcd event makes, for a change feed: a put carries the new object
 * (resourceVersion = mod_revision) and the previous state when etcd still had it; a delete
 * carries the last state with resourceVersion = the deleting revision. A delete without its
 * previous state (etcd compacted it) cannot be described and throws Internal, so the feed
 * ends and its consumer re-lists. Decode failures of the object throw Internal too (of the
 * previous state: when `prevObject` is read). A put of a value this process wrote takes the
 * write's decoded object from `written` instead of decoding it again.
 */
export function toChange(codec: Codec, event: IEvent, written?: WrittenValues): Change {
  const key = event.kv.key.toString();
  const revision = revisionOf(event.kv.mod_revision);
  const prev = event.prev_kv;
  if (event.type === 'Delete') {
    if (!prev) throw new StorageError('Internal', key, `etcd sent a delete of ${key} at revision ${revision} without its previous state`);
    return withPreviousState({ type: 'delete', key, object: decodeAt(codec, prev, revision), revision }, codec, prev);
  }
  const change: Change = { type: 'put', key, object: written?.take(key, event.kv.value, revision) ?? decodeKV(codec, event.kv, key), revision };
  return prev ? withPreviousState(change, codec, prev) : change;
}

/**
 * `change` with `prevObject` decoded from `prev` when first read: the watch cache mostly has
 * the previous state already, and decoding a large object twice per event held the loop.
 */
function withPreviousState(change: Change, codec: Codec, prev: IKeyValue): Change {
  let decoded: KubeObject | undefined;
  return Object.defineProperty(change, 'prevObject', {
    enumerable: true,
    get: () => (decoded ??= decodeKV(codec, prev, change.key)),
  });
}

/**
 * The event a watcher with `predicate` receives for an etcd event, or undefined when none
 * (kube's etcd watcher rules):
 *
 * - a create (create_revision == mod_revision) that matches → ADDED;
 * - an update: with an empty predicate → MODIFIED; else by the transition table — current
 *   and previous match → MODIFIED, only current → ADDED, only previous → DELETED carrying
 *   the previous state with resourceVersion = the event's revision;
 * - a delete whose previous state matches → DELETED with that state at the deleting revision.
 *
 * A previous state etcd no longer has (compacted) counts as not matching; a delete without it
 * is dropped. Decode failures throw Internal.
 */
export function toWatchEvent(codec: Codec, event: IEvent, predicate: Predicate): WatchEvent | undefined {
  const revision = revisionOf(event.kv.mod_revision);
  const prev = event.prev_kv;
  if (event.type === 'Delete') {
    if (!prev) return undefined;
    const old = decodeAt(codec, prev, revision);
    return predicate.empty || predicate.matches(old) ? { type: 'DELETED', object: old, revision } : undefined;
  }
  const current = decodeAt(codec, event.kv, revision);
  const created = revisionOf(event.kv.create_revision) === revision;
  if (created) return predicate.empty || predicate.matches(current) ? { type: 'ADDED', object: current, revision } : undefined;
  if (predicate.empty) return { type: 'MODIFIED', object: current, revision };
  const old = prev ? decodeAt(codec, prev, revision) : undefined;
  const currentMatches = predicate.matches(current);
  const oldMatches = old !== undefined && predicate.matches(old);
  if (currentMatches) return { type: oldMatches ? 'MODIFIED' : 'ADDED', object: current, revision };
  if (oldMatches) return { type: 'DELETED', object: old, revision };
  return undefined;
}
