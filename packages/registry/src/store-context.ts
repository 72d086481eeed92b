/**
 * What every operation of the generic store needs to know about its resource, computed once
 * per store. Read-only after construction.
 */
import type { Atom, FieldManagerScope, GroupResource, JSONSchemaProps, KubeObject, SchemaDefinitions } from '@kapi/machinery';
import { FieldSet, applyDefaults, decodeObject, encodeObjectGo, goTypedView, hasProtobuf, managedFields, managerFromUserAgent, nextSlice, omitEmptyGoCollections, protobufMessageOf, shouldYield } from '@kapi/machinery';
import type { GuaranteedUpdateOptions, Storage } from '@kapi/storage';
import type { Admission } from './admission.js';
import type { RequestContext, ResourceDefinition, VersionDefinition, WriteGuard } from './definition.js';
import { decodeBody, type ExpectedKind } from './decode-body.js';
import type { KeySpace } from './keys.js';
import type { NamespaceLifecycle } from './namespace-lifecycle.js';
import type { Reserver } from './reservation.js';
import type { WriteOptions } from './rest.js';
import { omitEmptyCollections } from './omit-empty.js';
import type { ManagedFieldsConversion, VersionConversion } from './store-conversion.js';
import { requestBodyFailures, type DecodeFailures } from './decode-failures.js';
import { typedBodyError } from './typed-body.js';
import { handleUnknownFields } from './unknown-fields.js';
import type { ValidationContext } from './validate-object.js';

export interface StoreContext {
  readonly definition: ResourceDefinition;
  readonly storage: Storage;
  readonly space: KeySpace;
  /** `{group, resource: plural}` for NotFound/AlreadyExists/Conflict messages. */
  readonly resource: GroupResource;
  readonly expected: ExpectedKind;
  /** apiVersion of the served version. */
  readonly apiVersion: string;
  /** The served version. */
  readonly version: VersionDefinition;
  /** Served version ↔ storage form (see store-conversion.ts). */
  readonly conversion: VersionConversion;
  /** Managed field sets of other versions ↔ the served version's field names; undefined when no names differ. */
  readonly managedFieldsConversion: ManagedFieldsConversion | undefined;
  /**
   * Stored objects shared by readers (lists, watch events) → their served form, so that
   * every watcher of this version gets the same object (encode-once) and converts once.
   */
  readonly presented: WeakMap<object, KubeObject>;
  /** The served version's schema (decoding, defaults, unknown fields, patches, schema validation). */
  readonly schema: JSONSchemaProps;
  readonly metadataSchema: JSONSchemaProps;
  readonly schemas: SchemaDefinitions;
  readonly validation: ValidationContext;
  /** Admission check for creates in a namespace; undefined = none (cluster-scoped). */
  readonly namespaces: NamespaceLifecycle | undefined;
  /** Throws to refuse deleting `name` (immortal namespaces). */
  readonly deletionGuard: ((name: string) => void) | undefined;
  /** Refuses creates and updates of the main resource (see WriteGuard). */
  readonly writeGuard: WriteGuard | undefined;
  /** Reserves what objects hold outside themselves around writes (see reservation.ts); undefined = nothing. */
  readonly reserver: Reserver | undefined;
  /** The resource's admission plugins (see admission.ts), after the namespace check; undefined = none. */
  readonly admission: Admission | undefined;
  /** Deletes manage the garbage collector's finalizers (`--enable-garbage-collector`). */
  readonly garbageCollection: boolean;
  /** The merge semantics of the version's schema (server-side apply, managedFields). */
  readonly atom: Atom;
  /**
   * Seconds after which objects expire from storage, counted from their last create or update
   * (kube's TTL of a registry strategy: Events and `--event-ttl`); undefined = never.
   */
  readonly ttlSeconds: number | undefined;
}

const STATUS = FieldSet.of([managedFields.fieldElement('status')]);
const SPEC = FieldSet.of([managedFields.fieldElement('spec')]);
const SPEC_AND_CERTIFICATE = FieldSet.of([managedFields.fieldElement('spec')], [managedFields.fieldElement('status'), managedFields.fieldElement('certificate')]);

/** The definition's own reset fields of `subresource`, as a FieldSet (cached per definition). */
const ownResetFields = new WeakMap<ResourceDefinition, Map<string, FieldSet>>();
function definedResetFields(definition: ResourceDefinition, subresource: string): FieldSet | undefined {
  const paths = definition.resetFields?.[subresource];
  if (paths === undefined) return undefined;
  let sets = ownResetFields.get(definition);
  if (sets === undefined) ownResetFields.set(definition, (sets = new Map()));
  let set = sets.get(subresource);
  if (set === undefined) sets.set(subresource, (set = FieldSet.of(...paths.map((path) => path.map((name) => managedFields.fieldElement(name))))));
  return set;
}

function genericResetFields(definition: ResourceDefinition, subresource: string): FieldSet | undefined {
  switch (subresource) {
    case '':
      return definition.hasStatus ? STATUS : undefined;
    case 'status':
      return SPEC;
    case 'finalize':
      return STATUS;
    case 'approval':
      return SPEC_AND_CERTIFICATE;
    default:
      return undefined;
  }
}

/** The Go view of objects of a built-in kind (see goTypedView), or undefined for kinds without Go types. */
function typedViewOf(ctx: StoreContext): ((obj: Record<string, unknown>) => Record<string, unknown>) | undefined {
  if (ctx.definition.bodyDecoding === 'unstructured') return undefined;
  const message = protobufMessageOf(ctx.apiVersion, ctx.expected.kind);
  return message === undefined ? undefined : (obj) => goTypedView(message, obj);
}

/**
 * The field manager for writes through `subresource` ("" = the main resource). Fields the
 * write path resets are never owned (kube's ResetFieldsStrategy): the definition's
 * `resetFields` where it lists the subresource, else status on the main resource of a type
 * with status, spec through `/status`, status through `/finalize`, spec and
 * status.certificate through `/approval`. Built-in kinds are compared in their Go view.
 */
export function fieldManagerScope(ctx: StoreContext, subresource: string): FieldManagerScope {
  const resetFields = definedResetFields(ctx.definition, subresource) ?? genericResetFields(ctx.definition, subresource);
  const typedView = typedViewOf(ctx);
  return {
    atom: ctx.atom,
    group: ctx.expected.group,
    version: ctx.expected.version,
    kind: ctx.expected.kind,
    ...(subresource !== '' ? { subresource } : {}),
    ...(resetFields !== undefined ? { resetFields } : {}),
    ...(typedView !== undefined ? { typedView } : {}),
  };
}

/** The manager of a non-apply write: fieldManager, else the User-Agent's product name. */
export function updateManager(req: RequestContext, options: WriteOptions): string {
  return options.fieldManager ?? managerFromUserAgent(req.userAgent);
}

/**
 * The stored object as this store's clients see it: converted to the served version (a new
 * object whenever it differs; `obj` is never mutated, objects from storage may be shared).
 */
export function present(ctx: StoreContext, obj: KubeObject): KubeObject {
  return ctx.conversion.toServed(obj);
}

/**
 * `present` for objects the storage shares between readers (list items, watch events):
 * converted once per object and version, so the HTTP layer's per-object byte caches hold.
 */
export function presentShared(ctx: StoreContext, obj: KubeObject): KubeObject {
  if (ctx.conversion.identity && obj.apiVersion === ctx.conversion.storageApiVersion) return obj;
  let served = ctx.presented.get(obj);
  if (served === undefined) {
    served = ctx.conversion.toServed(obj);
    ctx.presented.set(obj, served);
  }
  return served;
}

/**
 * The storage options of a write that expires (the resource's TTL; leases shared within the
 * resource, as kube's per-resource storage shares them), or none.
 */
export function expiry(ctx: StoreContext): { ttlSeconds?: number; leaseScope?: string } {
  return ctx.ttlSeconds === undefined ? {} : { ttlSeconds: ctx.ttlSeconds, leaseScope: `${ctx.resource.group}/${ctx.resource.resource}` };
}

/**
 * The storage's guaranteed update of `key`, the step given the current object in the storage
 * form (see VersionConversion.normalize), so steps compare and write like objects: a CRD kube
 * stored as v1beta1 is updated as v1, and an unchanged one stays unchanged.
 */
export function updateStored(
  ctx: StoreContext,
  key: string,
  step: (current: KubeObject | undefined) => KubeObject | null | Promise<KubeObject | null>,
  options?: GuaranteedUpdateOptions,
): Promise<KubeObject> {
  return ctx.storage.guaranteedUpdate(key, (current) => step(current === undefined ? undefined : ctx.conversion.normalize(current)), options);
}

/**
 * `obj` (in the storage form) as storage would read it back, which kube's dry runs answer
 * with (they copy the object through the storage codec): a built-in kind through its Go
 * struct (a nil or empty list without omitempty becomes null), anything else as it is.
 */
export function readBack(obj: KubeObject): KubeObject {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  if (!hasProtobuf(apiVersion, kind)) return obj;
  return decodeObject(encodeObjectGo(obj), { apiVersion, kind }).object as KubeObject;
}

/** A private object of the served version in the storage form (may reuse `obj`). */
export function toStorage(ctx: StoreContext, obj: KubeObject): KubeObject {
  return ctx.conversion.toStorage(obj);
}

/**
 * Decode steps shared by create, update and patch: body checks (400), values the kind's Go
 * type cannot hold (`failures.undecodable`; by default 400), the strategy's decode hook,
 * unknown and duplicate fields per fieldValidation (Strict: `failures.strict`, by default
 * 400; Warn: warnings), then schema defaults. Returns a private object (a create's
 * protobuf body itself, see WriteOptions.protobufBody: it has no unknown fields to handle).
 * Between steps it lets other work have the event loop once the turn has run long (a body
 * of many keys).
 */
export async function decodeRequest(
  ctx: StoreContext,
  body: unknown,
  options: WriteOptions,
  failures: DecodeFailures = requestBodyFailures(ctx.expected),
  bodyProblems?: readonly string[],
): Promise<KubeObject> {
  const fromProtobuf = options.protobufBody === true && ctx.definition.bodyDecoding !== 'unstructured';
  const obj = decodeBody(body, ctx.expected, fromProtobuf);
  if (shouldYield()) await nextSlice();
  const undecodable = typedBodyError(
    { bodyDecoding: ctx.definition.bodyDecoding, kind: ctx.expected.kind, schema: ctx.schema, metadataSchema: ctx.metadataSchema, definitions: ctx.schemas },
    obj,
  );
  if (undecodable !== undefined) throw failures.undecodable(undecodable);
  if (shouldYield()) await nextSlice();
  ctx.definition.strategy?.decode?.(obj, { schema: ctx.schema, definitions: ctx.schemas });
  // A protobuf body holds only fields of the kind's message, which its schema has: none to prune.
  if (!fromProtobuf || bodyProblems !== undefined) {
    handleUnknownFields(obj, { object: ctx.schema, metadata: ctx.metadataSchema, definitions: ctx.schemas }, options, failures.strict, bodyProblems);
  }
  if (shouldYield()) await nextSlice();
  if (ctx.definition.omitEmptyCollections === true) {
    const message = protobufMessageOf(ctx.apiVersion, ctx.expected.kind);
    if (message !== undefined) omitEmptyGoCollections(message, obj);
    else omitEmptyCollections(obj, ctx.schema, ctx.schemas);
  }
  applyDefaults(obj, ctx.schema, { definitions: ctx.schemas });
  return obj;
}

