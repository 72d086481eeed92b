/**
 * A bitmap allocator kept in etcd as kube keeps it: a core/v1 RangeAllocation at
 * `<prefix>/ranges/serviceips` or `<prefix>/ranges/servicenodeports` with `range` and the
 * bitmap in `data`. Every change is a compare-and-swap on that one key (retried on
 * conflict), so replicas sharing an etcd never hand out the same value twice.
 */
import type { KubeObject } from '@kapi/machinery';
import { internalError } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import { AllocationBitmap } from './bitmap.js';
import type { AllocationRange } from './ranges.js';

export class RangeStore<T> {
  /** The tail of this process's queue of changes (kube's allocator holds a mutex the same way). */
  private queue: Promise<unknown> = Promise.resolve();
  /** The object last read or written, offered to the next change as the current one (re-read from etcd when stale). */
  private last: KubeObject | undefined;

  constructor(
    private readonly storage: Storage,
    readonly key: string,
    readonly range: AllocationRange<T>,
    /** kube's resource name in its "cannot allocate resources of type ..." text. */
    private readonly resourceName: string,
    /**
     * The values in use, for a bitmap that is missing (a fresh etcd, a lost key): the first
     * allocation starts from them instead of from nothing. Without it a missing key starts empty.
     */
    private readonly inUse?: () => Promise<T[]>,
  ) {}

  private emptyBitmap(): AllocationBitmap {
    return new AllocationBitmap(this.range.size, this.range.offset);
  }

  /** The stored bitmap; undefined when the key is absent or holds another range. */
  bitmapOf(stored: KubeObject | undefined): AllocationBitmap | undefined {
    if (stored === undefined || stored['range'] !== this.range.spec) return undefined;
    const data = typeof stored['data'] === 'string' ? stored['data'] : '';
    return AllocationBitmap.fromData(this.range.size, this.range.offset, data);
  }

  private toObject(bitmap: AllocationBitmap): KubeObject {
    return { kind: 'RangeAllocation', apiVersion: 'v1', metadata: { creationTimestamp: null }, range: this.range.spec, data: bitmap.toData() } as unknown as KubeObject;
  }

  /** The current bitmap and its resourceVersion (a quorum read); an empty bitmap when absent. */
  async read(): Promise<{ bitmap: AllocationBitmap; resourceVersion: string | undefined; rangeMatches: boolean }> {
    const stored = await this.storage.get(this.key, { ignoreNotFound: true });
    const bitmap = this.bitmapOf(stored);
    return { bitmap: bitmap ?? this.emptyBitmap(), resourceVersion: stored?.metadata.resourceVersion, rangeMatches: stored === undefined || bitmap !== undefined };
  }

  /**
   * Runs `change` on the current bitmap and writes the result with a compare-and-swap,
   * running it again on a fresh read after a conflict. What `change` throws (a StatusError)
   * aborts with nothing written. `dryRun`: runs once on a read, writes nothing. A stored
   * range other than this one (the flag changed; the repair pass rewrites it at start) is a
   * 500, as kube's allocator refuses it.
   */
  async update<R>(change: (bitmap: AllocationBitmap) => R, dryRun = false): Promise<R> {
    if (dryRun) {
      const { bitmap, rangeMatches } = await this.read();
      if (!rangeMatches) throw this.unavailable();
      return change(bitmap);
    }
    return this.serially(async () => {
      let result: R | undefined;
      this.last = await this.storage.guaranteedUpdate(this.key, async (current) => {
        const bitmap = current === undefined ? await this.seeded() : this.bitmapOf(current);
        if (bitmap === undefined) throw this.unavailable();
        result = change(bitmap);
        return this.toObject(bitmap);
      }, { ignoreNotFound: true, ...(this.last !== undefined ? { cachedExisting: this.last } : {}) });
      return result as R;
    });
  }

  /**
   * Runs `step` after every change this process queued before it: writes from one replica
   * never race each other for the key, only other replicas' do.
   */
  private serially<R>(step: () => Promise<R>): Promise<R> {
    const run = this.queue.then(step, step);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes `bitmap` in place of the stored one if the key is still at `resourceVersion`
   * (undefined: still absent). False when someone wrote in between (read again and retry).
   */
  async replace(bitmap: AllocationBitmap, resourceVersion: string | undefined): Promise<boolean> {
    const raced = new Error('the range allocation changed');
    return this.serially(async () => {
      try {
        this.last = await this.storage.guaranteedUpdate(this.key, (current) => {
          if (current?.metadata.resourceVersion !== resourceVersion) throw raced;
          return this.toObject(bitmap);
        }, { ignoreNotFound: true });
        return true;
      } catch (err) {
        if (err === raced) return false;
        throw err;
      }
    });
  }

  /** A bitmap of the values in use (see `inUse`); values outside the range are left out. */
  private async seeded(): Promise<AllocationBitmap> {
    const bitmap = this.emptyBitmap();
    for (const value of (await this.inUse?.()) ?? []) {
      const offset = this.range.offsetOf(value);
      if (offset !== undefined) bitmap.set(offset);
    }
    return bitmap;
  }

  private unavailable() {
    return internalError(`cannot allocate resources of type ${this.resourceName} at this time`);
  }
}
