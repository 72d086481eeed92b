/**
 * The admission interface of the generic store, in kube's order. For every write the store
 * builds one `AdmissionAttributes` and calls, per request:
 *
 *   decode → defaults → managedFields → admit (MUTATING: built-in mutating plugins, then
 *   mutating webhooks) → prepare + validation (422) → validate (VALIDATING: built-in
 *   validating plugins, ValidatingAdmissionPolicy, validating webhooks) → storage.
 *
 * - CREATE: `object` is the new object; `oldObject` undefined.
 * - UPDATE (main resource and stored subresources such as `status`, PATCH too, inside each
 *   attempt of the guaranteed update): `object` the new object, `oldObject` the current one.
 *   An update of an absent object that creates it (PUT-create, apply) is a CREATE.
 * - DELETE (each item of a deletecollection too): both phases run once the object is read,
 *   with `object` undefined and `oldObject` the object deleted (kube's deleteValidation).
 * - CONNECT: `object` is the connect options object, no `oldObject`.
 *
 * Objects are in the request's version (`kind`/`resource`), as kube's plugins see them. A
 * mutating plugin may change `attributes.object` in place or replace it; the store re-applies
 * the version's defaults to a replaced object (`normalize`) and then validates it, so a
 * mutation is always validated. Validating plugins must not mutate. Both phases refuse by
 * throwing a StatusError; nothing is written then.
 */
import type { KubeObject } from '@kapi/machinery';
import type { RequestContext } from './definition.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export type AdmissionUser = NonNullable<RequestContext['user']>;

/** The same objects served under another group/version/resource (kube's equivalent resources). */
export interface EquivalentResource {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  /** Converts an object of the request's version into this version (a new object). */
  convert(obj: KubeObject): KubeObject;
  /** Converts an object of this version back into the request's version (a new object). */
  convertBack(obj: KubeObject): KubeObject;
}

export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The request's kind and resource (in kube's AdmissionRequest: requestKind/requestResource). */
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** "" for the main resource. */
  readonly subresource: string;
  /** The object's name ("" for a create with generateName, before the name is generated). */
  readonly name: string;
  /** "" for cluster-scoped resources. */
  readonly namespace: string;
  /** Whether the resource is namespaced (matching: namespaceSelector, scope). */
  readonly namespaced: boolean;
  readonly userInfo: AdmissionUser | undefined;
  /** The object written (request's version); a mutating plugin may change or replace it. */
  object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly dryRun: boolean;
  /** The request's CreateOptions / UpdateOptions / DeleteOptions (meta.k8s.io/v1) or connect options. */
  readonly options: KubeObject | undefined;
  /** The request as the store got it (namespace, user, User-Agent). */
  readonly request: RequestContext;
  /** Adds a `Warning: 299 - "<text>"` to the response. */
  warn(message: string): void;
  /** Adds an audit annotation to the request's audit event (a no-op without auditing). */
  annotate(key: string, value: string): void;
  /**
   * The other versions (and groups) serving the same objects, for matchPolicy Equivalent;
   * asked lazily (most requests match exactly or not at all).
   */
  equivalents(): readonly EquivalentResource[];
  /**
   * Re-applies the decode-time steps of the request's version (defaults, pruning) to an
   * object a plugin produced (a patched webhook response). Returns the object to use.
   */
  normalize(obj: KubeObject): KubeObject;
}

/**
 * One resource's admission: the mutating and the validating phase of every plugin it runs.
 * `handles` lets the store skip building attributes (and copying objects) for operations no
 * plugin cares about. Both phases throw StatusErrors to refuse.
 */
export interface Admission {
  handles(operation: AdmissionOperation): boolean;
  admit(attributes: AdmissionAttributes): Promise<void>;
  validate(attributes: AdmissionAttributes): Promise<void>;
}

/** One plugin of a chain (kube's admission.Interface with MutationInterface/ValidationInterface). */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: AdmissionOperation): boolean;
  admit?(attributes: AdmissionAttributes): Promise<void> | void;
  validate?(attributes: AdmissionAttributes): Promise<void> | void;
}

/**
 * Plugins as one admission, in order: every plugin's `admit` (mutating) in order, then every
 * plugin's `validate` in order; the first refusal ends the phase. Undefined when no plugin is given.
 */
export function admissionChain(plugins: readonly (AdmissionPlugin | undefined | false)[]): Admission | undefined {
  const present = plugins.filter((p): p is AdmissionPlugin => typeof p === 'object' && p !== null);
  if (present.length === 0) return undefined;
  const mutating = present.filter((p) => p.admit !== undefined);
  const validating = present.filter((p) => p.validate !== undefined);
  return {
    handles: (operation) => present.some((p) => p.handles(operation)),
    async admit(attributes) {
      for (const plugin of mutating) if (plugin.handles(attributes.operation)) await plugin.admit!(attributes);
    },
    async validate(attributes) {
      for (const plugin of validating) if (plugin.handles(attributes.operation)) await plugin.validate!(attributes);
    },
  };
}
