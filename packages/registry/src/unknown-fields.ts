/**
 * Unknown fields in a request body, handled per `fieldValidation` (kube's strict decoding):
 * the fields are always pruned; Strict turns them into a 400
 * `strict decoding error: unknown field "a", unknown field "b"`; Warn (the default) reports
 * each as a warning `unknown field "a"`; Ignore drops them silently.
 */
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { badRequest, pruneUnknownFields } from '@kapi/machinery';
import type { SchemaDefinitions } from '@kapi/machinery';
import type { FieldValidation } from './rest.js';

export interface UnknownFieldOptions {
  fieldValidation?: FieldValidation | undefined;
  warn?: ((message: string) => void) | undefined;
}

/**
 * Prunes, in place, the fields of `obj` that `schema` (and `metadataSchema` for
 * `metadata`) does not describe, then applies the fieldValidation directive. Metadata is
 * checked first so fields are reported roughly in document order. Throws 400 for Strict.
 */
export function handleUnknownFields(
  obj: KubeObject,
  schemas: { object: JSONSchemaProps; metadata: JSONSchemaProps; definitions: SchemaDefinitions },
  options: UnknownFieldOptions,
): void {
  const unknown = [
    ...pruneUnknownFields(obj.metadata, schemas.metadata, { definitions: schemas.definitions, root: false, path: 'metadata' }),
    ...pruneUnknownFields(obj, schemas.object, { definitions: schemas.definitions }),
  ];
  if (unknown.length === 0) return;
  const messages = unknown.map((path) => `unknown field ${JSON.stringify(path)}`);
  switch (options.fieldValidation ?? 'Warn') {
    case 'Strict':
      throw badRequest(`strict decoding error: ${messages.join(', ')}`);
    case 'Warn':
      for (const message of messages) options.warn?.(message);
      return;
    case 'Ignore':
      return;
  }
}
