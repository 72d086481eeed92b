/**
 * Validation ratcheting of schema errors (kube 1.32's CRDValidationRatcheting, on by
 * default): on an update through the main resource, an OpenAPI schema error is dropped when
 * the value it is about — or any value above it that correlates with the old object — is
 * unchanged, so that a CRD made stricter does not block unrelated updates of objects
 * written before. Values correlate through object fields, map entries and the items of
 * map-type lists (correlated-object.ts); `apiVersion` and `kind` never ratchet. kube drops
 * such errors silently.
 */
import type { FieldError, JSONSchemaProps } from '@kapi/machinery';
import { CorrelatedObject } from './correlated-object.js';

/** A field path (`spec.tags[1]`, `spec.labels[a.b]`) as its field names, indexes and keys. */
function segments(path: string): string[] {
  const out: string[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

/** The path of the value whose validation raised `err`: a missing required field is its object's. */
function raisedAt(err: FieldError): string {
  if (err.type !== 'FieldValueRequired') return err.field;
  const cut = Math.max(err.field.lastIndexOf('.'), err.field.lastIndexOf('['));
  return cut < 0 ? '' : err.field.slice(0, cut);
}

/** Whether the value at `path`, or a correlated value above it, is unchanged. */
function unchanged(root: CorrelatedObject, path: string): boolean {
  let node: CorrelatedObject | undefined = root;
  if (node.deepEqual()) return true;
  for (const [i, segment] of segments(path).entries()) {
    if (i === 0 && (segment === 'apiVersion' || segment === 'kind')) return false;
    node = Array.isArray(node.value) ? node.index(Number(segment)) : node.key(segment);
    if (node === undefined) return false;
    if (node.deepEqual()) return true;
  }
  return false;
}

/** The schema errors of an update that kube reports: those about changed values. */
export function ratchetSchemaErrors(errors: readonly FieldError[], obj: unknown, old: unknown, schema: JSONSchemaProps | undefined): FieldError[] {
  if (errors.length === 0 || schema === undefined) return [...errors];
  const root = new CorrelatedObject(obj, old, schema);
  return errors.filter((err) => !unchanged(root, raisedAt(err)));
}
