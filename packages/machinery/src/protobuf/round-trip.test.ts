import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, encodeEnvelope, PROTOBUF_MAGIC, ProtobufDecodeError } from './envelope.js';
import { decodeList, decodeObject, decodeWatchFrames, encodeList, encodeObjectRaw, encodeWatchFrame, envelopeObject } from './object-codec.js';
import { protobufKinds } from './kind-codecs.js';

const metadata = {
  name: 'sample',
  generateName: 'sam-',
  namespace: 'team-a',
  selfLink: '/api/v1/namespaces/team-a/things/sample',
  uid: '3c1b1a5e-6a3e-4a35-9a57-0d2f2b4f1e11',
  resourceVersion: '12345',
  generation: 7,
  creationTimestamp: '2024-02-29T23:59:59Z',
  deletionTimestamp: '2030-01-01T00:00:00Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'shop', 'example.com/tier': 'web' },
  annotations: { note: 'ünïcödé ✓', empty: '' },
  ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'owner', uid: 'u-1', controller: true, blockOwnerDeletion: false },
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'u-2' },
  ],
  finalizers: ['example.com/cleanup', 'kubernetes'],
  managedFields: [
    { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2024-03-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    { manager: 'ctrl', operation: 'Update', apiVersion: 'v1', time: '2024-03-01T00:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} }, subresource: 'status' },
  ],
};

/** One canonical sample (kube's JSON form) of every kind kapi serves as protobuf. */
const samples: Record<string, Record<string, unknown>> = {
  'v1/Namespace': {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { ...metadata, namespace: undefined },
    spec: { finalizers: ['kubernetes'] },
    status: {
      phase: 'Terminating',
      conditions: [
        { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ContentDeleted', message: 'All content successfully deleted' },
        { type: 'NamespaceFinalizersRemaining', status: '' },
      ],
    },
  },
  'v1/ConfigMap': { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: '1', 'b.txt': 'line\nline', empty: '' }, binaryData: { bin: 'AAEC/w==', none: '' }, immutable: false },
  'v1/Secret': { apiVersion: 'v1', kind: 'Secret', metadata, data: { password: Buffer.from([0, 1, 2, 255, 254]).toString('base64') }, type: 'kubernetes.io/basic-auth', stringData: { user: 'admin' }, immutable: true },
  'v1/ServiceAccount': {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata,
    secrets: [{ name: 'token' }, { kind: 'Secret', namespace: 'team-a', name: 'x', uid: 'u', apiVersion: 'v1', resourceVersion: '1', fieldPath: 'f' }],
    imagePullSecrets: [{ name: 'registry' }, {}],
    automountServiceAccountToken: false,
  },
  'v1/Event': {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web-1', uid: 'u-3', apiVersion: 'v1', resourceVersion: '9', fieldPath: 'spec.containers{web}' },
    reason: 'Pulled',
    message: 'Container image pulled',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:01:00Z',
    count: 2,
    type: 'Normal',
    eventTime: '2024-01-01T00:00:00.123456Z',
    series: { count: 4, lastObservedTime: '2024-01-01T00:02:00.000001Z' },
    action: 'Pulling',
    related: { kind: 'Node', name: 'node-1' },
    reportingComponent: 'kubelet',
    reportingInstance: '',
  },
  'coordination.k8s.io/v1/Lease': {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata,
    spec: {
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: '2024-01-01T00:00:00.000000Z',
      renewTime: '2024-01-01T00:00:10.500000Z',
      leaseTransitions: 3,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'node-2',
    },
  },
  'coordination.k8s.io/v1beta1/Lease': {
    apiVersion: 'coordination.k8s.io/v1beta1',
    kind: 'Lease',
    metadata,
    spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2024-01-01T00:00:10.500000Z', leaseTransitions: 0 },
  },
  'events.k8s.io/v1/Event': {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata,
    eventTime: '2024-01-01T00:00:00.123456Z',
    series: { count: 4, lastObservedTime: '2024-01-01T00:02:00.000001Z' },
    reportingController: 'example.com/ctrl',
    reportingInstance: 'ctrl-1',
    action: 'Reconcile',
    reason: 'Synced',
    regarding: { kind: 'Pod', namespace: 'team-a', name: 'web-1', uid: 'u-3', apiVersion: 'v1', resourceVersion: '9', fieldPath: 'spec.containers{web}' },
    related: { kind: 'Node', name: 'node-1' },
    note: 'All good',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2024-01-01T00:01:00Z',
    deprecatedCount: 2,
  },
  'events.k8s.io/v1beta1/Event': {
    apiVersion: 'events.k8s.io/v1beta1',
    kind: 'Event',
    metadata,
    eventTime: '2024-01-01T00:00:00.123456Z',
    reportingController: 'example.com/ctrl',
    reportingInstance: 'ctrl-1',
    action: 'Reconcile',
    reason: 'Synced',
    regarding: { kind: 'Pod', name: 'web-1' },
    note: 'All good',
    type: 'Warning',
    deprecatedSource: {},
  },
  'v1/Status': {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: { resourceVersion: '5', continue: 'tok' },
    status: 'Failure',
    message: 'ConfigMap "x" is invalid: data[a b]: Invalid value',
    reason: 'Invalid',
    details: { name: 'x', group: 'apps', kind: 'ConfigMap', uid: 'u', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data[a b]' }, {}], retryAfterSeconds: 3 },
    code: 422,
  },
  'meta.k8s.io/v1/DeleteOptions': {
    apiVersion: 'meta.k8s.io/v1',
    kind: 'DeleteOptions',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u', resourceVersion: '' },
    orphanDependents: false,
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
    ignoreStoreReadErrorWithClusterBreakingPotential: true,
  },
  'meta.k8s.io/v1/PartialObjectMetadata': { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata },
  'meta.k8s.io/v1beta1/PartialObjectMetadata': { apiVersion: 'meta.k8s.io/v1beta1', kind: 'PartialObjectMetadata', metadata },
};

/** JSON.parse(JSON.stringify(x)): drops undefined fields, as a JSON client would see them. */
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

void describe('protobuf round trip', () => {
  void it('every sample is a kind served as protobuf', () => {
    const served = new Set(protobufKinds().map((k) => `${k.apiVersion}/${k.kind}`));
    assert.deepEqual(Object.keys(samples).filter((key) => !served.has(key)), []);
  });

  for (const [key, sample] of Object.entries(samples)) {
    void it(`JSON → protobuf → JSON is lossless for ${key}`, () => {
      const obj = json(sample);
      const bytes = envelopeObject(obj, encodeObjectRaw(obj));
      assert.deepEqual([...bytes.subarray(0, 4)], [...PROTOBUF_MAGIC]);
      const decoded = decodeObject(bytes, { apiVersion: obj['apiVersion'] as string, kind: obj['kind'] as string });
      assert.equal(decoded.apiVersion, obj['apiVersion']);
      assert.equal(decoded.kind, obj['kind']);
      assert.deepEqual(decoded.object, obj);
    });
  }

  void it('lists carry ListMeta and items; items come back typed by the list', () => {
    const a = json(samples['v1/ConfigMap']!);
    const b = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'x' }, data: { k: 'v' } };
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '99', continue: 'next', remainingItemCount: 0 }, items: [a, b] };
    const bytes = encodeList(list, (i) => encodeObjectRaw(list.items[i]!));
    assert.deepEqual(decodeList(bytes), json(list));
    const empty = { apiVersion: 'coordination.k8s.io/v1', kind: 'LeaseList', metadata: {}, items: [] };
    assert.deepEqual(decodeList(encodeList(empty, () => new Uint8Array())), empty);
  });

  void it('watch frames are a 4-byte big-endian length and a WatchEvent holding the enveloped object', () => {
    const cm = json(samples['v1/ConfigMap']!);
    const frame = encodeWatchFrame('MODIFIED', envelopeObject(cm, encodeObjectRaw(cm)));
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const bookmark = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '12' } };
    const two = Buffer.concat([frame, encodeWatchFrame('BOOKMARK', envelopeObject(bookmark, encodeObjectRaw(bookmark)))]);
    const partial = decodeWatchFrames(two.subarray(0, two.length - 3));
    assert.equal(partial.events.length, 1);
    assert.equal(partial.rest.length, two.length - 3 - frame.length);
    const { events, rest } = decodeWatchFrames(two);
    assert.equal(rest.length, 0);
    assert.deepEqual(events.map((e) => [e.type, e.object.object]), [['MODIFIED', cm], ['BOOKMARK', bookmark]]);
  });
});

void describe('protobuf decoding follows kube\'s Go JSON rules', () => {
  const encodeAs = (kind: string, message: Record<string, unknown>) => {
    const sample = samples[kind]!;
    const raw = (protobufKinds().find((k) => `${k.apiVersion}/${k.kind}` === kind)!.codec.type.encode(message) as { finish(): Uint8Array }).finish();
    return decodeObject(encodeEnvelope(sample['apiVersion'] as string, sample['kind'] as string, raw), { apiVersion: sample['apiVersion'] as string, kind: sample['kind'] as string }).object;
  };

  void it('drops zero values of omitempty fields a Go client always writes, keeps pointers and required strings, writes zero value times as null', () => {
    const decoded = encodeAs('v1/Event', {
      metadata: { name: 'e', generateName: '', namespace: 'ns', selfLink: '', uid: '', resourceVersion: '', generation: 0, creationTimestamp: {} },
      involvedObject: { kind: '', name: '' },
      reason: '',
      source: {},
      firstTimestamp: {},
      count: 0,
      eventTime: {},
      reportingComponent: '',
      reportingInstance: '',
    });
    assert.deepEqual(decoded, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'ns', creationTimestamp: null },
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
    const lease = encodeAs('coordination.k8s.io/v1/Lease', { metadata: {}, spec: { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 } });
    assert.deepEqual(lease['spec'], { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 });
  });

  void it('reads Time at second precision and MicroTime at microsecond precision', () => {
    const decoded = encodeAs('v1/Event', { metadata: { creationTimestamp: { seconds: 1700000000, nanos: 999999999 } }, eventTime: { seconds: 1700000000, nanos: 123456789 } });
    assert.equal((decoded['metadata'] as Record<string, unknown>)['creationTimestamp'], '2023-11-14T22:13:20Z');
    assert.equal(decoded['eventTime'], '2023-11-14T22:13:20.123456Z');
  });

  void it('writes a Time with a zone offset as UTC', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z', creationTimestamp: '2024-01-01T02:00:00+02:00' } };
    const decoded = decodeObject(envelopeObject(obj, encodeObjectRaw(obj)), { apiVersion: 'v1', kind: 'ConfigMap' }).object;
    assert.equal((decoded['metadata'] as Record<string, unknown>)['creationTimestamp'], '2024-01-01T00:00:00Z');
  });

  void it('leaves apiVersion and kind out when the envelope has none (the endpoint defaults them)', () => {
    const raw = encodeObjectRaw({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' } });
    assert.deepEqual(decodeObject(encodeEnvelope('', '', raw), { apiVersion: 'v1', kind: 'ConfigMap' }).object, { metadata: { name: 'n' } });
  });
});

void describe('protobuf envelope errors carry kube\'s texts', () => {
  const fails = (data: Uint8Array, message: string) =>
    assert.throws(() => decodeEnvelope(data), (err: unknown) => err instanceof ProtobufDecodeError && err.message === message);

  void it('rejects empty data, a missing or wrong magic, and a bare magic', () => {
    fails(new Uint8Array(), 'empty data');
    fails(Buffer.from('{"kind":"ConfigMap"}'), 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    fails(Buffer.from('k8s'), 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    fails(Buffer.from('k8s\u0001abc'), 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    fails(Buffer.from('k8s\u0000'), 'empty body');
  });

  void it('reports truncated messages as unexpected EOF', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' }, data: { a: 'b' } };
    const bytes = envelopeObject(obj, encodeObjectRaw(obj));
    assert.throws(() => decodeEnvelope(bytes.subarray(0, bytes.length - 3)), (err: unknown) => err instanceof ProtobufDecodeError && err.message === 'unexpected EOF');
  });
});
