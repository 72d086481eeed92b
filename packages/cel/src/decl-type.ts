/**
 * Declared CEL types, kube's way (k8s.io/apiserver/pkg/cel/types.go): a CEL type plus what
 * the cost estimator needs to know about the values it may hold — the most elements (string
 * length, list items, map entries) and the smallest serialized size of one value.
 */

export type DeclKind =
  | 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'duration' | 'timestamp'
  | 'null' | 'dyn' | 'list' | 'map' | 'object' | 'optional' | 'opaque';

export interface DeclField {
  /** The property name as CEL code writes it (escaped, e.g. `foo__dash__bar`). */
  readonly name: string;
  /** The property name in the JSON object. */
  readonly jsonName: string;
  readonly type: DeclType;
  readonly required: boolean;
}

export interface DeclType {
  readonly kind: DeclKind;
  /** list: the item type; map: the value type. */
  readonly elem?: DeclType;
  /** map: the key type (always string for schemas). */
  readonly key?: DeclType;
  /** object: the fields by escaped name. */
  readonly fields?: ReadonlyMap<string, DeclField>;
  /** Most elements a value may have: string bytes, list items, map entries (0 when not sized). */
  readonly maxElements: number;
  /** Smallest size the value serializes to in JSON. */
  readonly minSerializedSize: number;
  /** list: kube's `x-kubernetes-list-type` (set and map lists compare without order). */
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  /** string: the schema's format, for the format-aware value conversion. */
  readonly format?: string;
  /** object: the root of a resource or an embedded resource (apiVersion, kind, metadata). */
  readonly resourceRoot?: boolean;
  /** opaque: the library type's CEL name (e.g. kubernetes.authorization.Authorizer). */
  readonly typeName?: string;
}

// Minimum serialized sizes kube uses (k8s.io/apiserver/pkg/cel/types.go).
export const MIN_STRING_SIZE = 2; // ""
export const MIN_BOOL_SIZE = 4; // true
export const MIN_NUMBER_SIZE = 1; // 0
export const MIN_DURATION_SIZE_JSON = 4; // "0s"
export const JSON_DATE_SIZE = 12; // "2006-01-02"
export const MIN_DATETIME_SIZE_JSON = 22; // "2006-01-02T15:04:05Z"
export const MAX_DURATION_SIZE_JSON = 32;
export const MAX_DATETIME_SIZE_JSON = 37;

function simple(kind: DeclKind, minSerializedSize: number, maxElements = 0): DeclType {
  return Object.freeze({ kind, maxElements, minSerializedSize });
}

export const BoolType = simple('bool', MIN_BOOL_SIZE);
export const IntType = simple('int', MIN_NUMBER_SIZE);
export const UintType = simple('uint', MIN_NUMBER_SIZE);
export const DoubleType = simple('double', MIN_NUMBER_SIZE);
export const StringType = simple('string', MIN_STRING_SIZE);
export const BytesType = simple('bytes', MIN_STRING_SIZE);
export const DurationType = simple('duration', MIN_DURATION_SIZE_JSON);
export const TimestampType = simple('timestamp', JSON_DATE_SIZE);
export const DynType = simple('dyn', 1);
export const NullType = simple('null', 4);

export function stringType(maxElements: number, format?: string): DeclType {
  return Object.freeze({ kind: 'string', maxElements, minSerializedSize: MIN_STRING_SIZE, ...(format ? { format } : {}) });
}

export function sizedType(kind: DeclKind, minSerializedSize: number, maxElements: number): DeclType {
  return simple(kind, minSerializedSize, maxElements);
}

export function listType(elem: DeclType, maxElements: number, listType?: 'atomic' | 'set' | 'map', listMapKeys?: readonly string[]): DeclType {
  return Object.freeze({
    kind: 'list', elem, maxElements, minSerializedSize: 2,
    ...(listType ? { listType } : {}), ...(listMapKeys ? { listMapKeys } : {}),
  });
}

export function mapType(key: DeclType, elem: DeclType, maxElements: number): DeclType {
  return Object.freeze({ kind: 'map', key, elem, maxElements, minSerializedSize: 2 });
}

export function objectType(fields: ReadonlyMap<string, DeclField>, minSerializedSize = 2, resourceRoot = false): DeclType {
  return Object.freeze({ kind: 'object', fields, maxElements: 0, minSerializedSize, ...(resourceRoot ? { resourceRoot } : {}) });
}

const optionals = new WeakMap<DeclType, DeclType>();

/** optional<T>, one object per T (environments are cached on type identity). */
export function optionalType(elem: DeclType): DeclType {
  let t = optionals.get(elem);
  if (!t) {
    t = Object.freeze({ kind: 'optional', elem, maxElements: elem.maxElements, minSerializedSize: elem.minSerializedSize });
    optionals.set(elem, t);
  }
  return t;
}

function opaque(typeName: string): DeclType {
  return Object.freeze({ kind: 'opaque', typeName, maxElements: 0, minSerializedSize: 1 });
}

/** VAP's `authorizer` variable; bind a CelAuthorizer (library/authz.ts) to it. */
export const AuthorizerType = opaque('kubernetes.authorization.Authorizer');
/** VAP's `authorizer.requestResource`-style values; bind a ResourceCheck to it. */
export const ResourceCheckType = opaque('kubernetes.authorization.ResourceCheck');
