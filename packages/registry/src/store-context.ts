/**
 * What every operation of the generic store needs to know about its resource, computed once
 * per store. Read-only after construction.
 */
import type { Atom, FieldManagerScope, GroupResource, JSONSchemaProps, KubeObject, SchemaDefinitions } from '@kapi/machinery';
import { FieldSet, applyDefaults, managedFields, managerFromUserAgent } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import type { RequestContext, ResourceDefinition } from './definition.js';
import { decodeBody, type ExpectedKind } from './decode-body.js';
import type { KeySpace } from './keys.js';
import type { NamespaceLifecycle } from './namespace-lifecycle.js';
import type { WriteOptions } from './rest.js';
import { omitEmptyCollections } from './omit-empty.js';
import { handleUnknownFields, strictBodyError, type StrictErrorFactory } from './unknown-fields.js';
import type { ValidationContext } from './validate-object.js';

export interface StoreContext {
  readonly definition: ResourceDefinition;
  readonly storage: Storage;
  readonly space: KeySpace;
  /** `{group, resource: plural}` for NotFound/AlreadyExists/Conflict messages. */
  readonly resource: GroupResource;
  readonly expected: ExpectedKind;
  readonly apiVersion: string;
  readonly schema: JSONSchemaProps;
  readonly metadataSchema: JSONSchemaProps;
  readonly schemas: SchemaDefinitions;
  readonly validation: ValidationContext;
  /** Admission check for creates in a namespace; undefined = none (cluster-scoped). */
  readonly namespaces: NamespaceLifecycle | undefined;
  /** Throws to refuse deleting `name` (immortal namespaces). */
  readonly deletionGuard: ((name: string) => void) | undefined;
  /** The merge semantics of the version's schema (server-side apply, managedFields). */
  readonly atom: Atom;
}

const STATUS = FieldSet.of([managedFields.fieldElement('status')]);
const SPEC = FieldSet.of([managedFields.fieldElement('spec')]);

/**
 * The field manager for writes through `subresource` ("" = the main resource). Fields the
 * write path resets are never owned (kube's ResetFieldsStrategy): status on the main
 * resource of a type with status, spec through `/status`, status through `/finalize`.
 */
export function fieldManagerScope(ctx: StoreContext, subresource: string): FieldManagerScope {
  let resetFields: FieldSet | undefined;
  if (subresource === '') resetFields = ctx.definition.hasStatus ? STATUS : undefined;
  else if (subresource === 'status') resetFields = SPEC;
  else if (subresource === 'finalize') resetFields = STATUS;
  return {
    atom: ctx.atom,
    group: ctx.expected.group,
    version: ctx.expected.version,
    kind: ctx.expected.kind,
    ...(subresource !== '' ? { subresource } : {}),
    ...(resetFields !== undefined ? { resetFields } : {}),
  };
}

/** The manager of a non-apply write: fieldManager, else the User-Agent's product name. */
export function updateManager(req: RequestContext, options: WriteOptions): string {
  return options.fieldManager ?? managerFromUserAgent(req.userAgent);
}

/**
 * The object as this store's clients see it: apiVersion and kind of the served version.
 * Returns a shallow copy when they differ (objects from storage may be shared).
 */
export function present(ctx: StoreContext, obj: KubeObject): KubeObject {
  if (obj.apiVersion === ctx.apiVersion && obj.kind === ctx.definition.kind) return obj;
  return { ...obj, apiVersion: ctx.apiVersion, kind: ctx.definition.kind };
}

/**
 * Decode steps shared by create, update and patch: body checks (400), the strategy's decode
 * hook, unknown and duplicate fields per fieldValidation (Strict: `strictError`, by default
 * 400; Warn: warnings), then schema defaults. Returns a private object.
 */
export function decodeRequest(
  ctx: StoreContext,
  body: unknown,
  options: WriteOptions,
  strictError: StrictErrorFactory = strictBodyError,
  bodyProblems?: readonly string[],
): KubeObject {
  const obj = decodeBody(body, ctx.expected);
  ctx.definition.strategy?.decode?.(obj);
  handleUnknownFields(obj, { object: ctx.schema, metadata: ctx.metadataSchema, definitions: ctx.schemas }, options, strictError, bodyProblems);
  if (ctx.definition.omitEmptyCollections === true) omitEmptyCollections(obj, ctx.schema, ctx.schemas);
  applyDefaults(obj, ctx.schema, { definitions: ctx.schemas });
  return obj;
}

