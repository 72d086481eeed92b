/**
 * kube's printer for core/v1 Events: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and with
 * `-o wide` SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME. Ages fall back as kube's do: first
 * seen to eventTime, last seen to first seen, and a series' last observation wins.
 */
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { column, timestampSince } from '@kapi/machinery';
import { recordAt, stringAt } from '../../builtin/builtin-strategy.js';

const text = (obj: KubeObject, path: string[]) => stringAt(obj, path) ?? '';
const present = (value: unknown) => typeof value === 'string' && value !== '';

function firstSeen(obj: KubeObject, now: number): string {
  return present(obj['firstTimestamp']) ? timestampSince(obj['firstTimestamp'], now) : timestampSince(obj['eventTime'], now);
}

function lastSeen(obj: KubeObject, now: number): string {
  const series = recordAt(obj, 'series');
  if (series !== undefined) return timestampSince(series['lastObservedTime'], now);
  return present(obj['lastTimestamp']) ? timestampSince(obj['lastTimestamp'], now) : firstSeen(obj, now);
}

function count(obj: KubeObject): number {
  const series = recordAt(obj, 'series');
  if (series !== undefined) return typeof series['count'] === 'number' ? series['count'] : 0;
  const n = typeof obj['count'] === 'number' ? obj['count'] : 0;
  return n === 0 ? 1 : n;
}

function target(obj: KubeObject): string {
  const kind = text(obj, ['involvedObject', 'kind']).toLowerCase();
  const name = text(obj, ['involvedObject', 'name']);
  return name !== '' ? `${kind}/${name}` : kind;
}

function source(obj: KubeObject): string {
  const component = text(obj, ['source', 'component']) || text(obj, ['reportingComponent']);
  const instance = text(obj, ['source', 'host']) || text(obj, ['reportingInstance']);
  return instance === '' ? component : `${component}, ${instance}`;
}

const wide = { priority: 1 };

export const eventColumns: readonly PrinterColumn[] = [
  column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.', lastSeen),
  column('Type', 'string', 'Type of this event (Normal, Warning).', (obj) => text(obj, ['type'])),
  column('Reason', 'string', 'A short, machine understandable reason for the transition into the object\'s current status.', (obj) => text(obj, ['reason'])),
  column('Object', 'string', 'The object that this event is about.', target),
  column('Subobject', 'string', 'The part of the object the event is about (fieldPath).', (obj) => text(obj, ['involvedObject', 'fieldPath']), wide),
  column('Source', 'string', 'The component reporting this event.', source, wide),
  column('Message', 'string', 'A human-readable description of the status of this operation.', (obj) => text(obj, ['message']).trim()),
  column('First Seen', 'string', 'The time at which the event was first recorded.', firstSeen, wide),
  column('Count', 'string', 'The number of times this event has occurred.', count, wide),
  column('Name', 'string', 'The name of the event.', (obj) => obj.metadata.name ?? '', { ...wide, format: 'name' }),
];
