/**
 * Validation of an object about to be written: metadata (kube's ObjectMeta rules), the
 * version's structural schema, then the strategy. Returns nothing or throws the 422.
 */
import type { FieldError, JSONSchemaProps, KubeObject, NameValidator, SchemaDefinitions } from '@kapi/machinery';
import {
  appendErrors,
  invalid,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nextSlice,
  shouldYield,
  validateAgainstSchema,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '@kapi/machinery';
import type { ResourceDefinition } from './definition.js';

const pathSegmentName: NameValidator = (name, prefix) => (prefix ? [] : isValidPathSegmentName(name));

export function nameValidatorFor(definition: ResourceDefinition): NameValidator {
  switch (definition.nameValidation ?? 'DNS1123Subdomain') {
    case 'DNS1123Label':
      return nameIsDNSLabel;
    case 'PathSegmentName':
      return pathSegmentName;
    case 'DNS1123Subdomain':
      return nameIsDNSSubdomain;
  }
}

export interface ValidationContext {
  definition: ResourceDefinition;
  /** The schema of the request's version. */
  schema: JSONSchemaProps;
  definitions: SchemaDefinitions;
  /** The request's version (passed to the strategy's validate hooks). */
  version?: string;
  /**
   * The validated objects are in the storage form; this converts one to the request's
   * version for the schema check (absent: the forms are the same).
   */
  served?: (obj: KubeObject) => KubeObject;
  /** Cluster policy on the kind's pod spec (--allow-privileged=false). */
  podPolicy?: PodSpecPolicy;
}

/**
 * A cluster policy on a kind's pod spec: checked on create, through the ephemeralcontainers
 * subresource, and on main-resource updates when `onUpdate` (kube validates a pod template on
 * every write, a Pod's spec on create only).
 */
export interface PodSpecPolicy {
  check(obj: KubeObject): FieldError[];
  readonly onUpdate: boolean;
}

function schemaErrors(ctx: ValidationContext, obj: KubeObject): FieldError[] {
  return validateAgainstSchema(ctx.served !== undefined ? ctx.served(obj) : obj, ctx.schema, '', {
    definitions: ctx.definitions,
    ignoreRequired: ctx.definition.enforceSchemaRequired === false,
    nullIsZero: ctx.definition.bodyDecoding !== 'unstructured',
  });
}

function fail(ctx: ValidationContext, obj: KubeObject, errs: FieldError[]): void {
  if (errs.length === 0) return;
  const name = typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
  throw invalid({ group: ctx.definition.group, kind: ctx.definition.kind }, name, errs);
}

/**
 * Create: ObjectMeta rules, schema, then `strategy.validate`, `strategy.validateCreate` and
 * `strategy.validateLast` (its warnings go to `warn`). Rejects with 422 Invalid. Lets other
 * work have the event loop between the validators once the turn has run long.
 */
export async function validateForCreate(ctx: ValidationContext, obj: KubeObject, warn?: (message: string) => void): Promise<void> {
  const errs = validateObjectMeta(obj.metadata, { namespaced: ctx.definition.namespaced, nameValidator: nameValidatorFor(ctx.definition) });
  if (shouldYield()) await nextSlice();
  appendErrors(errs, schemaErrors(ctx, obj));
  if (shouldYield()) await nextSlice();
  appendErrors(errs, ctx.definition.strategy?.validate?.(obj, ctx.version));
  appendErrors(errs, ctx.definition.strategy?.validateCreate?.(obj, ctx.version));
  appendErrors(errs, ctx.podPolicy?.check(obj));
  await validateLast(ctx, obj, undefined, errs, '', warn);
  fail(ctx, obj, errs);
}

/** `strategy.validateLast`, given the errors found so far (appended to). */
async function validateLast(ctx: ValidationContext, obj: KubeObject, old: KubeObject | undefined, errs: FieldError[], subresource: string, warn?: (message: string) => void): Promise<void> {
  const last = ctx.definition.strategy?.validateLast;
  if (last === undefined) return;
  if (shouldYield()) await nextSlice();
  appendErrors(errs, last(obj, old, errs, { ...(ctx.version !== undefined ? { version: ctx.version } : {}), subresource, ...(warn !== undefined ? { warn } : {}) }));
}

/**
 * Update: ObjectMeta update rules against `old` (immutable fields, resourceVersion set) plus
 * the ObjectMeta rules again, schema (as `strategy.ratchetSchemaErrors` keeps them),
 * `strategy.validateUpdate`, then `strategy.validate`
 * (through a subresource: `strategy.validateSubresourceUpdate` instead), then
 * `strategy.validateLast` (its warnings go to `warn`). Rejects with 422 Invalid. Pauses
 * between validators as `validateForCreate` does.
 */
export async function validateForUpdate(ctx: ValidationContext, obj: KubeObject, old: KubeObject, subresource = '', warn?: (message: string) => void): Promise<void> {
  const errs = validateObjectMetaUpdate(obj.metadata, old.metadata);
  appendErrors(errs, validateObjectMeta(obj.metadata, { namespaced: ctx.definition.namespaced, nameValidator: nameValidatorFor(ctx.definition) }));
  if (shouldYield()) await nextSlice();
  const strategy = ctx.definition.strategy;
  const found = schemaErrors(ctx, obj);
  appendErrors(errs, strategy?.ratchetSchemaErrors !== undefined && found.length > 0 ? strategy.ratchetSchemaErrors(found, obj, old, subresource, ctx.version) : found);
  if (shouldYield()) await nextSlice();
  if (subresource !== '') {
    // A subresource has its own strategy (kube: e.g. namespaceStatusStrategy.ValidateUpdate).
    appendErrors(errs, strategy?.validateSubresourceUpdate?.(subresource, obj, old, ctx.version));
    if (subresource === 'ephemeralcontainers') appendErrors(errs, ctx.podPolicy?.check(obj));
  } else {
    appendErrors(errs, strategy?.validateUpdate?.(obj, old, ctx.version));
    if (shouldYield()) await nextSlice();
    appendErrors(errs, strategy?.validate?.(obj, ctx.version));
    if (ctx.podPolicy?.onUpdate === true) appendErrors(errs, ctx.podPolicy.check(obj));
  }
  await validateLast(ctx, obj, old, errs, subresource, warn);
  fail(ctx, obj, errs);
}
