/**
 * PATCH bodies by patch type: the JSON types (json-patch, merge, strategic merge) decode on
 * the event loop with their duplicate keys as paths; apply configurations as apply-body.ts
 * says. A JSON patch may hold at most MAX_JSON_PATCH_OPERATIONS operations (413).
 */
import type { IncomingMessage } from 'node:http';
import { badRequest, requestEntityTooLarge, yieldIfBusy } from '@kapi/machinery';
import type { FieldValidation, PatchType } from '@kapi/registry';
import { decodeApplyBody } from './apply-body.js';
import { BodyDecodeError } from './decode-error.js';
import { beforeDecoding, decodeJson, jsonDuplicateFields } from './json-body.js';
import { MAX_JSON_PATCH_OPERATIONS } from './limits.js';
import { readBody } from './read-body.js';

/** Every patch type kapi implements, in kube's order. */
export const PATCH_TYPES: readonly PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

export interface DecodedPatchBody {
  readonly body: unknown;
  /** Paths of duplicate keys (JSON patch types). */
  readonly duplicateFields: readonly string[];
  /** go-yaml's lines for duplicate keys (apply). */
  readonly duplicateKeyLines: readonly string[];
}

/** kube's message for a JSON patch body that does not decode (strategic merge passes the decoder's text as it is). */
function jsonPatchError(type: PatchType, detail: string): Error {
  return badRequest(type === 'application/strategic-merge-patch+json' ? detail : `error decoding patch: ${detail}`);
}

/**
 * Decodes `bytes` as the body of a `type` patch; duplicate keys are listed unless
 * fieldValidation is Ignore. Throws 400 for a body that does not decode, 413 for a JSON patch
 * of too many operations or a YAML body too costly to decode.
 */
export async function decodePatchBody(type: PatchType, bytes: Buffer, fieldValidation: FieldValidation | undefined): Promise<DecodedPatchBody> {
  const strict = fieldValidation !== 'Ignore';
  if (type === 'application/apply-patch+yaml') {
    try {
      const { body, duplicateKeyLines } = await decodeApplyBody(bytes, strict);
      return { body, duplicateFields: [], duplicateKeyLines };
    } catch (err) {
      if (err instanceof BodyDecodeError) throw badRequest(`error decoding YAML: error converting YAML to JSON: ${err.detail}`);
      throw err;
    }
  }
  await beforeDecoding(bytes);
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = decodeJson(text);
  } catch (err) {
    if (err instanceof BodyDecodeError) throw jsonPatchError(type, err.detail);
    throw err;
  }
  if (type === 'application/json-patch+json' && Array.isArray(body) && body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`);
  }
  if (!strict) return { body, duplicateFields: [], duplicateKeyLines: [] };
  await yieldIfBusy();
  return { body, duplicateFields: jsonDuplicateFields(text), duplicateKeyLines: [] };
}

/** Reads and decodes the body of a `type` patch; see decodePatchBody. */
export async function readPatchBody(req: IncomingMessage, type: PatchType, fieldValidation: FieldValidation | undefined): Promise<DecodedPatchBody> {
  return decodePatchBody(type, await readBody(req), fieldValidation);
}
