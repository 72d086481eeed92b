/**
 * Several versions of one resource over HTTP (real etcd): core v1 Events seen through
 * events.k8s.io/v1 and v1beta1 and back, watches across versions, the deprecated versions'
 * warnings and metric, discovery and OpenAPI of the new versions, and --runtime-config.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeList, decodeObject, encodeObjectRaw, envelopeObject } from '@kapi/machinery';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch } from './testing/watch-client.js';

const CORE = '/api/v1/namespaces/default/events';
const EV1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const EV1B1 = '/apis/events.k8s.io/v1beta1/namespaces/default/events';
const LEASES_B1 = '/apis/coordination.k8s.io/v1beta1/namespaces/default/leases';
const PB = 'application/vnd.kubernetes.protobuf';
const EVENTS_WARNING = '299 - "events.k8s.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+; use events.k8s.io/v1 Event"';
const LEASES_WARNING = '299 - "coordination.k8s.io/v1beta1 Lease is deprecated in v1.19+, unavailable in v1.22+; use coordination.k8s.io/v1 Lease"';

const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u-1' },
  reason: 'Pulled',
  message: 'Container image pulled',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:00:05Z',
  count: 2,
  type: 'Normal',
});

const newEvent = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-1',
  action: 'Reconcile',
  reason: 'Synced',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web-1' },
  note: 'All good',
  type: 'Normal',
  ...extra,
});

void describe('API versions: events.k8s.io over core Events, deprecated versions', () => {
  let t: TestServer;
  before(async () => {
    // Both deprecated versions are off by default (kube 1.32 no longer has them).
    t = await startTestServer({ runtimeConfig: { 'coordination.k8s.io/v1beta1': 'true', 'events.k8s.io/v1beta1': 'true' } });
  });
  after(async () => t.close());

  void it('a core v1 Event reads through events.k8s.io/v1 and v1beta1 with kube\'s field names', async () => {
    const created = await t.request('POST', CORE, { body: coreEvent('pulled') });
    assert.equal(created.status, 201, created.text);
    const v1 = await t.request('GET', `${EV1}/pulled`);
    assert.equal(v1.status, 200);
    assert.equal(v1.headers.get('warning'), null);
    const { metadata, ...rest } = v1.json;
    assert.equal((metadata as { resourceVersion: string }).resourceVersion, (created.json['metadata'] as { resourceVersion: string }).resourceVersion);
    assert.deepEqual(rest, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      // Not omitempty in events.k8s.io/v1: kube writes the zero time as null.
      eventTime: null,
      reason: 'Pulled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u-1' },
      note: 'Container image pulled',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2024-01-01T00:00:05Z',
      deprecatedCount: 2,
    });
    const v1beta1 = await t.request('GET', `${EV1B1}/pulled`);
    assert.equal(v1beta1.status, 200);
    assert.equal(v1beta1.headers.get('warning'), EVENTS_WARNING);
    assert.equal(v1beta1.json['apiVersion'], 'events.k8s.io/v1beta1');
    assert.equal(v1beta1.json['note'], 'Container image pulled');
    // Back through core, unchanged.
    const core = await t.request('GET', `${CORE}/pulled`);
    assert.deepEqual(core.json, created.json);
  });

  void it('an events.k8s.io/v1 Event reads through core v1; updates through either keep the other\'s view', async () => {
    const created = await t.request('POST', EV1, { body: newEvent('synced') });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json['apiVersion'], 'events.k8s.io/v1');
    const core = await t.request('GET', `${CORE}/synced`);
    assert.equal(core.json['apiVersion'], 'v1');
    assert.equal(core.json['reportingComponent'], 'example.com/controller');
    assert.equal(core.json['message'], 'All good');
    assert.deepEqual(core.json['involvedObject'], { kind: 'Pod', namespace: 'default', name: 'web-1' });
    assert.equal(core.json['regarding'], undefined);
    // A core update (series) shows through events.k8s.io/v1.
    const series = { count: 2, lastObservedTime: '2024-01-01T00:00:09.000000Z' };
    const updated = await t.request('PUT', `${CORE}/synced`, { body: { ...core.json, series } });
    assert.equal(updated.status, 200, updated.text);
    const v1 = await t.request('GET', `${EV1}/synced`);
    assert.deepEqual(v1.json['series'], series);
    // managedFields keep the version each manager wrote with.
    const entries = (v1.json['metadata'] as { managedFields: { apiVersion: string }[] }).managedFields.map((e) => e.apiVersion);
    assert.deepEqual(entries.sort(), ['events.k8s.io/v1', 'v1']);
  });

  void it('events.k8s.io/v1 validates strictly (kube\'s internal field paths); v1beta1 and core only the legacy rules', async () => {
    const bad = await t.request('POST', EV1, {
      body: newEvent('strict', { eventTime: undefined, type: 'Odd', deprecatedCount: 3, deprecatedSource: { component: 'x' } }),
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.json['message'],
      'Event.events.k8s.io "strict" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Odd, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]',
    );
    const beta = await t.request('POST', EV1B1, { body: { ...newEvent('lenient', { eventTime: undefined, type: 'Odd', deprecatedCount: 3 }), apiVersion: 'events.k8s.io/v1beta1' } });
    assert.equal(beta.status, 201, beta.text);
    assert.equal(beta.headers.get('warning'), EVENTS_WARNING);
    const series = await t.request('POST', EV1, { body: newEvent('series', { series: { count: 1 } }) });
    assert.equal(series.status, 422);
    assert.equal(series.json['message'], 'Event.events.k8s.io "series" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]');
    const betaSeries = await t.request('POST', EV1B1, { body: { ...newEvent('series'), apiVersion: 'events.k8s.io/v1beta1', series: { count: 1 } } });
    assert.equal(betaSeries.status, 201, betaSeries.text);
    const immutable = await t.request('PATCH', `${EV1}/synced`, { body: { note: 'changed' }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(immutable.status, 422);
    assert.equal(immutable.json['message'], 'Event.events.k8s.io "synced" is invalid: message: Invalid value: "changed": field is immutable');
    const moved = await t.request('PATCH', `${EV1}/synced`, {
      body: { regarding: { kind: 'Pod', name: 'web-2' }, deprecatedLastTimestamp: '2024-01-01T00:00:01Z' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(moved.status, 422);
    assert.equal(
      moved.json['message'],
      'Event.events.k8s.io "synced" is invalid: [involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"web-2", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable, ' +
        'lastTimestamp: Invalid value: 2024-01-01 00:00:01 +0000 UTC: field is immutable]',
    );
    const legacy = await t.request('PATCH', `${CORE}/synced`, { body: { message: 'changed' }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(legacy.status, 200, legacy.text);
  });

  void it('field selectors use each group\'s names; the wrong group\'s names are refused', async () => {
    const byRegarding = await t.request('GET', `${EV1}?fieldSelector=${encodeURIComponent('regarding.name=web-0,reportingController=')}`);
    assert.equal(byRegarding.status, 200);
    assert.deepEqual((byRegarding.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name), ['pulled']);
    // Only core v1 names `source` (kube 1.32's events.k8s.io/v1 refuses it).
    const bySource = await t.request('GET', `${EV1}?fieldSelector=source%3Dkubelet`);
    assert.deepEqual([bySource.status, bySource.json['message']], [400, 'field label not supported: source']);
    const byCoreSource = await t.request('GET', `${CORE}?fieldSelector=source%3Dkubelet`);
    assert.equal(byCoreSource.status, 200);
    const wrong = await t.request('GET', `${EV1}?fieldSelector=involvedObject.name%3Dweb-0`);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json['message'], 'field label not supported: involvedObject.name');
    const wrongCore = await t.request('GET', `${CORE}?fieldSelector=regarding.name%3Dweb-0`);
    assert.equal(wrongCore.status, 400);
  });

  void it('a watch through one version sees writes through another, in its own form', async () => {
    const list = await t.request('GET', EV1);
    const rv = (list.json['metadata'] as { resourceVersion: string }).resourceVersion;
    const watch = await openWatch(t.url, `${EV1}?watch=1&resourceVersion=${rv}`);
    const coreWatch = await openWatch(t.url, `${CORE}?watch=1&resourceVersion=${rv}`);
    assert.ok(isWatchClient(watch) && isWatchClient(coreWatch));
    try {
      assert.equal((await t.request('POST', CORE, { body: coreEvent('watched') })).status, 201);
      assert.equal((await t.request('POST', EV1B1, { body: { ...newEvent('watched-2'), apiVersion: 'events.k8s.io/v1beta1' } })).status, 201);
      const [a, b] = await watch.take(2, 5000);
      assert.equal(a!.type, 'ADDED');
      assert.equal(a!.object['apiVersion'], 'events.k8s.io/v1');
      assert.equal(a!.object['note'], 'Container image pulled');
      assert.equal(b!.object['apiVersion'], 'events.k8s.io/v1');
      assert.equal(b!.object['reportingController'], 'example.com/controller');
      const [c, d] = await coreWatch.take(2, 5000);
      assert.equal(c!.object['apiVersion'], 'v1');
      assert.equal(d!.object['reportingComponent'], 'example.com/controller');
      assert.equal(d!.object['message'], 'All good');
    } finally {
      watch.close();
      coreWatch.close();
    }
  });

  void it('Tables through events.k8s.io use kube\'s event columns', async () => {
    const table = await t.request('GET', `${EV1}/pulled`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(table.status, 200);
    const names = (table.json['columnDefinitions'] as { name: string }[]).map((c) => c.name);
    assert.deepEqual(names, ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    const cells = (table.json['rows'] as { cells: unknown[] }[])[0]!.cells;
    assert.deepEqual(cells.slice(1, 4), ['Normal', 'Pulled', 'pod/web-0']);
    assert.equal(cells[5], 'kubelet, node-1');
    assert.equal(cells[8], 2);
  });

  void it('protobuf: events.k8s.io/v1 bodies and responses with k8s.io/api field numbers; v1beta1 Leases too', async () => {
    const body = newEvent('pb-event');
    const res = await fetch(`${t.url}${EV1}`, { method: 'POST', headers: { 'content-type': PB, accept: PB }, body: envelopeObject(body, encodeObjectRaw(body)) });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), PB);
    const created = decodeObject(Buffer.from(await res.arrayBuffer()), { apiVersion: 'events.k8s.io/v1', kind: 'Event' }).object as Record<string, unknown>;
    assert.equal(created['note'], 'All good');
    assert.deepEqual(created['regarding'], { kind: 'Pod', namespace: 'default', name: 'web-1' });
    const core = await t.request('GET', `${CORE}/pb-event`);
    assert.equal(core.json['message'], 'All good');
    const list = await fetch(`${t.url}${EV1B1}`, { headers: { accept: PB } });
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('warning'), EVENTS_WARNING);
    const decoded = decodeList(Buffer.from(await list.arrayBuffer()));
    assert.equal(decoded.apiVersion, 'events.k8s.io/v1beta1');
    assert.ok(decoded.items.some((i) => i['note'] === 'All good'));
    const lease = { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', metadata: { name: 'pb-lease' }, spec: { holderIdentity: 'pb', leaseDurationSeconds: 5 } };
    const leaseRes = await fetch(`${t.url}${LEASES_B1}`, { method: 'POST', headers: { 'content-type': PB, accept: PB }, body: envelopeObject(lease, encodeObjectRaw(lease)) });
    assert.equal(leaseRes.status, 201);
    const leaseObj = decodeObject(Buffer.from(await leaseRes.arrayBuffer()), { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease' }).object as Record<string, unknown>;
    assert.deepEqual(leaseObj['spec'], lease.spec);
  });

  void it('v1beta1 Leases: every response carries the warning; the metric joins apiserver_request_total', async () => {
    const body = { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', metadata: { name: 'old' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 10 } };
    const created = await t.request('POST', LEASES_B1, { body });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('warning'), LEASES_WARNING);
    const missing = await t.request('GET', `${LEASES_B1}/absent`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('warning'), LEASES_WARNING);
    const v1 = await t.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/old');
    assert.equal(v1.json['apiVersion'], 'coordination.k8s.io/v1');
    assert.deepEqual(v1.json['spec'], body.spec);
    assert.equal(v1.headers.get('warning'), null);
    const metrics = (await t.request('GET', '/metrics')).text;
    const deprecated = metrics.split('\n').filter((l) => l.startsWith('apiserver_requested_deprecated_apis{'));
    assert.deepEqual(deprecated.sort(), [
      'apiserver_requested_deprecated_apis{group="coordination.k8s.io",version="v1beta1",resource="leases",subresource="",removed_release="1.22"} 1',
      'apiserver_requested_deprecated_apis{group="events.k8s.io",version="v1beta1",resource="events",subresource="",removed_release="1.25"} 1',
    ]);
    // The PromQL join of kube's docs matches on group, version, resource and subresource.
    assert.match(metrics, /^apiserver_request_total\{[^}]*verb="POST"[^}]*group="coordination\.k8s\.io"[^}]*version="v1beta1"[^}]*resource="leases"[^}]*subresource=""[^}]*code="201"[^}]*\} [12]$/m);
  });

  void it('discovery: both events.k8s.io versions (v1 preferred) with the storage version\'s hash, deprecated versions in aggregated discovery', async () => {
    const group = await t.request('GET', '/apis/events.k8s.io');
    assert.deepEqual(group.json['versions'], [
      { groupVersion: 'events.k8s.io/v1', version: 'v1' },
      { groupVersion: 'events.k8s.io/v1beta1', version: 'v1beta1' },
    ]);
    assert.deepEqual(group.json['preferredVersion'], { groupVersion: 'events.k8s.io/v1', version: 'v1' });
    const hashOf = async (path: string, name: string) =>
      ((await t.request('GET', path)).json['resources'] as { name: string; storageVersionHash: string }[]).find((r) => r.name === name)!.storageVersionHash;
    const coreHash = await hashOf('/api/v1', 'events');
    assert.equal(await hashOf('/apis/events.k8s.io/v1', 'events'), coreHash);
    assert.equal(await hashOf('/apis/events.k8s.io/v1beta1', 'events'), coreHash);
    assert.equal(await hashOf('/apis/coordination.k8s.io/v1beta1', 'leases'), await hashOf('/apis/coordination.k8s.io/v1', 'leases'));
    const aggregated = await t.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const groups = aggregated.json['items'] as { metadata: { name: string }; versions: { version: string }[] }[];
    assert.deepEqual(groups.find((g) => g.metadata.name === 'events.k8s.io')?.versions.map((v) => v.version), ['v1', 'v1beta1']);
    assert.deepEqual(groups.find((g) => g.metadata.name === 'coordination.k8s.io')?.versions.map((v) => v.version), ['v1', 'v1beta1']);
  });

  void it('OpenAPI v3 documents of the new versions carry their schemas', async () => {
    const index = await t.request('GET', '/openapi/v3');
    const paths = Object.keys(index.json['paths'] as object);
    for (const key of ['apis/events.k8s.io/v1', 'apis/events.k8s.io/v1beta1', 'apis/coordination.k8s.io/v1beta1']) assert.ok(paths.includes(key), key);
    const doc = await t.request('GET', '/openapi/v3/apis/events.k8s.io/v1');
    const schemas = (doc.json['components'] as { schemas: Record<string, { properties?: Record<string, unknown> }> }).schemas;
    assert.ok(schemas['io.k8s.api.events.v1.Event']?.properties?.['regarding']);
    assert.ok(schemas['io.k8s.api.events.v1.EventSeries']);
    const leases = await t.request('GET', '/openapi/v3/apis/coordination.k8s.io/v1beta1');
    assert.ok((leases.json['components'] as { schemas: Record<string, unknown> }).schemas['io.k8s.api.coordination.v1beta1.Lease']);
  });
});

void describe('--runtime-config', () => {
  let t: TestServer;
  before(async () => {
    // Every beta off, then events.k8s.io/v1beta1 back on; core configmaps off by resource.
    t = await startTestServer({ runtimeConfig: { 'api/beta': 'false', 'events.k8s.io/v1beta1': 'true', 'v1/configmaps': 'false' } });
  });
  after(async () => t.close());

  void it('disabled versions and resources vanish from routes, discovery and OpenAPI; the rest is served', async () => {
    assert.equal((await t.request('GET', LEASES_B1)).status, 404);
    assert.equal((await t.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases')).status, 200);
    assert.equal((await t.request('GET', EV1B1)).status, 200);
    assert.equal((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status, 404);
    assert.equal((await t.request('GET', '/api/v1/namespaces/default/secrets')).status, 200);
    const coordination = await t.request('GET', '/apis/coordination.k8s.io');
    assert.deepEqual(coordination.json['versions'], [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }]);
    assert.equal((await t.request('GET', '/apis/coordination.k8s.io/v1beta1')).status, 404);
    const core = (await t.request('GET', '/api/v1')).json['resources'] as { name: string }[];
    assert.ok(!core.some((r) => r.name === 'configmaps'));
    const paths = Object.keys((await t.request('GET', '/openapi/v3')).json['paths'] as object);
    assert.ok(!paths.includes('apis/coordination.k8s.io/v1beta1'));
    assert.ok(paths.includes('apis/events.k8s.io/v1beta1'));
    assert.equal((await t.request('GET', '/openapi/v3/apis/coordination.k8s.io/v1beta1')).status, 404);
  });
});
