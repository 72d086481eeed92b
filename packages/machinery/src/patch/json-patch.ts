/**
 * JSON patch (RFC 6902) with kube's limit on applying it: at most 3 MiB of values copied by
 * `copy` operations in one patch (kube's JSONPatchMaxCopyBytes), so a patch cannot blow a
 * small object up exponentially. (The number of operations is bounded where the body is
 * decoded, in the API server.)
 */
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { isPlainObject } from '../object.js';
import { StatusError, badRequest } from '../status.js';

/** The 422 kube answers when a patch cannot be applied (NewGenericServerResponse drops the detail). */
export function patchNotApplicable(): StatusError {
  return new StatusError({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} });
}

export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * Checks that `patch` is a list of well-formed operations. Throws 400 BadRequest for a body
 * that is not an operation list.
 */
export function decodeJsonPatch(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${patch === null ? 'null' : typeof patch} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (!isPlainObject(op)) throw badRequest('json: cannot unmarshal into jsonpatch.Operation: operation is not an object');
    if (typeof op['op'] !== 'string' || !OPS.has(op['op'])) throw badRequest(`Unexpected kind: ${String(op['op'])}`);
    if (typeof op['path'] !== 'string') throw badRequest(`operation missing path field`);
    if ((op['op'] === 'move' || op['op'] === 'copy') && typeof op['from'] !== 'string') throw badRequest(`operation missing from field`);
    if ((op['op'] === 'add' || op['op'] === 'replace' || op['op'] === 'test') && !('value' in op)) {
      throw badRequest(`operation missing value field`);
    }
  }
  return patch as Operation[];
}

/**
 * Applies the operations to a private copy of `document` and returns it. Any operation
 * that cannot be applied (a failed `test`, a missing path, too many copied bytes) makes the
 * whole patch fail with kube's generic 422.
 */
export function applyJsonPatch(document: unknown, operations: readonly Operation[]): unknown {
  let doc: unknown = structuredClone(document);
  let copied = 0;
  try {
    for (const operation of operations) {
      if (operation.op === 'copy') {
        const value = fastJsonPatch.getValueByPointer(doc, operation.from);
        copied += Buffer.byteLength(JSON.stringify(value) ?? '');
        if (copied > MAX_JSON_PATCH_COPY_BYTES) throw patchNotApplicable();
      }
      doc = fastJsonPatch.applyOperation(doc, operation, true, true, true).newDocument;
    }
  } catch (err) {
    if (err instanceof fastJsonPatch.JsonPatchError || err instanceof TypeError) throw patchNotApplicable();
    throw err;
  }
  return doc;
}
