/**
 * JSON patch (RFC 6902) with kube's limit on applying it: at most 3 MiB of values copied by
 * `copy` operations in one patch (kube's JSONPatchMaxCopyBytes), so a patch cannot blow a
 * small object up exponentially. (The number of operations is bounded where the body is
 * decoded, in the API server.)
 */
import fastJsonPatch from 'fast-json-patch';
import type { Operation, Validator } from 'fast-json-patch';
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
 * that is not an operation list, kube's generic 422 for an unknown operation.
 */
export function decodeJsonPatch(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${patch === null ? 'null' : typeof patch} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (!isPlainObject(op)) throw badRequest('json: cannot unmarshal into jsonpatch.Operation: operation is not an object');
    // kube decodes the operations without checking them; applying an unknown one fails, and
    // every apply failure is its generic 422 (kube-apiserver 1.32).
    if (typeof op['op'] !== 'string' || !OPS.has(op['op'])) {
      throw new StatusError({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} });
    }
    if (typeof op['path'] !== 'string') throw badRequest(`operation missing path field`);
    if ((op['op'] === 'move' || op['op'] === 'copy') && typeof op['from'] !== 'string') throw badRequest(`operation missing from field`);
    if ((op['op'] === 'add' || op['op'] === 'replace' || op['op'] === 'test') && !('value' in op)) {
      throw badRequest(`operation missing value field`);
    }
  }
  return patch as Operation[];
}

/** Whether the JSON pointer `pointer` names a value in `document`. */
function resolves(document: unknown, pointer: string): boolean {
  if (pointer === '') return true;
  if (!pointer.startsWith('/')) return false;
  let node = document;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= node.length) return false;
      node = node[Number(key)];
    } else if (isPlainObject(node) && Object.hasOwn(node, key)) {
      node = node[key];
    } else {
      return false;
    }
  }
  return true;
}

/**
 * fast-json-patch's validation, except that `move` and `copy` look their `from` up in place:
 * the library checks it by applying a `_get` to a deep copy of the whole document, so 10000
 * moves over a 1 MiB object copied 10 GB (minutes on the event loop).
 */
const validateOperation: Validator<unknown> = (operation, index, document, existingPath) => {
  if (operation.op !== 'move' && operation.op !== 'copy') {
    fastJsonPatch.validator(operation, index, document, existingPath);
    return;
  }
  fastJsonPatch.validator(operation, index);
  if (!resolves(document, operation.from)) {
    throw new fastJsonPatch.JsonPatchError('Cannot perform the operation from a path that does not exist', 'OPERATION_FROM_UNRESOLVABLE', index, operation, document);
  }
};

/**
 * Whether kube's JSON patch library (evanphx/json-patch v4) can apply `operation` at all as
 * far as the root is concerned: it names the whole document ("") only in `test` and in a
 * `replace` whose value is an object or array; an `add`, `remove`, `move` or `copy` with ""
 * as its path or from finds no parent and fails. (Moving "" below itself would otherwise
 * make the document contain itself.)
 */
function rootUseAllowed(operation: Operation): boolean {
  switch (operation.op) {
    case 'test':
      return true;
    case 'replace':
      return operation.path !== '' || isPlainObject(operation.value) || Array.isArray(operation.value);
    case 'move':
    case 'copy':
      return operation.path !== '' && operation.from !== '';
    default:
      return operation.path !== '';
  }
}

/**
 * Applies the operations to a private copy of `document` and returns it. Any operation
 * that cannot be applied (a failed `test`, a missing path, too many copied bytes, a root
 * operation kube's library refuses) makes the whole patch fail with kube's generic 422.
 */
export function applyJsonPatch(document: unknown, operations: readonly Operation[]): unknown {
  let doc: unknown = structuredClone(document);
  let copied = 0;
  try {
    for (const operation of operations) {
      if (!rootUseAllowed(operation)) throw patchNotApplicable();
      if (operation.op === 'copy') {
        const value = fastJsonPatch.getValueByPointer(doc, operation.from);
        copied += Buffer.byteLength(JSON.stringify(value) ?? '');
        if (copied > MAX_JSON_PATCH_COPY_BYTES) throw patchNotApplicable();
      }
      doc = fastJsonPatch.applyOperation(doc, operation, validateOperation, true, true).newDocument;
    }
  } catch (err) {
    if (err instanceof fastJsonPatch.JsonPatchError || err instanceof TypeError) throw patchNotApplicable();
    throw err;
  }
  return doc;
}
