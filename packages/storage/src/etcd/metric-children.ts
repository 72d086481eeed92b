/**
 * Label-bound metric children that skip prom-client's per-call label work. A child from
 * `histogram.labels(...)` still converts, validates and hashes its labels on every
 * `observe` (and a counter's on every `inc`): a few microseconds each, several times per
 * request (request latency and SLI latency, the etcd call, every watch event sent).
 *
 * These children update the series' entry in the metric's own table directly once the first
 * (ordinary) call has created it. Every call checks that the table still holds that entry
 * (`reset()` replaces the table, `remove()` deletes the entry); if not, the call goes through
 * prom-client again and the new entry is found. A metric shaped otherwise than prom-client
 * 15's (no table, exemplars on) gets prom-client's ordinary child, so a change of library
 * version costs speed, not correctness.
 */
import type { Counter, Histogram, LabelValues } from 'prom-client';

export interface ObservingChild {
  observe(value: number): void;
}

export interface IncrementingChild {
  inc(): void;
}

interface SeriesTable<E> {
  hashMap?: Record<string, E | undefined>;
  enableExemplars?: boolean;
}

interface HistogramEntry {
  labels: unknown;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

interface CounterEntry {
  labels: unknown;
  value: number;
}

function sameLabels(a: unknown, b: object): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(y).filter((k) => y[k] !== undefined);
  return keys.length === Object.keys(x).filter((k) => x[k] !== undefined).length && keys.every((k) => String(x[k]) === String(y[k]));
}

/** Finds the entry prom-client keeps for `labels` (normally the very object the child was bound with). */
function findEntry<E extends { labels: unknown }>(table: Record<string, E | undefined>, labels: object): { key: string; entry: E } | undefined {
  for (const key of Object.keys(table)) {
    const entry = table[key];
    if (entry !== undefined && sameLabels(entry.labels, labels)) return { key, entry };
  }
  return undefined;
}

/** `histogram.labels(labels)`, with observe updating the series directly after its first observation. */
export function histogramChild<T extends string>(histogram: Histogram<T>, labels: LabelValues<T>): ObservingChild {
  const slow = histogram.labels(labels);
  const internals = histogram as unknown as SeriesTable<HistogramEntry> & { upperBounds?: unknown };
  if (typeof internals.hashMap !== 'object' || internals.enableExemplars === true || !Array.isArray(internals.upperBounds)) return slow;
  const upperBounds = internals.upperBounds as number[];
  // The bucket table's property names, made once (a number key is converted to text on every access).
  const boundKeys = upperBounds.map(String);
  let key = '';
  let entry: HistogramEntry | undefined;
  return {
    observe(value) {
      if (entry !== undefined && internals.hashMap?.[key] === entry && Number.isFinite(value)) {
        entry.sum += value;
        entry.count += 1;
        for (let i = 0; i < upperBounds.length; i++) {
          if (value <= upperBounds[i]!) {
            const bucket = boundKeys[i]!;
            if (Object.prototype.hasOwnProperty.call(entry.bucketValues, bucket)) entry.bucketValues[bucket]! += 1;
            break;
          }
        }
        return;
      }
      slow.observe(value);
      const found = internals.hashMap !== undefined ? findEntry(internals.hashMap, labels) : undefined;
      key = found?.key ?? '';
      entry = found?.entry;
    },
  };
}

/** `counter.labels(labels)`, with inc (by one) updating the series directly after its first increment. */
export function counterChild<T extends string>(counter: Counter<T>, labels: LabelValues<T>): IncrementingChild {
  const slow = counter.labels(labels);
  const internals = counter as unknown as SeriesTable<CounterEntry>;
  if (typeof internals.hashMap !== 'object' || internals.enableExemplars === true) return slow;
  let key = '';
  let entry: CounterEntry | undefined;
  return {
    inc() {
      if (entry !== undefined && internals.hashMap?.[key] === entry) {
        entry.value += 1;
        return;
      }
      slow.inc();
      const found = internals.hashMap !== undefined ? findEntry(internals.hashMap, labels) : undefined;
      key = found?.key ?? '';
      entry = found?.entry;
    },
  };
}
