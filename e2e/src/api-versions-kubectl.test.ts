/**
 * kubectl against several versions of built-ins: an Event created through core v1 read as
 * events.k8s.io/v1, deprecated versions printing kube's warning, and the
 * apiserver_requested_deprecated_apis metric naming exactly the deprecated versions called.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';

let cluster: TestCluster;
before(async () => {
  cluster = await startCluster({ server: { extraArgs: ['--runtime-config=coordination.k8s.io/v1beta1=true,events.k8s.io/v1beta1=true'] } });
});
after(async () => {
  await cluster?.stop();
});

const LEASE_WARNING = 'Warning: coordination.k8s.io/v1beta1 Lease is deprecated in v1.19+, unavailable in v1.22+; use coordination.k8s.io/v1 Lease';
const EVENT_WARNING = 'Warning: events.k8s.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+; use events.k8s.io/v1 Event';

void test('an Event created through core v1 reads through events.k8s.io/v1 with its field names', async () => {
  const manifest = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e2e-pulled', namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0' },
    reason: 'Pulled',
    message: 'image pulled',
    source: { component: 'kubelet' },
    type: 'Normal',
  });
  await cluster.kubectl().ok(['create', '-f', '-'], manifest);
  const out = JSON.parse(await cluster.kubectl().ok(['get', 'events.v1.events.k8s.io', 'e2e-pulled', '-o', 'json'])) as Record<string, unknown>;
  assert.equal(out['apiVersion'], 'events.k8s.io/v1');
  assert.equal(out['note'], 'image pulled');
  assert.deepEqual(out['regarding'], { kind: 'Pod', namespace: 'default', name: 'web-0' });
  assert.deepEqual(out['deprecatedSource'], { component: 'kubelet' });
  // kubectl's table for events.k8s.io is kube's event printer.
  const table = await cluster.kubectl().ok(['get', 'events.v1.events.k8s.io']);
  assert.match(table, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
  assert.match(table, /Normal\s+Pulled\s+pod\/web-0\s+image pulled/);
  // kubectl explain reads the events.k8s.io schema from OpenAPI v3.
  const explain = await cluster.kubectl().ok(['explain', 'events.deprecatedSource', '--api-version=events.k8s.io/v1']);
  assert.match(explain, /^GROUP:\s+events\.k8s\.io$/m);
  assert.match(explain, /^FIELD: deprecatedSource <EventSource>$/m);
  assert.match(explain, /^\s+component\s+<string>$/m);
});

void test('kubectl prints the deprecation warning of v1beta1 Leases and Events; v1 stays quiet', async () => {
  const lease = JSON.stringify({ apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', metadata: { name: 'e2e-old', namespace: 'default' }, spec: { holderIdentity: 'me' } });
  const created = await cluster.kubectl().run(['create', '-f', '-'], lease);
  assert.equal(created.code, 0, created.stderr);
  assert.ok(created.stderr.includes(LEASE_WARNING), created.stderr);
  const got = await cluster.kubectl().run(['get', 'leases.v1beta1.coordination.k8s.io', '-n', 'default']);
  assert.equal(got.code, 0, got.stderr);
  assert.equal(got.stderr.trim(), LEASE_WARNING);
  assert.match(got.stdout, /^e2e-old\s+me\s+/m);
  const events = await cluster.kubectl().run(['get', 'events.v1beta1.events.k8s.io', '-n', 'default', '-o', 'name']);
  assert.equal(events.code, 0, events.stderr);
  assert.equal(events.stderr.trim(), EVENT_WARNING);
  const quiet = await cluster.kubectl().run(['get', 'leases.v1.coordination.k8s.io', '-n', 'default']);
  assert.equal(quiet.stderr, '');
});

void test('/metrics names exactly the deprecated versions called, with kube\'s labels', async () => {
  const metrics = await cluster.kubectl().ok(['get', '--raw', '/metrics']);
  const lines = metrics.split('\n').filter((l) => l.startsWith('apiserver_requested_deprecated_apis{'));
  assert.deepEqual(lines.sort(), [
    'apiserver_requested_deprecated_apis{group="coordination.k8s.io",version="v1beta1",resource="leases",subresource="",removed_release="1.22"} 1',
    'apiserver_requested_deprecated_apis{group="events.k8s.io",version="v1beta1",resource="events",subresource="",removed_release="1.25"} 1',
  ]);
  const version = JSON.parse(await cluster.kubectl().ok(['get', '--raw', '/version'])) as { major: string; minor: string };
  assert.deepEqual([version.major, version.minor], ['1', '32']);
});
