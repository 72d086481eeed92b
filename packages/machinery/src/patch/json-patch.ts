/**
 * JSON patch (RFC 6902) with kube's limits: at most 10000 operations (413), and at most
 * 3 MiB of values copied by `copy` operations in one patch (kube's JSONPatchMaxCopyBytes),
 * so a patch cannot blow a small object up exponentially.
 */
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { isPlainObject } from '../object.js';
import { StatusError, badRequest, requestEntityTooLarge } from '../status.js';

/** The 422 kube answers when a patch cannot be applied (NewGenericServerResponse drops the detail). */
export function patchNotApplicable(): StatusError {
  return new StatusError({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} });
}

export const MAX_JSON_PATCH_OPERATIONS = 10_000;
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * Checks that `patch` is a list of well-formed operations. Throws 400 BadRequest for a body
 * that is not an operation list, 413 for more than 10000 operations.
 */
export function decodeJsonPatch(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${patch === null ? 'null' : typeof patch} into Go value of type jsonpatch.Patch`);
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
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
