/**
 * What every operation of the generic store needs to know about its resource, computed once
 * per store. Read-only after construction.
 */
import type { GroupResource, JSONSchemaProps, KubeObject, SchemaDefinitions } from '@kapi/machinery';
import { applyDefaults } from '@kapi/machinery';
import type { Storage } from '@kapi/storage';
import type { ResourceDefinition } from './definition.js';
import { decodeBody, type ExpectedKind } from './decode-body.js';
import type { KeySpace } from './keys.js';
import type { NamespaceLifecycle } from './namespace-lifecycle.js';
import type { WriteOptions } from './rest.js';
import { handleUnknownFields } from './unknown-fields.js';
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
 * Decode steps shared by create and update: body checks (400), the strategy's decode hook,
 * unknown fields per fieldValidation (400 for Strict, warnings for Warn), then schema
 * defaults. Returns a private object.
 */
export function decodeRequest(ctx: StoreContext, body: unknown, options: WriteOptions): KubeObject {
  const obj = decodeBody(body, ctx.expected);
  ctx.definition.strategy?.decode?.(obj);
  handleUnknownFields(obj, { object: ctx.schema, metadata: ctx.metadataSchema, definitions: ctx.schemas }, options);
  applyDefaults(obj, ctx.schema, { definitions: ctx.schemas });
  return obj;
}

