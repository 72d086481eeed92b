/**
 * The representation of a resource response: the negotiated encoding and, when the client
 * asked for one, the conversion to a Table or to PartialObjectMetadata[List] (kube's
 * transformResponseObject). Status objects are never converted.
 */
import type { IncludeObject, KubeList, KubeObject, ListMeta, PrinterColumn } from '@kapi/machinery';
import { badRequest, buildTable, defaultColumns, fieldInvalid, formatFieldError, hasProtobuf, notAcceptable, partialObjectMetadata } from '@kapi/machinery';
import type { ResourceDefinition } from '@kapi/registry';
import { negotiateResourceMedia, type ConversionTarget, type Encoding, type ResourceCapabilities } from './negotiation.js';

/** Converts response objects as the client asked (`as=Table`, `as=PartialObjectMetadata[List]`). */
export interface ResponseTransform {
  readonly target: ConversionTarget;
  /** A single object (GET, and the object of a write). */
  object(obj: KubeObject): unknown;
  /** A list (LIST, deletecollection). */
  list(list: KubeList): unknown;
  /**
   * A converter for the objects of one watch stream (stateful: a Table has its column
   * definitions on the first event only). Throws 406 for a conversion that has no per-object form.
   */
  watch(): (obj: KubeObject) => unknown;
}

export interface ResourceOutput {
  readonly encoding: Encoding;
  readonly transform?: ResponseTransform;
}

const INCLUDE_OBJECT_VALUES: readonly IncludeObject[] = ['None', 'Metadata', 'Object'];

/** `?includeObject=`: Metadata when absent or empty; 400 (kube's TableOptions validation) for anything else. */
export function parseIncludeObject(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? '';
  if (value === '') return 'Metadata';
  if ((INCLUDE_OBJECT_VALUES as readonly string[]).includes(value)) return value as IncludeObject;
  const error = fieldInvalid('includeObject', value, "must be 'Metadata', 'Object', 'None', or empty");
  throw badRequest(`Unable to convert to Table as requested: ${formatFieldError(error)}`);
}

/** Go's `%T` of a typed object or list as kube's messages print it, e.g. `*v1.ConfigMapList`. */
function goTypeName(kind: string, apiVersion: string | undefined): string {
  const version = (apiVersion ?? 'v1').split('/').pop() ?? 'v1';
  return `*${version}.${kind}`;
}

function tableTransform(target: ConversionTarget, columns: readonly PrinterColumn[], includeObject: IncludeObject): ResponseTransform {
  const version = target.version;
  const table = (items: readonly KubeObject[], metadata: ListMeta, noHeaders = false) =>
    buildTable(items, metadata, { columns, version, includeObject, noHeaders, now: Date.now() });
  return {
    target,
    object: (obj) => table([obj], obj.metadata.resourceVersion !== undefined ? { resourceVersion: obj.metadata.resourceVersion } : {}),
    list: (list) => table(list.items, list.metadata),
    watch: () => {
      let headersSent = false;
      return (obj) => {
        const converted = table([obj], obj.metadata.resourceVersion !== undefined ? { resourceVersion: obj.metadata.resourceVersion } : {}, headersSent);
        headersSent = true;
        return converted;
      };
    },
  };
}

function partialTransform(target: ConversionTarget): ResponseTransform {
  const { version } = target;
  const asObject = (obj: KubeObject) => {
    if (target.kind !== 'PartialObjectMetadata') {
      throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(String(obj.kind ?? ''), obj.apiVersion)})`);
    }
    return partialObjectMetadata(obj, version);
  };
  return {
    target,
    object: asObject,
    list: (list) => {
      if (target.kind !== 'PartialObjectMetadataList') {
        throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(list.kind, list.apiVersion)})`);
      }
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${version}`,
        metadata: list.metadata,
        items: list.items.map((item) => partialObjectMetadata(item, version)),
      };
    },
    watch: () => asObject,
  };
}

/** Whether the resource's objects can be encoded as protobuf (built-in kinds kapi has messages for). */
export function resourceCapabilities(definition: ResourceDefinition, version: string): ResourceCapabilities {
  const apiVersion = definition.group === '' ? version : `${definition.group}/${version}`;
  return { protobuf: hasProtobuf(apiVersion, definition.kind), goRestful: definition.bodyDecoding !== 'unstructured' };
}

/**
 * Negotiates the response representation of a resource request from its Accept header (406
 * when nothing fits) and, for Tables, the `includeObject` query parameter (400 when invalid).
 */
export function negotiateResourceOutput(accept: string | undefined, query: URLSearchParams, definition: ResourceDefinition, version: string): ResourceOutput {
  const media = negotiateResourceMedia(accept, resourceCapabilities(definition, version));
  if (media.target === undefined) return { encoding: media.encoding };
  if (media.target.kind === 'Table') {
    const columns = definition.versions.find((v) => v.name === version)?.printerColumns ?? definition.printerColumns ?? defaultColumns;
    return { encoding: media.encoding, transform: tableTransform(media.target, columns, parseIncludeObject(query)) };
  }
  return { encoding: media.encoding, transform: partialTransform(media.target) };
}

/** Whether a value is a Status (never converted, always encoded as itself). */
export function isStatus(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/** Whether a value is a list (kind `…List` with an items array). */
export function isList(value: unknown): value is KubeList {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, items } = value as { kind?: unknown; items?: unknown };
  return typeof kind === 'string' && kind.endsWith('List') && Array.isArray(items);
}

/** The response body after the requested conversion. */
export function transformResponse(value: unknown, transform: ResponseTransform | undefined): unknown {
  if (transform === undefined || isStatus(value) || typeof value !== 'object' || value === null) return value;
  return isList(value) ? transform.list(value) : transform.object(value as KubeObject);
}
