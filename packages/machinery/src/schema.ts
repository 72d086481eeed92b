/**
 * OpenAPI v3 structural schemas with the Kubernetes extensions. Every resource's shape is
 * described by one of these (DESIGN §2); validation, pruning, OpenAPI documents and merge
 * semantics are all derived from it.
 */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  /** Reference to a shared definition by name in the OpenAPI components (e.g. `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`). */
  $ref?: string;
  allOf?: JSONSchemaProps[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  /**
   * kapi-only, never published: the Go type of the node where its definition name does not
   * give it (named scalar types such as `types.UID`, structs written inline), for the typed
   * decoder's messages (typed-decode.ts).
   */
  'x-kapi-go-type'?: string;
  /**
   * kapi-only, never published: the definition the node decodes as in typed decoding, where
   * its published schema stays open (a CRD's openAPIV3Schema decodes as JSONSchemaProps).
   */
  'x-kapi-decode-as'?: string;
}
