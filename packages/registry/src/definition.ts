import type { FieldError, JSONSchemaProps, KubeObject, PrinterColumn, SchemaDefinitions } from '@kapi/machinery';

/**
 * Data, not classes, describe resources (DESIGN §2). Built-ins and (later) CRDs both become a
 * `ResourceDefinition`; routes, discovery, OpenAPI, validation and field selectors are derived
 * from it by generic code.
 */

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface VersionDefinition {
  name: string;
  served: boolean;
  storage: boolean;
  /** The schema of the whole object in this version (apiVersion, kind, metadata, ...). */
  schema: JSONSchemaProps;
  deprecated?: {
    /** The release that deprecated the version, e.g. `1.22` (kube's "is deprecated in v1.22+"). */
    deprecatedRelease?: string;
    /** The release that stops serving it, e.g. `1.25` (`removed_release` of apiserver_requested_deprecated_apis). */
    removedRelease?: string;
    replacement?: { group: string; version: string; kind: string };
    /** The whole Warning text (a CRD version's `deprecationWarning`); default kube's generated text. */
    warning?: string;
  };
  /**
   * Conversion between this version and the storage form (the storage version's object, with
   * the storage version's apiVersion and kind). Both absent = the fields are the same and only
   * apiVersion/kind change (CRDs' `conversion.strategy: None`). Both receive a private copy and
   * return the converted object; they must be lossless for a round trip (annotations where a
   * field has no home, as kube does).
   */
  fromStorage?(stored: KubeObject): KubeObject;
  toStorage?(obj: KubeObject): KubeObject;
  /** This version's Table columns, instead of the definition's (CRD versions each have their own). */
  printerColumns?: readonly PrinterColumn[];
  /**
   * This version's subresources, instead of the definition's (CRD versions each have their
   * own). Whether the main resource ignores `status` stays the definition's `hasStatus`.
   */
  subresources?: readonly SubresourceDefinition[];
}

/** Extracts the string value of one selectable field, or `undefined` when absent. */
export type FieldGetter = (obj: KubeObject) => string | undefined;

export interface RequestContext {
  /** The namespace from the URL ("" for cluster-scoped requests). */
  namespace: string;
  /** The User-Agent, used for default field managers. */
  userAgent?: string;
  /** Who the request acts as, once authenticated (the review APIs read it). */
  user?: { readonly name: string; readonly uid: string; readonly groups: readonly string[]; readonly extra: Readonly<Record<string, readonly string[]>> };
  /** Adds an annotation to the request's audit event (absent without auditing). */
  annotate?: (key: string, value: string) => void;
}

/**
 * A check of who may write what, run on every create and update of the main resource with
 * the object as decoded (after a patch is applied) and before preparation and validation:
 * `old` is the current object, undefined when the write creates; `name` is the name in the
 * URL ("" for a POST). Throws a StatusError to refuse (kube's RBAC escalation prevention
 * wraps its storages this way).
 */
export type WriteGuard = (req: RequestContext, name: string, obj: KubeObject, old: KubeObject | undefined) => void;

/**
/** What `Strategy.validateLast` learns about the write besides the objects. */
export interface LastValidationContext {
  /** The request's version. */
  readonly version?: string;
  /** '' for the main resource, else the subresource written (`status`, `scale`). */
  readonly subresource: string;
  /** Receives a warning for the response (`Warning: 299 - "<text>"`). */
  readonly warn?: (message: string) => void;
}

/**
 * Per-resource behaviour that data cannot express. The generic store calls the hooks in a
 * fixed order: prepareFor* → validate* → canonicalize. Hooks mutate the object they are given
 * (a private copy) and return field errors instead of throwing.
 */
export interface Strategy {
  /**
   * Decode-time conversion of a request body, before unknown-field handling and defaulting
   * (for example Secret `stringData` merged into `data`). Unlike the other hooks it may throw
   * a 400 StatusError for a body that cannot be decoded (as kube's typed decoding fails).
   * `typed` is the served version's schema and its definitions.
   */
  decode?(obj: KubeObject, typed?: { readonly schema: JSONSchemaProps; readonly definitions: SchemaDefinitions }): void;
  /**
   * Clears fields the user may not set on create (e.g. status) and sets server-owned ones;
   * `req` says who creates (CertificateSigningRequests record the requester).
   */
  prepareForCreate?(obj: KubeObject, req?: RequestContext): void;
  /** Copies over what the main resource may not change (e.g. status from `old`). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /**
   * Update through a subresource (`status`, `finalize`): copies over from `old` what that
   * subresource may not change. Without it, everything but `status` (for status) is kept.
   */
  prepareForSubresourceUpdate?(subresource: string, obj: KubeObject, old: KubeObject): void;
  /** Validation of an update through a subresource (instead of validateUpdate and validate); `version` as for `validate`. */
  validateSubresourceUpdate?(subresource: string, obj: KubeObject, old: KubeObject, version?: string): FieldError[];
  /**
   * Type-specific validation; runs on create and on update (last, after metadata validation).
   * Like every hook it sees the storage form; `version` is the version of the request (kube
   * validates events.k8s.io/v1 Events more strictly than core v1 ones).
   */
  validate?(obj: KubeObject, version?: string): FieldError[];
  /** Extra checks on create only, run after `validate`. */
  validateCreate?(obj: KubeObject, version?: string): FieldError[];
  /** Extra checks on update only (immutable fields), run before `validate`. */
  validateUpdate?(obj: KubeObject, old: KubeObject, version?: string): FieldError[];
  /**
   * On update, the schema errors to report (kube's CRD validation ratcheting drops errors
   * about unchanged values; a CRD's status write checks only status). Gets the schema
   * validator's errors, returns those kept. Without it every one is reported.
   */
  ratchetSchemaErrors?(errors: readonly FieldError[], obj: KubeObject, old: KubeObject, subresource: string, version?: string): FieldError[];
  /**
   * The last check of a create or update (every subresource too), after all others and
   * seeing their errors: kube runs a CRD's validation rules last and skips them when an
   * earlier error blocks them. Returns more errors; may report warnings through
   * `context.warn` (errors kube lets through on update).
   */
  validateLast?(obj: KubeObject, old: KubeObject | undefined, earlier: readonly FieldError[], context: LastValidationContext): FieldError[];
  canonicalize?(obj: KubeObject): void;
  /**
   * Graceful deletion (kube's CheckGracefulDelete): the grace period in seconds a first
   * DELETE gives `obj`, from the one the request asks for (undefined when it names none).
   * The store then marks the object (deletionTimestamp = now + period,
   * deletionGracePeriodSeconds) and removes it only once the period is 0. Without the hook
   * objects are removed at once.
   */
  gracefulDeletePeriod?(obj: KubeObject, requested: number | undefined): number;
  /**
   * A first DELETE that only marks the object (kube's CustomResourceDefinition REST Delete):
   * the store sets deletionTimestamp, this hook adds what the deletion waits on (a finalizer,
   * a condition), and the object is written as it is (no generation bump, no grace period,
   * no managed fields) and answered. A DELETE of an object already being deleted is the
   * generic one.
   */
  markForDeletion?(obj: KubeObject): void;
}

/**
 * Where a `scale` subresource finds replicas and selector in the object (kube's CRD
 * `subresources.scale`): simple JSON paths such as `.spec.replicas`.
 */
export interface ScaleDefinition {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
  /**
   * Built-in kinds: the Scale's status.selector computed from the object (kube prints a
   * workload's LabelSelector as a selector string), instead of `labelSelectorPath`.
   */
  readonly selector?: (obj: KubeObject) => string | undefined;
  /**
   * kube's built-in Scale REST (deployments, replicasets, statefulsets, replicationcontrollers)
   * rather than the custom resources' one: PATCH also accepts a strategic merge patch, a
   * Scale is validated as itself (422 `Scale.autoscaling`), its name must match the URL's
   * (400), and a missing object is `<plural>/scale` not found.
   */
  readonly builtin?: boolean;
}

/** A subresource of a resource (kube's `<resource>/<name>/<subresource>`), served over the object itself. */
export interface SubresourceDefinition {
  /**
   * `status` (the object's status; the main resource ignores status changes), `finalize`
   * (namespaces: spec.finalizers), `scale` (an autoscaling/v1 Scale view of `scale`'s paths),
   * `approval` (CertificateSigningRequests: status.conditions only), or another view of the
   * object whose strategy hooks say what it may change (pods' `ephemeralcontainers`).
   * Subresources with roles of their own (create, connect) are built by the registry's
   * subresource factories (subresource-store.ts).
   */
  readonly name: string;
  /** The verbs served: `get`, `update` and `patch` for status and scale; `update` for finalize. */
  readonly verbs: readonly ('get' | 'update' | 'patch')[];
  /** Required for `scale`: where replicas and selector live. */
  readonly scale?: ScaleDefinition;
}

export interface ResourceDefinition {
  group: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  versions: VersionDefinition[];
  verbs: Verb[];
  /** Path under the etcd prefix; defaults to `plural` (CRs use `<group>/<plural>`). */
  storagePrefix?: string;
  /**
   * The apiVersion of the storage form when the objects are stored as another group's
   * (kube's cohabitating resources: events.k8s.io Events are core `v1` Events under the same
   * `storagePrefix`); every version then converts through its hooks. Default: the storage
   * version's apiVersion.
   */
  storageApiVersion?: string;
  /**
   * Readers of stored objects in apiVersions this definition does not serve, by apiVersion:
   * each turns such an object into the storage form (a private copy; it may be mutated).
   * kube-apiserver 1.32 stores CustomResourceDefinitions as apiextensions.k8s.io/v1beta1.
   */
  storedVersionReaders?: Readonly<Record<string, (stored: KubeObject) => KubeObject>>;
  /** The resource has a `status` the main resource ignores on update (and on create, unless `statusOnCreate`). */
  hasStatus?: boolean;
  /**
   * The fields a write resets (kube's ResetFieldsStrategy), which its field manager never
   * owns, by subresource ("" = the main resource), as paths of field names. A subresource
   * not listed gets the generic set (see store-context.ts `fieldManagerScope`).
   */
  resetFields?: Readonly<Record<string, readonly (readonly string[])[]>>;
  /** A create keeps the status it is sent (kube's nodes: a kubelet registers its node with status). */
  statusOnCreate?: boolean;
  /** Subresources served at `<name>/<subresource>` (listed in discovery as `<plural>/<subresource>`). */
  subresources?: readonly SubresourceDefinition[];
  /**
   * PATCH accepts application/strategic-merge-patch+json (default true). kube refuses it (415)
   * for custom resources, which have no Go types to carry patch strategies.
   */
  strategicMergePatch?: boolean;
  /**
   * Empty maps and lists of `omitempty` fields are the same as absent ones (kube's built-in
   * kinds are Go structs, which leave them out): they are dropped on every write. Those
   * without `omitempty` stay empty (managedFields record them; storage then reads them back
   * as `null`).
   */
  omitEmptyCollections?: boolean;
  /**
   * How `metadata.name` is validated: DNS-1123 subdomain (default, most resources), DNS-1123
   * label (namespaces) or only as a path segment (custom resources).
   */
  nameValidation?: 'DNS1123Subdomain' | 'DNS1123Label' | 'PathSegmentName';
  /**
   * Field selectors beyond metadata.name and metadata.namespace, named as clients of every
   * served version name them; the getters read the storage form (the storage evaluates them
   * on stored objects, as kube evaluates converted field labels on its internal objects).
   * When set, other fields are
   * rejected with `field label not supported: <f>` (kube's per-kind conversion); when absent,
   * with kube's generic `"<f>" is not a known field selector: only ...`.
   */
  selectableFields?: Record<string, FieldGetter>;
  /** The 400 message for a field selector on a field not in `selectableFields` (default `field label not supported: <f>`; Jobs word it their own way). */
  unsupportedFieldLabel?: (field: string) => string;
  /**
   * Selectable fields the watch cache indexes (kube's cacher IndexerFuncs: pods by
   * `spec.nodeName`): a LIST or watch with an `=` requirement on one is served from the
   * matching objects and watchers only, not by testing every one.
   */
  indexedFields?: readonly string[];
  /**
   * How request bodies decode: `typed` (default: built-in kinds are Go structs in kube, so a
   * value a field's Go type cannot hold is a 400 before validation, see typed-body.ts) or
   * `unstructured` (custom resources: only metadata has Go types; the rest is left to
   * schema validation).
   */
  bodyDecoding?: 'typed' | 'unstructured';
  /**
   * Whether the schema's `required` lists are enforced (default true). The built-in kinds set
   * false: kube checks their required fields in typed Go code, with its own messages, and the
   * `required` lists of its published OpenAPI are documentation (kube accepts an Event
   * without `involvedObject`, which its OpenAPI lists as required).
   */
  enforceSchemaRequired?: boolean;
  /**
   * How aggregated discovery writes `responseKind`: `omitOwn` leaves group and version empty
   * when they are the resource's own (kube's built-in resources), `always` writes them
   * (custom resources: kube's apiextensions discovery does). Default `always`.
   */
  responseKindGroupVersion?: 'omitOwn' | 'always';
  /** PUT may create an object that does not exist. */
  allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion is allowed. */
  allowUnconditionalUpdate?: boolean;
  /**
   * DELETE answers with the deleted object (kube's `ReturnDeletedObject`: namespaces,
   * serviceaccounts, pods, ...). Otherwise an object deleted at once is answered with a
   * success Status `{status: "Success", details: {name, group, kind: <resource>, uid}}`; a
   * deletion left pending (finalizers) always answers with the marked object.
   */
  returnDeletedObject?: boolean;
  /**
   * The strategy owns `metadata.generation` (kube: deployments, CRs, ...): 1 on create,
   * + 1 on every update that changes anything but metadata and status; `onCreate`: 1 on
   * create, then kept (kube's priorityclasses); `onUpdate`: a create keeps what the client
   * sent, an update that changes the spec counts one more (kube's csidrivers). Otherwise (most core types: configmaps,
   * secrets, namespaces, ...) a create keeps what the client sent and an update keeps the
   * stored value.
   */
  managesGeneration?: boolean | 'onCreate' | 'onUpdate';
  /**
   * The columns of server-side Tables (`kubectl get`), in order; priority > 0 only with
   * `-o wide`. Without them a Table has kube's default Name and Created At columns.
   */
  printerColumns?: readonly PrinterColumn[];
  strategy?: Strategy;
}
