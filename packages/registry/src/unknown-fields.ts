/**
 * Unknown and duplicate fields in a request body, handled per `fieldValidation` (kube's
 * strict decoding): unknown fields are always pruned; duplicates (found by the HTTP layer in
 * the body text) have already been resolved last-wins. Strict turns them into one error
 * listing all of them; Warn (the default) reports each as a warning (`unknown field "a"`,
 * `duplicate field "b"`); Ignore drops them silently.
 *
 * YAML bodies report duplicate keys as go-yaml's lines instead (`line 7: key "a" already set
 * in map`): Strict as one `yaml: unmarshal errors:` problem ahead of the others, Warn as a
 * warning per line.
 *
 * The Strict error depends on the write (decode-failures.ts): POST/PUT answer 400 `<Kind> in
 * version "<v>" cannot be handled as a <Kind>: strict decoding error: duplicate field "b",
 * unknown field "a"`; a JSON, merge or
 * strategic merge patch answers kube's 422 against the patched object
 * (` "" is invalid: patch: Invalid value: "<patched>": strict decoding error: ...`).
 */
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { pruneUnknownFields, type StatusError } from '@kapi/machinery';
import type { SchemaDefinitions } from '@kapi/machinery';
import type { FieldValidation } from './rest.js';

export interface UnknownFieldOptions {
  fieldValidation?: FieldValidation | undefined;
  warn?: ((message: string) => void) | undefined;
  duplicateFields?: readonly string[] | undefined;
  duplicateKeyLines?: readonly string[] | undefined;
}

/** `duplicate field "<path>"` for each duplicate path (kube's strict decoding text). */
export function duplicateFieldMessages(paths: readonly string[] | undefined): string[] {
  return (paths ?? []).map((path) => `duplicate field ${JSON.stringify(path)}`);
}

/** Builds the Strict failure from `strict decoding error: ...`. */
export type StrictErrorFactory = (detail: string) => StatusError;

/** go-yaml's strict decoding error for duplicate keys, from its lines. */
export function yamlUnmarshalErrors(lines: readonly string[]): string {
  return `yaml: unmarshal errors:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

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
 * own problems (default: the duplicate fields of `options`) and duplicate YAML keys. Throws
 * the factory's error for Strict.
 */
export function handleUnknownFields(
  obj: KubeObject,
  schemas: { object: JSONSchemaProps; metadata: JSONSchemaProps; definitions: SchemaDefinitions },
  options: UnknownFieldOptions,
  strictError: StrictErrorFactory,
  bodyProblems: readonly string[] = duplicateFieldMessages(options.duplicateFields),
): void {
  const unknown = pruneUnknown(obj, schemas);
  reportStrictProblems([...bodyProblems, ...unknown.map((path) => `unknown field ${JSON.stringify(path)}`)], options, strictError, options.duplicateKeyLines);
}

/**
 * Applies the fieldValidation directive to strict-decoding problems (`unknown field "x"`, ...)
 * and to go-yaml's duplicate-key lines, which come first.
 */
export function reportStrictProblems(
  messages: readonly string[],
  options: UnknownFieldOptions,
  strictError: StrictErrorFactory,
  yamlLines: readonly string[] = [],
): void {
  if (messages.length === 0 && yamlLines.length === 0) return;
  switch (options.fieldValidation ?? 'Warn') {
    case 'Strict': {
      const problems = yamlLines.length > 0 ? [yamlUnmarshalErrors(yamlLines), ...messages] : messages;
      throw strictError(`strict decoding error: ${problems.join(', ')}`);
    }
    case 'Warn':
      for (const message of [...yamlLines, ...messages]) options.warn?.(message);
      return;
    case 'Ignore':
      return;
  }
}
