/**
 * Values a built-in kind's Go type cannot hold are refused on every write path, with kube's
 * status and texts (checked against kube-apiserver 1.32): POST/PUT 400 `<Kind> in version
 * "v1" cannot be handled as a <Kind>: <Go decoder error>`, JSON/merge/strategic merge
 * patches 422 against the patched object (the patch for SMP), apply 400 (kube: 500). For a
 * strategic merge patch kube's detail for a type mismatch is its map converter's (`cannot
 * convert int64 to string`); kapi's is the JSON decoder's (see decode-failures.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const NS = '/api/v1/namespaces/default';
const CM = `${NS}/configmaps`;
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const EVENTS = `${NS}/events`;
const EVENTS_V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MICRO = '2024-01-02T03:04:05.000006Z';

const cmDecode = (detail: string) => `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${detail}`;
const leaseDecode = (detail: string) => `Lease in version "v1" cannot be handled as a Lease: ${detail}`;
const YESTERDAY_MICRO = 'parsing time "yesterday" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "yesterday" as "2006"';

void describe('typed values: what the Go types cannot hold is refused on every write path', () => {
  let t: TestServer;
  /** Sends `raw` JSON text (numbers exactly as written) and returns status and message. */
  const send = async (method: string, path: string, raw: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await t.request(method, path, { raw, headers });
    return { status: res.status, message: res.json['message'] as string | undefined, json: res.json, text: res.text };
  };
  const expectRefused = async (method: string, path: string, raw: string, status: number, message: string, headers?: Record<string, string>) => {
    const res = await send(method, path, raw, headers);
    assert.deepEqual({ status: res.status, message: res.message }, { status, message }, raw);
    assert.equal(res.json['reason'], status === 400 ? 'BadRequest' : 'Invalid');
  };
  const absent = async (path: string) => assert.equal((await t.request('GET', path)).status, 404, `${path} was stored`);

  before(async () => {
    t = await startTestServer({ controllers: { garbageCollector: false }, runtimeConfig: { 'coordination.k8s.io/v1beta1': 'true' } });
  });
  after(async () => t.close());

  void it('create: out-of-range and fractional integers, unparsable times, wrong JSON types in metadata (issue 17 #3, #7e)', async () => {
    const cases: [string, string][] = [
      ['"generation":1e29', 'json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.metadata.generation of type int64'],
      ['"generation":1.5', 'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64'],
      ['"generation":9223372036854775808', 'json: cannot unmarshal number 9223372036854776000 into Go struct field ObjectMeta.metadata.generation of type int64'],
      ['"generation":"1"', 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64'],
      ['"deletionGracePeriodSeconds":1.5', 'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type int64'],
      ['"creationTimestamp":"yesterday"', 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
      ['"deletionTimestamp":"2024"', 'parsing time "2024" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "-"'],
      ['"creationTimestamp":5', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string'],
      ['"managedFields":[{"manager":"m","time":"now"}]', 'parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"'],
      ['"labels":{"a":1}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
      ['"annotations":[]', 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.annotations of type map[string]string'],
      ['"finalizers":"x"', 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'],
      ['"uid":5', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID'],
      [
        '"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"n","uid":"u","controller":"yes"}]',
        'json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool',
      ],
      // A time error stops decoding; an earlier type mismatch does not win over it.
      ['"generation":1e29,"creationTimestamp":"yesterday"', 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ];
    for (const [meta, detail] of cases) await expectRefused('POST', CM, `{"metadata":{"name":"poison",${meta}}}`, 400, cmDecode(detail));
    await expectRefused('POST', CM, '{"metadata":{"name":"poison"},"binaryData":{"a":"YWJj!"}}', 400, cmDecode('illegal base64 data at input byte 4'));
    await absent(`${CM}/poison`);
  });

  void it('create: every metav1.Time and MicroTime field of the built-ins, and int32 fields', async () => {
    await expectRefused('POST', LEASES, `{"metadata":{"name":"l"},"spec":{"renewTime":"yesterday"}}`, 400, leaseDecode(YESTERDAY_MICRO));
    // MicroTime needs exactly six fraction digits.
    await expectRefused(
      'POST',
      LEASES,
      `{"metadata":{"name":"l"},"spec":{"acquireTime":"2024-01-02T03:04:05Z"}}`,
      400,
      leaseDecode('parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
    );
    await expectRefused(
      'POST',
      LEASES,
      `{"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":2147483648}}`,
      400,
      leaseDecode('json: cannot unmarshal number 2147483648 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32'),
    );
    await expectRefused(
      'POST',
      '/apis/coordination.k8s.io/v1beta1/namespaces/default/leases',
      `{"metadata":{"name":"l"},"spec":{"renewTime":"yesterday"}}`,
      400,
      `Lease in version "v1beta1" cannot be handled as a Lease: ${YESTERDAY_MICRO}`,
    );
    const event = (fields: string) => `{"metadata":{"name":"e"},"involvedObject":{"name":"x","namespace":"default"},${fields}}`;
    const eventDecode = (detail: string) => `Event in version "v1" cannot be handled as a Event: ${detail}`;
    await expectRefused('POST', EVENTS, event('"firstTimestamp":"x"'), 400, eventDecode('parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'));
    await expectRefused('POST', EVENTS, event('"lastTimestamp":"x"'), 400, eventDecode('parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'));
    await expectRefused(
      'POST',
      EVENTS,
      event('"eventTime":"2024-01-02T03:04:05Z"'),
      400,
      eventDecode('parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
    );
    await expectRefused('POST', EVENTS, event('"series":{"lastObservedTime":"x"}'), 400, eventDecode('parsing time "x" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "x" as "2006"'));
    await expectRefused('POST', EVENTS, event('"count":2147483648'), 400, eventDecode('json: cannot unmarshal number 2147483648 into Go struct field Event.count of type int32'));
    await expectRefused('POST', EVENTS, event('"series":{"count":1.5}'), 400, eventDecode('json: cannot unmarshal number 1.5 into Go struct field EventSeries.series.count of type int32'));
    for (const [field, detail] of [
      ['"eventTime":"x"', 'parsing time "x" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "x" as "2006"'],
      ['"deprecatedFirstTimestamp":"x"', 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'],
      ['"deprecatedLastTimestamp":"x"', 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'],
      ['"deprecatedCount":2147483648', 'json: cannot unmarshal number 2147483648 into Go struct field Event.deprecatedCount of type int32'],
      ['"series":{"count":1,"lastObservedTime":"2024-01-02T03:04:05.1Z"}', 'parsing time "2024-01-02T03:04:05.1Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".1Z" as ".000000"'],
    ]) {
      await expectRefused('POST', EVENTS_V1, `{"metadata":{"name":"e"},${field!}}`, 400, eventDecode(detail!));
    }
    await expectRefused(
      'POST',
      '/api/v1/namespaces',
      '{"metadata":{"name":"n-poison"},"spec":{"finalizers":[5]}}',
      400,
      'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName',
    );
    await absent(`${LEASES}/l`);
  });

  void it('accepts what the types hold: int32 bounds, both timestamp layouts, int64s (beyond 2^53 as the nearest double)', async () => {
    const lease = await send(
      'POST',
      LEASES,
      `{"metadata":{"name":"fine"},"spec":{"leaseDurationSeconds":2147483647,"leaseTransitions":0,"acquireTime":"${MICRO}","renewTime":"2024-01-02T03:04:05.123456+01:00"}}`,
    );
    assert.equal(lease.status, 201, lease.text);
    const cm = await send('POST', CM, `{"metadata":{"name":"big","generation":9007199254740993,"creationTimestamp":"2024-01-02T03:04:05.5Z"}}`);
    assert.equal(cm.status, 201, cm.text);
    // The literal survives as the double JSON.parse made of it; Go reads the stored decimal back as an int64.
    assert.match(cm.text, /"generation":9007199254740992\b/);
    const near = await send('POST', CM, `{"metadata":{"name":"near","generation":9223372036854774784}}`);
    assert.equal(near.status, 201, near.text);
    assert.match(near.text, /"generation":9223372036854775000\b/);
  });

  void it('update (PUT) and the status subresource decode the body the same way', async () => {
    const created = await send('POST', CM, '{"metadata":{"name":"u"},"data":{"a":"1"}}');
    const rv = (created.json['metadata'] as Record<string, unknown>)['resourceVersion'] as string;
    await expectRefused('PUT', `${CM}/u`, `{"metadata":{"name":"u","resourceVersion":"${rv}","generation":1e29}}`, 400, cmDecode('json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.metadata.generation of type int64'));
    await expectRefused('PUT', `${LEASES}/l-put`, `{"metadata":{"name":"l-put"},"spec":{"renewTime":"yesterday"}}`, 400, leaseDecode(YESTERDAY_MICRO));
    await absent(`${LEASES}/l-put`);
    const ns = await send('POST', '/api/v1/namespaces', '{"metadata":{"name":"typed-status"}}');
    assert.equal(ns.status, 201, ns.text);
    const nsRv = (ns.json['metadata'] as Record<string, unknown>)['resourceVersion'] as string;
    await expectRefused(
      'PUT',
      '/api/v1/namespaces/typed-status/status',
      `{"metadata":{"name":"typed-status","resourceVersion":"${nsRv}"},"status":{"phase":"Active","conditions":[{"type":"T","status":"True","lastTransitionTime":"soon"}]}}`,
      400,
      'Namespace in version "v1" cannot be handled as a Namespace: parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"',
    );
    const status = await send('PATCH', '/api/v1/namespaces/typed-status/status', '{"status":{"conditions":[{"type":"T","status":"True","lastTransitionTime":"soon"}]}}', MERGE);
    assert.equal(status.status, 422, status.text);
    assert.match(status.message!, /^ "" is invalid: patch: Invalid value: ".*": parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"$/s);
  });

  void it('patches: the patched object decodes or the patch is 422 (merge, JSON, strategic merge); apply 400', async () => {
    assert.equal((await send('POST', CM, '{"metadata":{"name":"p"},"data":{"a":"1"}}')).status, 201);
    const merge = await send('PATCH', `${CM}/p`, '{"metadata":{"generation":1e29}}', MERGE);
    assert.equal(merge.status, 422, merge.text);
    assert.match(merge.message!, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",.*\\"generation\\":1e\+29,.*": json: cannot unmarshal number 1e\+29 into Go struct field ObjectMeta.metadata.generation of type int64$/s);
    assert.deepEqual((merge.json['details'] as { causes: unknown[] }).causes.length, 1);
    const jsonPatch = await send('PATCH', `${CM}/p`, '[{"op":"add","path":"/metadata/creationTimestamp","value":"yesterday"}]', JSON_PATCH);
    assert.equal(jsonPatch.status, 422, jsonPatch.text);
    assert.match(jsonPatch.message!, /: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"$/);
    const smp = await send('PATCH', `${CM}/p`, '{"metadata":{"labels":{"a":1}}}', SMP);
    assert.deepEqual(
      { status: smp.status, message: smp.message },
      { status: 422, message: ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:map[a:1]]]": json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string' },
    );
    const lease = await send('POST', LEASES, `{"metadata":{"name":"lp"},"spec":{"holderIdentity":"h","renewTime":"${MICRO}"}}`);
    assert.equal(lease.status, 201, lease.text);
    const smpTime = await send('PATCH', `${LEASES}/lp`, '{"spec":{"renewTime":"x"}}', SMP);
    assert.deepEqual(
      { status: smpTime.status, message: smpTime.message },
      { status: 422, message: ' "" is invalid: patch: Invalid value: "map[spec:map[renewTime:x]]": parsing time "x" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "x" as "2006"' },
    );
    await expectRefused(
      'PATCH',
      `${LEASES}/lp?fieldManager=tester`,
      '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"lp"},"spec":{"leaseDurationSeconds":2147483648}}',
      400,
      'failed to convert new object (/lp; coordination.k8s.io/v1, Kind=Lease) to proper version: unable to convert unstructured object to coordination.k8s.io/v1, Kind=Lease: json: cannot unmarshal number 2147483648 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
      APPLY,
    );
    // Apply that would create the object is refused the same way, and creates nothing.
    await expectRefused(
      'PATCH',
      `${LEASES}/lp-new?fieldManager=tester`,
      '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"lp-new"},"spec":{"renewTime":"yesterday"}}',
      400,
      `failed to convert new object (/lp-new; coordination.k8s.io/v1, Kind=Lease) to proper version: unable to convert unstructured object to coordination.k8s.io/v1, Kind=Lease: ${YESTERDAY_MICRO}`,
      APPLY,
    );
    await absent(`${LEASES}/lp-new`);
    const stored = await t.request('GET', `${LEASES}/lp`);
    assert.deepEqual(stored.json['spec'], { holderIdentity: 'h', renewTime: MICRO });
    const cm = await t.request('GET', `${CM}/p`);
    assert.deepEqual([(cm.json['metadata'] as Record<string, unknown>)['generation'], (cm.json['metadata'] as Record<string, unknown>)['labels']], [undefined, undefined]);
  });
});
