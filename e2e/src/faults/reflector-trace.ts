/**
 * The client-go Reflector's protocol as kapi-reflector traced it (`--trace`, one JSON object a
 * line), turned into the checker's watch epochs: each list starts an epoch with what it
 * returned, each watch the Reflector opened is a resume at the resourceVersion it asked for,
 * each event it took is an event of the epoch. checkWatchEpochs and checkListedStates then
 * hold the Reflector to etcd's history exactly as they hold the raw watchers.
 */
import { readFileSync } from 'node:fs';
import type { Resume, SeenEvent, WatchEpoch } from './checker.js';

/** One line of the trace (see e2e/go/cmd/kapi-reflector). */
interface TraceEntry {
  op: string;
  rv?: string;
  listRV?: string;
  continue?: string;
  items?: string[];
  error?: string;
  type?: string;
  name?: string;
}

interface Building {
  epoch: WatchEpoch;
  events: SeenEvent[];
  resumes: Resume[];
  listed: Map<string, string>;
}

/** The epochs of the trace in `text`; lists and watches that failed start nothing. */
export function reflectorEpochs(text: string, watcher = 'client-go reflector'): WatchEpoch[] {
  const epochs: WatchEpoch[] = [];
  let current: Building | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const entry = JSON.parse(line) as TraceEntry;
    if (entry.error !== undefined) continue;
    if (entry.op === 'list') {
      const items = (entry.items ?? []).map((item) => {
        const at = item.lastIndexOf('@');
        return [item.slice(0, at), item.slice(at + 1)] as const;
      });
      if ((entry.continue ?? '') !== '' && current !== undefined) {
        for (const [name, rv] of items) current.listed.set(name, rv);
        continue;
      }
      const events: SeenEvent[] = [];
      const resumes: Resume[] = [];
      const listed = new Map(items);
      current = { epoch: { watcher, startResourceVersion: entry.listRV ?? '0', events, resumes, listed }, events, resumes, listed };
      epochs.push(current.epoch);
    } else if (entry.op === 'watch' && current !== undefined) {
      current.resumes.push({ from: entry.rv ?? '', afterEvents: current.events.length });
    } else if (entry.op === 'event' && current !== undefined && entry.type !== 'ERROR') {
      current.events.push({ type: entry.type as SeenEvent['type'], name: entry.name ?? '', resourceVersion: entry.rv ?? '' });
    }
  }
  return epochs;
}

/** reflectorEpochs of a trace file. */
export function readReflectorEpochs(path: string): WatchEpoch[] {
  return reflectorEpochs(readFileSync(path, 'utf8'));
}
