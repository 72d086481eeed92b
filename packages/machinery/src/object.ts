/**
 * The shapes every Kubernetes object shares. Objects travel through kapi as plain JSON
 * values; these types name the parts generic code reads. Objects shared between readers
 * (cached objects, watch events) are read-only: copy before mutating.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Any API object: `apiVersion`, `kind`, `metadata`, and type-specific fields. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value (objects from storage are JSON-only). Plain objects and arrays
 * are copied here, which is several times faster than structuredClone (a write copies its
 * object a few times); anything else (a Date, a Buffer, a Map) goes through structuredClone,
 * as before. Like structuredClone, own enumerable string keys are copied, array holes stay
 * holes, and a `__proto__` key stays a plain property. Shared sub-objects are copied twice
 * (JSON values have neither those nor cycles).
 */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    // Functions and symbols: structuredClone's DataCloneError, as before.
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      if (i in array) out[i] = copyValue(array[i]);
    }
    return out;
  }
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const copied = copyValue(source[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: copied, writable: true, enumerable: true, configurable: true });
    else out[key] = copied;
  }
  return out;
}
