/**
 * How the generic store builds kube's admission attributes for its writes (see admission.ts
 * for the order the phases run in). Objects handed to plugins are in the served version.
 */
import type { KubeObject } from '@kapi/machinery';
import { applyDefaults, badRequest } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionOperation, EquivalentResource, GroupVersionKind, GroupVersionResource } from './admission.js';
import type { RequestContext } from './definition.js';
import type { DeleteOptions, WriteOptions } from './rest.js';
import { present, toStorage, type StoreContext } from './store-context.js';
import { versionConversion } from './store-conversion.js';
import { handleUnknownFields } from './unknown-fields.js';

export interface AdmissionInit {
  readonly operation: AdmissionOperation;
  readonly name: string;
  readonly subresource: string;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly options: WriteOptions | DeleteOptions;
  /** The meta.k8s.io/v1 kind of the options object (CreateOptions, UpdateOptions, DeleteOptions). */
  readonly optionsKind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions';
  /**
   * The request's kind when it is not the resource's own (a subresource's: pods/eviction is
   * policy/v1 Eviction); objects of such kinds are not re-defaulted by `normalize`.
   */
  readonly kind?: GroupVersionKind;
  /** The options object itself (CONNECT: the connect options), instead of one built from `options`. */
  readonly optionsObject?: KubeObject | undefined;
}

/** The request's options as the meta.k8s.io/v1 object kube hands to admission. */
function optionsObject(kind: AdmissionInit['optionsKind'], options: WriteOptions | DeleteOptions): KubeObject {
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (options.dryRun === true) out['dryRun'] = ['All'];
  if (kind === 'DeleteOptions') {
    const d = options as DeleteOptions;
    if (d.gracePeriodSeconds !== undefined) out['gracePeriodSeconds'] = d.gracePeriodSeconds;
    if (d.preconditions !== undefined) out['preconditions'] = d.preconditions;
    if (d.orphanDependents !== undefined) out['orphanDependents'] = d.orphanDependents;
    if (d.propagationPolicy !== undefined) out['propagationPolicy'] = d.propagationPolicy;
  } else {
    if (options.fieldManager !== undefined) out['fieldManager'] = options.fieldManager;
    // The HTTP layer fills in the default (Warn) when the request names none; kube sends only what was asked.
    if (options.fieldValidation !== undefined && options.fieldValidation !== 'Warn') out['fieldValidation'] = options.fieldValidation;
  }
  return out as unknown as KubeObject;
}

/** The other served versions of this store's definition, converted through the storage form. */
function equivalentsOf(ctx: StoreContext): readonly EquivalentResource[] {
  const { definition } = ctx;
  return definition.versions
    .filter((v) => v.served && v.name !== ctx.version.name)
    .map((version) => {
      const other = versionConversion(definition, version);
      return {
        resource: { group: definition.group, version: version.name, resource: definition.plural },
        kind: { group: definition.group, version: version.name, kind: definition.kind },
        convert: (obj: KubeObject) => other.toServed(toStorage(ctx, structuredClone(obj))),
        convertBack: (obj: KubeObject) => present(ctx, other.toStorage(structuredClone(obj))),
      };
    });
}

const isNamespaces = (ctx: StoreContext) => ctx.definition.group === '' && ctx.definition.plural === 'namespaces';

/**
 * The request's namespace as kube's request info has it: "" for cluster-scoped resources,
 * except that a request for one namespace object (`/api/v1/namespaces/<name>`, not a POST)
 * names that namespace.
 */
function namespaceOf(ctx: StoreContext, req: RequestContext, init: AdmissionInit): string {
  if (ctx.definition.namespaced) return req.namespace;
  return isNamespaces(ctx) && init.operation !== 'CREATE' ? init.name : '';
}

/** A store's own kind and resource as admission sees them (read-only, so built once per store context). */
const storeKinds = new WeakMap<StoreContext, { readonly kind: GroupVersionKind; readonly resource: GroupVersionResource }>();

function storeKindOf(ctx: StoreContext): { readonly kind: GroupVersionKind; readonly resource: GroupVersionResource } {
  let found = storeKinds.get(ctx);
  if (found === undefined) {
    found = {
      kind: { group: ctx.expected.group, version: ctx.expected.version, kind: ctx.expected.kind },
      resource: { group: ctx.definition.group, version: ctx.version.name, resource: ctx.definition.plural },
    };
    storeKinds.set(ctx, found);
  }
  return found;
}

/** Builds the attributes of one admission call of this store. */
export function admissionAttributes(ctx: StoreContext, req: RequestContext, init: AdmissionInit): AdmissionAttributes {
  let equivalents: readonly EquivalentResource[] | undefined;
  const own = storeKindOf(ctx);
  return {
    operation: init.operation,
    kind: init.kind ?? own.kind,
    resource: own.resource,
    subresource: init.subresource,
    name: init.name,
    namespace: namespaceOf(ctx, req, init),
    namespaced: ctx.definition.namespaced,
    userInfo: req.user,
    object: init.object,
    oldObject: init.oldObject,
    dryRun: init.options.dryRun === true,
    options: 'optionsObject' in init ? init.optionsObject : optionsObject(init.optionsKind, init.options),
    request: req,
    warn: (message) => init.options.warn?.(message),
    annotate: (key, value) => req.annotate?.(key, value),
    equivalents: () => (init.kind !== undefined ? [] : (equivalents ??= equivalentsOf(ctx))),
    normalize(obj) {
      if (init.kind !== undefined) return obj;
      handleUnknownFields(
        obj,
        { object: ctx.schema, metadata: ctx.metadataSchema, definitions: ctx.schemas },
        { fieldValidation: 'Ignore' },
        (detail) => badRequest(detail),
        [],
      );
      applyDefaults(obj, ctx.schema, { definitions: ctx.schemas });
      return obj;
    },
  };
}

/** Whether this store's admission runs for `operation`. */
export function admits(ctx: StoreContext, operation: AdmissionOperation): boolean {
  return ctx.admission !== undefined && ctx.admission.handles(operation);
}

/**
 * Both phases for a write that only a subresource's own storage performs (pods/eviction,
 * pods/binding: kube's NamedCreater), with the body as the object in the subresource's kind.
 * Returns the body as mutating admission left it.
 */
export async function admitSubresourceCreate(
  ctx: StoreContext,
  req: RequestContext,
  init: { name: string; subresource: string; kind: GroupVersionKind; body: unknown; options: WriteOptions },
): Promise<unknown> {
  if (!admits(ctx, 'CREATE') || typeof init.body !== 'object' || init.body === null || Array.isArray(init.body)) return init.body;
  const body = init.body as KubeObject;
  // As kube decodes it: the object carries the request's namespace.
  const object = ctx.definition.namespaced && typeof body.metadata === 'object' && body.metadata !== null && body.metadata.namespace === undefined
    ? { ...body, metadata: { ...body.metadata, namespace: req.namespace } }
    : body;
  const attributes = admissionAttributes(ctx, req, {
    operation: 'CREATE', name: init.name, subresource: init.subresource, kind: init.kind, object, oldObject: undefined, options: init.options, optionsKind: 'CreateOptions',
  });
  await ctx.admission!.admit(attributes);
  await ctx.admission!.validate(attributes);
  return attributes.object;
}

/** Both phases of a CONNECT (exec, attach, port-forward, proxies): the object is the connect options. */
export async function admitConnect(
  ctx: StoreContext,
  req: RequestContext,
  init: { name: string; subresource: string; kind: GroupVersionKind; connectOptions: KubeObject },
): Promise<void> {
  if (!admits(ctx, 'CONNECT')) return;
  const attributes = admissionAttributes(ctx, req, {
    operation: 'CONNECT', name: init.name, subresource: init.subresource, kind: init.kind, object: init.connectOptions, oldObject: undefined,
    options: {}, optionsKind: 'CreateOptions', optionsObject: undefined,
  });
  await ctx.admission!.admit(attributes);
  await ctx.admission!.validate(attributes);
}

/**
 * Admission of writes through a subresource that stores the main object but is admitted as
 * another kind (`scale`: autoscaling/v1 Scale): how to show an object to admission and how to
 * carry a mutation of the view back to the object.
 */
export interface AdmissionView {
  readonly subresource: string;
  readonly kind: GroupVersionKind;
  toView(obj: KubeObject): KubeObject;
  fromView(view: KubeObject, obj: KubeObject): KubeObject;
}
