/**
 * PATCH on an item (or a subresource), over the Patcher role: the media type picks the
 * patch type (`; charset=...` ignored; anything else 415 listing the accepted types), the
 * query gives PatchOptions (422 for apply without fieldManager, force on a non-apply patch,
 * bad dryRun/fieldValidation), the body is decoded for its type (400), and the registry
 * applies it. 200 with the result, 201 when an apply created the object.
 */
import { yieldIfBusy } from '@kapi/machinery';
import type { PatchType } from '@kapi/registry';
import { PATCH_TYPES, readPatchBody } from '../body/patch-body.js';
import { baseMediaType, routeUnsupportedMediaType, unsupportedBody } from '../http/negotiation.js';
import { writeObject } from '../http/respond.js';
import { parseWriteOptions } from './options.js';
import { readOnlyResult } from './write.js';
import type { RequestScope } from './scope.js';

/** The patch types a resource accepts (no strategic merge where its definition refuses it, as for custom resources). */
export function acceptedPatchTypes(scope: Pick<RequestScope, 'resource'>): readonly PatchType[] {
  return scope.resource.definition.strategicMergePatch === false ? PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json') : PATCH_TYPES;
}

export async function handlePatch(scope: RequestScope): Promise<void> {
  const accepted = acceptedPatchTypes(scope);
  const type = baseMediaType(scope.req.headers['content-type']) as PatchType;
  // A built-in kind's patch route is go-restful's, which refuses other types with its own text.
  if (!accepted.includes(type)) throw scope.resource.definition.bodyDecoding !== 'unstructured' ? routeUnsupportedMediaType() : unsupportedBody(accepted);
  const options = parseWriteOptions(scope.query, 'PatchOptions', (m) => scope.warnings.push(m), type);
  const { body, duplicateFields, duplicateKeyLines } = await readPatchBody(scope.req, type, options.fieldValidation);
  const result = await scope.resource.patcher!.patch(scope.context, scope.info.name, { type, body }, { ...options, duplicateFields, duplicateKeyLines, ...readOnlyResult(scope) });
  await yieldIfBusy();

  writeObject(scope.res, result.created ? 201 : 200, result.object, scope.output, { warnings: scope.warnings });
}
