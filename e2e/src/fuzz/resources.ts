/**
 * Every resource kapi serves, as the fuzzer sees it: where it lives, whether it has protobuf
 * and strategic-merge patches, and an arbitrary of valid objects of its kind (which mutations
 * then break). The custom resource is the Widget of {@link FUZZ_CRD}.
 */
import fc from 'fast-check';
import { base64Data, configKey, dnsLabel, labelKey, labelValue, microTimestamp, text, timestamp } from './values.js';

export interface FuzzResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly subresources: readonly string[];
  /** Built-in types take protobuf bodies and strategic-merge patches; custom resources do not. */
  readonly builtin: boolean;
  /** The object's fields other than apiVersion, kind and metadata. */
  readonly fields: fc.Arbitrary<Record<string, unknown>>;
  /** Object names the fuzzer may write or delete (namespaces and CRDs: only its own). */
  readonly names: fc.Arbitrary<string>;
}

/** The namespaces the fuzzer works in (created before the run, re-created when deleted). */
export const WORK_NAMESPACES = ['fuzz-a', 'fuzz-b'] as const;
/** A namespace that never exists. */
export const MISSING_NAMESPACE = 'fuzz-missing';

/** The CRD every run installs first: a namespaced Widget with status and scale subresources. */
export const FUZZ_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.fuzz.example.com' },
  spec: {
    group: 'fuzz.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: ['v1', 'v1beta1'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                color: { type: 'string', default: 'blue', maxLength: 64 },
                size: { type: 'integer', format: 'int32' },
                replicas: { type: 'integer' },
                ratio: { type: 'number' },
                at: { type: 'string', format: 'date-time' },
                tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                ports: {
                  type: 'array',
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['name'],
                  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                },
                free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                quantity: { 'x-kubernetes-int-or-string': true },
              },
            },
            status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string', enum: ['Ready', 'Pending'] } } },
          },
        },
      },
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    })),
  },
};

const map = <T>(key: fc.Arbitrary<string>, value: fc.Arbitrary<T>, maxKeys = 4) => fc.dictionary(key, value, { maxKeys });
const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

/** Metadata beyond name and namespace: labels, annotations, finalizers, owner references. */
export const extraMetadata: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    labels: map(labelKey, labelValue),
    annotations: map(labelKey, text),
    finalizers: fc.array(fc.constantFrom('example.com/keep', 'kubernetes', 'foregroundDeletion', 'orphan'), { maxLength: 1 }),
    ownerReferences: fc.array(fc.record({ apiVersion: fc.constant('v1'), kind: fc.constant('ConfigMap'), name: dnsLabel, uid: fc.uuid(), controller: fc.boolean() }), { maxLength: 1 }),
    generateName: fc.constant('fz-'),
  },
  { requiredKeys: [] },
);

const objectReference = fc.record({ kind: fc.constantFrom('Pod', 'ConfigMap', 'Node'), name: dnsLabel, apiVersion: fc.constant('v1'), uid: optional(fc.uuid()) });

const configMapFields = fc.record({ data: map(configKey, text), binaryData: map(configKey, base64Data, 2), immutable: fc.boolean() }, { requiredKeys: [] });
const secretFields = fc.record(
  { data: map(configKey, base64Data), stringData: map(configKey, text, 2), type: fc.constantFrom('Opaque', 'example.com/custom', 'kubernetes.io/basic-auth'), immutable: fc.boolean() },
  { requiredKeys: [] },
);
const serviceAccountFields = fc.record(
  { secrets: fc.array(fc.record({ name: dnsLabel }), { maxLength: 2 }), imagePullSecrets: fc.array(fc.record({ name: dnsLabel }), { maxLength: 2 }), automountServiceAccountToken: fc.boolean() },
  { requiredKeys: [] },
);
const coreEventFields = fc.record(
  {
    involvedObject: objectReference,
    reason: fc.constantFrom('Pulled', 'Started', 'Fuzzed'),
    message: text,
    type: fc.constantFrom('Normal', 'Warning'),
    count: fc.integer({ min: 1, max: 1000 }),
    firstTimestamp: timestamp,
    lastTimestamp: timestamp,
    source: fc.record({ component: dnsLabel, host: optional(dnsLabel) }),
    reportingComponent: dnsLabel,
    reportingInstance: dnsLabel,
  },
  { requiredKeys: ['involvedObject'] },
);
const eventsFields = (regarding: string, note: string) =>
  fc
    .record({
      eventTime: microTimestamp,
      reportingController: fc.constantFrom('example.com/fuzzer', 'kubelet'),
      reportingInstance: dnsLabel,
      action: fc.constantFrom('Pull', 'Fuzz'),
      reason: fc.constantFrom('Pulled', 'Fuzzed'),
      type: fc.constantFrom('Normal', 'Warning'),
      regarding: objectReference,
      note: text,
      series: optional(fc.record({ count: fc.integer({ min: 2, max: 100 }), lastObservedTime: microTimestamp })),
      deprecatedCount: optional(fc.integer({ min: 0, max: 10 })),
    })
    .map(({ regarding: r, note: n, ...rest }) => ({ ...rest, [regarding]: r, [note]: n }));
const leaseFields = fc.record({
  spec: fc.record(
    {
      holderIdentity: dnsLabel,
      leaseDurationSeconds: fc.integer({ min: 1, max: 3600 }),
      acquireTime: microTimestamp,
      renewTime: microTimestamp,
      leaseTransitions: fc.integer({ min: 0, max: 1000 }),
    },
    { requiredKeys: [] },
  ),
});
const namespaceFields = fc.record({ spec: fc.record({ finalizers: fc.constant(['kubernetes']) }, { requiredKeys: [] }) }, { requiredKeys: [] });
const widgetFields = fc.record({
  spec: fc.record(
    {
      color: fc.constantFrom('red', 'blue', ''),
      size: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      replicas: fc.nat(100),
      ratio: fc.double({ noNaN: true, noDefaultInfinity: true }),
      at: timestamp,
      tags: fc.uniqueArray(dnsLabel, { maxLength: 3 }),
      ports: fc.uniqueArray(fc.record({ name: dnsLabel, port: fc.nat(65535) }), { maxLength: 3, selector: (p) => p.name }),
      free: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ v })),
      quantity: fc.oneof(fc.nat(), dnsLabel),
    },
    { requiredKeys: [] },
  ),
  status: optional(fc.record({ replicas: fc.nat(100), phase: fc.constantFrom('Ready', 'Pending') }, { requiredKeys: [] })),
});
/** A small random structural schema (what CRDs carry), with defaults that may not match their type. */
const crdSchema = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('string'), maxLength: optional(fc.nat(10)), format: optional(fc.constantFrom('date-time', 'byte', 'int-or-string', 'nope')), default: optional(fc.constantFrom('x', 5)) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('integer'), format: optional(fc.constantFrom('int32', 'int64')), minimum: optional(fc.integer()), default: optional(fc.constantFrom(1, 1e29, 'x')) }, { requiredKeys: ['type'] }),
    fc.constantFrom({ type: 'number' }, { type: 'boolean' }, { 'x-kubernetes-int-or-string': true }, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
    fc.record({ type: fc.constant('object'), properties: map(fc.constantFrom('a', 'b', 'metadata', 'x-y'), tie('node'), 3) }),
    fc.record({ type: fc.constant('array'), items: tie('node') }),
  ),
})).node;
const crdFields = fc.record({ plural: fc.constantFrom('gadgets', 'gizmos'), schema: crdSchema, scope: fc.constantFrom('Namespaced', 'Cluster') }).map(({ plural, schema, scope }) => ({
  spec: {
    group: 'fz.example.com',
    scope,
    names: { plural, kind: plural === 'gadgets' ? 'Gadget' : 'Gizmo' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: schema } } } }],
  },
}));

const pooled = fc.constantFrom('t0', 't1', 't2', 't3', 't4', 'fz-long-name-'.padEnd(63, 'x'));

const resource = (r: Omit<FuzzResource, 'names' | 'subresources' | 'builtin'> & Partial<FuzzResource>): FuzzResource => ({ names: pooled, subresources: [], builtin: true, ...r });

export const RESOURCES: readonly FuzzResource[] = [
  resource({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, fields: configMapFields }),
  resource({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, fields: secretFields }),
  resource({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, fields: serviceAccountFields }),
  resource({ group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, fields: coreEventFields }),
  resource({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, fields: eventsFields('regarding', 'note') }),
  resource({ group: 'events.k8s.io', version: 'v1beta1', resource: 'events', kind: 'Event', namespaced: true, fields: eventsFields('regarding', 'note') }),
  resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, fields: leaseFields }),
  resource({ group: 'coordination.k8s.io', version: 'v1beta1', resource: 'leases', kind: 'Lease', namespaced: true, fields: leaseFields }),
  resource({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, fields: namespaceFields, subresources: ['status', 'finalize'], names: fc.constantFrom('fz-ns-0', 'fz-ns-1', 'fz-ns-2') }),
  resource({ group: 'fuzz.example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, fields: widgetFields, subresources: ['status', 'scale'], builtin: false }),
  resource({ group: 'fuzz.example.com', version: 'v1beta1', resource: 'widgets', kind: 'Widget', namespaced: true, fields: widgetFields, subresources: ['status', 'scale'], builtin: false }),
  resource({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    fields: crdFields,
    subresources: ['status'],
    names: fc.constantFrom('gadgets.fz.example.com', 'gizmos.fz.example.com'),
  }),
];

export function apiVersionOf(r: FuzzResource): string {
  return r.group === '' ? r.version : `${r.group}/${r.version}`;
}

/** The collection path of a resource in `namespace` (ignored for cluster-scoped resources). */
export function collectionPath(r: FuzzResource, namespace: string): string {
  const root = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return r.namespaced ? `${root}/namespaces/${namespace}/${r.resource}` : `${root}/${r.resource}`;
}

/** A valid object of `r` named `name` in `namespace` (without the fuzzed extras). */
export function validObject(r: FuzzResource, name: string, namespace: string, fields: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: apiVersionOf(r),
    kind: r.kind,
    metadata: { ...extra, name, ...(r.namespaced ? { namespace } : {}) },
    ...fields,
  };
}
