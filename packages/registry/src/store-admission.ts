/**
 * How the generic store builds kube's admission attributes for its writes (see admission.ts
 * for the order the phases run in). Objects handed to plugins are in the served version.
 */
import type { KubeObject } from '@kapi/machinery';
import { applyDefaults, badRequest } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionOperation, EquivalentResource } from './admission.js';
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
    if (options.fieldValidation !== undefined) out['fieldValidation'] = options.fieldValidation;
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

/** Builds the attributes of one admission call of this store. */
export function admissionAttributes(ctx: StoreContext, req: RequestContext, init: AdmissionInit): AdmissionAttributes {
  let equivalents: readonly EquivalentResource[] | undefined;
  return {
    operation: init.operation,
    kind: { group: ctx.expected.group, version: ctx.expected.version, kind: ctx.expected.kind },
    resource: { group: ctx.definition.group, version: ctx.version.name, resource: ctx.definition.plural },
    subresource: init.subresource,
    name: init.name,
    namespace: namespaceOf(ctx, req, init),
    namespaced: ctx.definition.namespaced,
    userInfo: req.user,
    object: init.object,
    oldObject: init.oldObject,
    dryRun: init.options.dryRun === true,
    options: optionsObject(init.optionsKind, init.options),
    request: req,
    warn: (message) => init.options.warn?.(message),
    annotate: (key, value) => req.annotate?.(key, value),
    equivalents: () => (equivalents ??= equivalentsOf(ctx)),
    normalize(obj) {
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
