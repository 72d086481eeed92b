/**
 * Values that cannot be read, as kube-apiserver 1.32 reports them when its
 * AllowUnsafeMalformedObjectDeletion gate is on (off by default), and the unsafe delete that
 * gate allows. With the gate off kapi reports them as kube does without it: the decoder's
 * message as a 500 (codec.ts, kube-codec.ts).
 *
 * - get, and the read a delete starts with: StorageError `CorruptObject` with kube's text
 *   `StorageError: corrupt object, Code: 7, Key: <key under the etcd prefix>, ResourceVersion: 0,
 *   AdditionalErrorMsg: object not decodable revision=<mod_revision>: <decoder's message>`
 *   (`data from the storage is not transformable revision=0: ...` for a value that does not
 *   decrypt);
 * - list: every unreadable value of the range (at most 100) in one `StoreReadError`, each with
 *   the same text but the full key; readable values are skipped, not counted in a page;
 * - guaranteed update: `Corrupt` with `object not decodable revision=N: ...` alone.
 */
import { StorageError, keyNotFound, type CorruptObjectCause } from '../errors.js';
import { TransformError } from './codec.js';
import { conditionalWrite } from './conditional-write.js';
import { readKey, revisionOf, type EtcdKV } from './kv.js';

/** The gate's settings: the etcd prefix (`--etcd-prefix`), which kube leaves out of a get's key. */
export interface UnsafeDeletionSettings {
  readonly etcdPrefix: string;
}

/** At most this many unreadable values are named by one list error (kube's limit). */
export const MAX_LIST_READ_ERRORS = 100;

/** kube's description of why a value is unreadable, or undefined when `err` is another error. */
export function readErrorDetail(err: unknown): string | undefined {
  if (err instanceof TransformError) return `data from the storage is not transformable revision=0: ${err.message}`;
  if (err instanceof StorageError && err.code === 'Corrupt') return `object not decodable revision=${err.revision ?? 0}: ${err.message}`;
  return undefined;
}

function storageErrorText(shownKey: string, detail: string): string {
  return `StorageError: corrupt object, Code: 7, Key: ${shownKey}, ResourceVersion: 0, AdditionalErrorMsg: ${detail}`;
}

/** The key as kube's registry names it in a get's error: without the etcd prefix. */
function keyUnderPrefix(settings: UnsafeDeletionSettings, key: string): string {
  const prefix = settings.etcdPrefix.endsWith('/') ? settings.etcdPrefix.slice(0, -1) : settings.etcdPrefix;
  return prefix !== '' && key.startsWith(`${prefix}/`) ? key.slice(prefix.length) : key;
}

/** `err` as a get reports it with the gate on: CorruptObject for an unreadable value, else unchanged. */
export function asCorruptObject(settings: UnsafeDeletionSettings, key: string, err: unknown): unknown {
  const detail = readErrorDetail(err);
  return detail === undefined ? err : new StorageError('CorruptObject', key, storageErrorText(keyUnderPrefix(settings, key), detail), { cause: err });
}

/** `err` as a guaranteed update reports it with the gate on (kube's corrupt-object error alone). */
export function asUnreadableForUpdate(key: string, err: unknown): unknown {
  const detail = readErrorDetail(err);
  if (detail === undefined) return err;
  return err instanceof TransformError ? new StorageError('Internal', key, detail, { cause: err }) : new StorageError('Corrupt', key, detail, { cause: err });
}

/** Collects a list's unreadable values (see the file comment); `error()` is undefined when there were none. */
export class ListReadErrors {
  private readonly causes: CorruptObjectCause[] = [];
  private truncated = false;

  /** Records `err` of `key` and returns true when it is a read error (skip the value), false for any other error. */
  add(key: string, err: unknown): boolean {
    const detail = readErrorDetail(err);
    if (detail === undefined) return false;
    if (this.causes.length >= MAX_LIST_READ_ERRORS) this.truncated = true;
    else this.causes.push({ key, message: storageErrorText(key, detail) });
    return true;
  }

  get full(): boolean {
    return this.truncated;
  }

  error(listKey: string): StorageError | undefined {
    if (this.causes.length === 0) return undefined;
    const text = `unable to transform or decode ${this.causes.length} objects: {\n${this.causes.map((c) => `\t${c.message}\n`).join('')}}`;
    return new StorageError('StoreReadError', listKey, text, { causes: [...this.causes], truncated: this.truncated });
  }
}

/**
 * Deletes `key` whatever its value holds, without decrypting or decoding it (no preconditions,
 * no checks): txn "mod_revision == read then delete", read again and repeated on conflict.
 * Returns the deleting revision; KeyNotFound when the key is absent.
 */
export async function deleteWithoutDecoding(kv: EtcdKV, key: string): Promise<number> {
  let found = (await readKey(kv, key)).kv;
  for (;;) {
    if (found === undefined) throw keyNotFound(key);
    const result = await conditionalWrite(kv, key, revisionOf(found.mod_revision), { delete: true });
    if (result.succeeded) return result.revision;
    found = result.current;
  }
}
