/**
 * Unknown and duplicate fields in a request body, handled per `fieldValidation` (kube's
 * strict decoding): unknown fields are always pruned; duplicates (found by the HTTP layer in
 * the body text) have already been resolved last-wins. Strict turns them into one error
 * listing all of them; Warn (the default) reports each as a warning (`unknown field "a"`,
 * `duplicate field "b"`); Ignore drops them silently.
 *
 * The Strict error depends on the write (decode-failures.ts): POST/PUT answer 400
 * `strict decoding error: duplicate field "b", unknown field "a"`; a JSON, merge or
 * strategic merge patch answers kube's 422 against the patched object
 * (` "" is invalid: patch: Invalid value: "<patched>": strict decoding error: ...`).
 */
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { badRequest, pruneUnknownFields, type StatusError } from '@kapi/machinery';
import type { SchemaDefinitions } from '@kapi/machinery';
import type { FieldValidation } from './rest.js';

export interface UnknownFieldOptions {
  fieldValidation?: FieldValidation | undefined;
  warn?: ((message: string) => void) | undefined;
  duplicateFields?: readonly string[] | undefined;
}

/** `duplicate field "<path>"` for each duplicate path (kube's strict decoding text). */
export function duplicateFieldMessages(paths: readonly string[] | undefined): string[] {
  return (paths ?? []).map((path) => `duplicate field ${JSON.stringify(path)}`);
}

/** Builds the Strict failure from `strict decoding error: ...`. */
export type StrictErrorFactory = (detail: string) => StatusError;

export const strictBodyError: StrictErrorFactory = (detail) => badRequest(detail);

/** The unknown fields of `obj` (pruned in place): metadata first, so paths come roughly in document order. */
export function pruneUnknown(obj: KubeObject, schemas: { object: JSONSchemaProps; metadata: JSONSchemaProps; definitions: SchemaDefinitions }): string[] {
  return [
    ...pruneUnknownFields(obj.metadata, schemas.metadata, { definitions: schemas.definitions, root: false, path: 'metadata' }),
    ...pruneUnknownFields(obj, schemas.object, { definitions: schemas.definitions }),
  ];
}

/**
 * Prunes, in place, the fields of `obj` that `schema` (and `metadataSchema` for `metadata`)
 * does not describe, then applies the fieldValidation directive to them and to the body's
 * own problems (default: the duplicate fields of `options`). Throws the factory's error for
 * Strict (default: 400).
 */
export function handleUnknownFields(
  obj: KubeObject,
  schemas: { object: JSONSchemaProps; metadata: JSONSchemaProps; definitions: SchemaDefinitions },
  options: UnknownFieldOptions,
  strictError: StrictErrorFactory = strictBodyError,
  bodyProblems: readonly string[] = duplicateFieldMessages(options.duplicateFields),
): void {
  const unknown = pruneUnknown(obj, schemas);
  reportStrictProblems([...bodyProblems, ...unknown.map((path) => `unknown field ${JSON.stringify(path)}`)], options, strictError);
}

/** Applies the fieldValidation directive to strict-decoding problems (`unknown field "x"`, ...). */
export function reportStrictProblems(messages: readonly string[], options: UnknownFieldOptions, strictError: StrictErrorFactory = strictBodyError): void {
  if (messages.length === 0) return;
  switch (options.fieldValidation ?? 'Warn') {
    case 'Strict':
      throw strictError(`strict decoding error: ${messages.join(', ')}`);
    case 'Warn':
      for (const message of messages) options.warn?.(message);
      return;
    case 'Ignore':
      return;
  }
}
