/**
 * The typed-decoding step of every write. kube decodes a request body (for a patch: the
 * patched object) into the kind's Go type before anything else, and refuses a value the
 * type cannot hold — an int32 beyond 2^31, 1.5 in an integer, an unparsable timestamp or
 * quantity — so nothing stored can fail to decode in a Go client (typed-decode.ts in
 * machinery has the rules). The caller turns the error text into the write's failure
 * (decode-failures.ts).
 *
 * Custom resources are unstructured in kube: only a number beyond the double range fails
 * anywhere in them, and their metadata decodes as ObjectMeta after a round trip through a
 * Go map — so its first error follows the sorted keys and its paths start below metadata
 * (`json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.generation of type int64`).
 * The rest of a custom resource is checked by schema validation (422).
 */
import type { JSONSchemaProps, KubeObject, SchemaDefinitions } from '@kapi/machinery';
import { nonFiniteNumberError, typedDecodeError } from '@kapi/machinery';

export interface TypedBody {
  /** `typed` (built-in kinds, the default) or `unstructured` (custom resources). */
  readonly bodyDecoding?: 'typed' | 'unstructured' | undefined;
  readonly kind: string;
  /** The served version's schema. */
  readonly schema: JSONSchemaProps;
  /** ObjectMeta's schema. */
  readonly metadataSchema: JSONSchemaProps;
  readonly definitions: SchemaDefinitions;
}

/** Go's decoder error for `obj` (in the served version), or undefined when it decodes. */
export function typedBodyError(target: TypedBody, obj: KubeObject): string | undefined {
  if (target.bodyDecoding === 'unstructured') {
    return (
      nonFiniteNumberError(obj) ??
      typedDecodeError(obj.metadata, target.metadataSchema, { definitions: target.definitions, rootStruct: 'ObjectMeta', sortedKeys: true })
    );
  }
  return typedDecodeError(obj, target.schema, { definitions: target.definitions, rootStruct: target.kind });
}
