/**
 * PATCH, built on the Getter and Updater roles: read the current object, apply the patch,
 * write it back with the resourceVersion that was read. json-patch and merge-patch are
 * implemented; strategic merge and apply answer 415 until a later issue adds them.
 */
import type { KubeObject } from '@kapi/machinery';
import { applyJsonPatch, applyMergePatch, badRequest, decodeJsonPatch, isConflict, isPlainObject } from '@kapi/machinery';
import { decodeBody, readBody } from '../http/body.js';
import { baseMediaType, unsupportedBody } from '../http/negotiation.js';
import { writeObject } from '../http/respond.js';
import { SUPPORTED_PATCH_TYPES } from '../openapi/document.js';
import { parseWriteOptions } from './options.js';
import type { RequestScope } from './scope.js';

/** How often a patch without its own resourceVersion is re-applied after a write conflict. */
const MAX_CONFLICT_RETRIES = 10;

type PatchFunction = (current: KubeObject) => unknown;

function resourceVersionOf(value: unknown): unknown {
  return isPlainObject(value) && isPlainObject(value['metadata']) ? value['metadata']['resourceVersion'] : undefined;
}

/** Decodes the body for its patch type into a function from the current object to the patched one. Throws 415/413/400. */
function patchFunction(contentType: string | undefined, bytes: Buffer): PatchFunction {
  const type = baseMediaType(contentType);
  if (type === 'application/json-patch+json') {
    const operations = decodeJsonPatch(decodeBody(bytes, 'json'));
    return (current) => applyJsonPatch(current, operations);
  }
  if (type === 'application/merge-patch+json') {
    const patch = decodeBody(bytes, 'json');
    return (current) => applyMergePatch(current, patch);
  }
  throw unsupportedBody(SUPPORTED_PATCH_TYPES);
}

/**
 * PATCH on an item. Reads the current object (404 when absent), applies the patch and
 * updates with the resourceVersion read. When the patch leaves metadata.resourceVersion as
 * it was, a 409 from a concurrent write is retried on a fresh read (up to 10 times); a patch
 * that sets its own resourceVersion is an optimistic-lock precondition and its 409 is
 * returned. A patched document that is not an object is 400. dryRun writes nothing.
 */
export async function handlePatch(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'PatchOptions', (m) => scope.warnings.push(m));
  const contentType = scope.req.headers['content-type'];
  const bytes = await readBody(scope.req);
  const apply = patchFunction(contentType, bytes);
  const { getter, updater } = scope.resource;
  for (let attempt = 0; ; attempt++) {
    const current = await getter!.get(scope.context, scope.info.name, {});
    const patched = apply(current);
    if (!isPlainObject(patched)) {
      throw badRequest(`json: cannot unmarshal ${Array.isArray(patched) ? 'array' : patched === null ? 'null' : typeof patched} into Go value of type map[string]interface {}`);
    }
    const ownVersion = resourceVersionOf(patched) !== current.metadata.resourceVersion;
    try {
      const result = await updater!.update(scope.context, scope.info.name, patched, options);
      writeObject(scope.res, 200, result.object, scope.output, { warnings: scope.warnings });
      return;
    } catch (err) {
      if (ownVersion || !isConflict(err) || attempt >= MAX_CONFLICT_RETRIES) throw err;
    }
  }
}
