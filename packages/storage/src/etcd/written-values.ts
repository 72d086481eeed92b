import type { KubeObject } from '@kapi/machinery';
import { deepCopy, noteStoredEncoding } from '@kapi/machinery';
import type { StorageCodec } from './codec.js';

/** One value this process is writing or wrote, until both its writer and the change feed are done with it. */
export interface WrittenValue {
  /** The bytes sent to etcd (sealed): a feed event carrying exactly these is this write's echo. */
  readonly stored: Buffer;
  /** The serialized object (unsealed). */
  readonly data: Buffer;
  /** `data` decoded, without a resourceVersion: decoded once, by whichever side needs it first; the feed's own. */
  decoded: KubeObject | undefined;
  /** The feed took `decoded`. */
  fed: boolean;
  /** The writer finished (its result is a copy). */
  finished: boolean;
}

/**
 * The objects of this process's writes, shared between the write and the change feed, so
 * that the object a write returns and the one the watch cache receives for the same value
 * are decoded once instead of twice (the feed would otherwise decode etcd's copy of the bytes
 * the write had just serialized). The feed matches an event to a write by the exact stored
 * bytes, so it does not matter whether the event or the write's response arrives first; a
 * value that decodes the same is the same object whichever write it came from. The feed gets
 * the decoded object itself (the cache only reads it); the writer gets a deep copy (its caller
 * may change it). Values no feed picks up (a resource without a watch cache, an event that
 * arrived before the write was noted) are dropped oldest first beyond `maxEntries` or
 * `maxBytes`.
 */
export class WrittenValues {
  private readonly byKey = new Map<string, WrittenValue>();
  private bytes = 0;
  /** Objects the feed took, with the bytes they were decoded from, most recent last (bounded like `byKey`). */
  private readonly fedObjects = new Map<KubeObject, Buffer>();
  private fedBytes = 0;

  constructor(
    private readonly codec: StorageCodec,
    private readonly maxEntries = 256,
    private readonly maxBytes = 8 * 1024 * 1024,
  ) {}

  get size(): number {
    return this.byKey.size;
  }

  /**
   * Before the write of `stored` (`data` sealed) to `key`; `decoded` is what decoding `data`
   * gives when the encoder already knows it (a new object, owned from now on by this value).
   */
  begin(key: string, stored: Buffer, data: Buffer, decoded?: KubeObject): WrittenValue {
    this.drop(key);
    const value: WrittenValue = { stored, data, decoded, fed: false, finished: false };
    this.byKey.set(key, value);
    this.bytes += data.length;
    while (this.byKey.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.byKey.keys().next().value as string;
      this.drop(oldest);
    }
    return value;
  }

  /**
   * The write of `value` committed at `revision`: the written object with that
   * resourceVersion, a private copy unless `shared` (the caller only reads it), when it is the
   * feed's object itself, noted with the bytes it was decoded from (`noteStoredEncoding`: a
   * protobuf answer is then those bytes with the resourceVersion, as kube answers).
   */
  committed(key: string, value: WrittenValue, revision: number, shared = false): KubeObject {
    value.decoded ??= this.codec.decodeSerialized(value.data, key);
    let result: KubeObject;
    if (shared) {
      result = value.decoded;
      // take() sets the same revision; once the feed has the object it is not changed again.
      if (!value.fed) result.metadata.resourceVersion = String(revision);
      noteStoredEncoding(result, value.data);
    } else {
      result = deepCopy(value.decoded);
      result.metadata.resourceVersion = String(revision);
    }
    value.finished = true;
    if (value.fed) this.forget(key, value);
    return result;
  }

  /** The write of `value` did not happen (conflict, error). */
  failed(key: string, value: WrittenValue): void {
    this.forget(key, value);
  }

  /**
   * The feed's object for `stored` put at `revision` under `key` when it is a value this
   * process wrote (the write's decoded object, owned by the feed from now on, noted with the
   * bytes it was decoded from for the protobuf watch events that carry it); else undefined.
   */
  take(key: string, stored: Buffer, revision: number): KubeObject | undefined {
    const value = this.byKey.get(key);
    if (value === undefined || value.fed || !value.stored.equals(stored)) return undefined;
    const obj = (value.decoded ??= this.codec.decodeSerialized(value.data, key));
    obj.metadata.resourceVersion = String(revision);
    value.fed = true;
    if (value.finished) this.forget(key, value);
    this.fedObjects.set(obj, value.data);
    this.fedBytes += value.data.length;
    // For the watchers this object's event reaches: their protobuf frame is these bytes with the revision.
    noteStoredEncoding(obj, value.data);
    while (this.fedObjects.size > this.maxEntries || this.fedBytes > this.maxBytes) {
      const [oldest, bytes] = this.fedObjects.entries().next().value as [KubeObject, Buffer];
      this.fedObjects.delete(oldest);
      this.fedBytes -= bytes.length;
    }
    return obj;
  }

  /**
   * The serialized bytes of `obj` when it is an object the feed took from a recent write
   * (a cached copy an update starts from): what encoding it again gives, since it was decoded
   * from them (the codecs' decode-then-encode reproduces their own output). Undefined otherwise.
   */
  encodedOf(obj: KubeObject): Buffer | undefined {
    return this.fedObjects.get(obj);
  }

  private forget(key: string, value: WrittenValue): void {
    if (this.byKey.get(key) === value) this.drop(key);
  }

  private drop(key: string): void {
    const value = this.byKey.get(key);
    if (value === undefined) return;
    this.byKey.delete(key);
    this.bytes -= value.data.length;
  }
}
