/**
 * Serialize once (DESIGN §4): objects and watch events shared between many readers (cached
 * objects, events fanned out to N watchers) are JSON-encoded once; the bytes are remembered
 * by the object's identity in WeakMaps, so every watcher and every list that carries the same
 * object reuses them, and they are dropped with the object. This relies on the contract that
 * shared objects and events are read-only: an object must never be changed after it has been
 * encoded here.
 */
import type { KubeList, KubeObject } from '@kapi/machinery';
import type { WatchEvent } from '@kapi/registry';

const objectJson = new WeakMap<object, string>();
const eventLines = new WeakMap<WatchEvent, Buffer>();

/** The JSON text of a shared, read-only object (cached by identity). */
export function jsonOf(obj: object): string {
  let text = objectJson.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    objectJson.set(obj, text);
  }
  return text;
}

/**
 * One watch event as it goes on the wire: `{"type":"ADDED","object":{...}}` and a newline.
 * The line is cached per event, the object's JSON per object (a selector transition sends the
 * same object as MODIFIED to one watcher and DELETED to another).
 */
export function watchEventLine(event: WatchEvent): Buffer {
  let line = eventLines.get(event);
  if (line === undefined) {
    line = Buffer.from(`{"type":${JSON.stringify(event.type)},"object":${jsonOf(event.object)}}\n`);
    eventLines.set(event, line);
  }
  return line;
}

/**
 * A list as JSON, with each item's text taken from (or put into) the per-object cache. The
 * envelope is written as kube writes it: kind, apiVersion, metadata, items.
 */
export function listJson(list: KubeList): string {
  const parts: string[] = new Array<string>(list.items.length);
  for (let i = 0; i < list.items.length; i++) parts[i] = jsonOf(list.items[i] as KubeObject);
  return `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[${parts.join(',')}]}`;
}
