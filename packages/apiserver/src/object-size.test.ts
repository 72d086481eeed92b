/**
 * Object size limits, as kube-apiserver 1.32 enforces them (checked against a real
 * kube-apiserver on etcd 3.4 with default limits): ConfigMap and Secret data over 1 MiB is a
 * 422 from validation; any other object whose etcd request is over etcd's 1.5 MiB is a 500
 * without a reason, `etcdserver: request is too large`, and over 2 MiB the etcd client's
 * send-limit error. Neither costs the server its etcd connection, watch caches or readiness.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Response, type TestServer } from './testing/fixture.js';
import { isWatchClient, openWatch, type WatchClient } from './testing/watch-client.js';
import { createEstablished, widgetCrd } from './crd-testing.js';

const MiB = 1024 * 1024;
const configMaps = '/api/v1/namespaces/default/configmaps';
const secrets = '/api/v1/namespaces/default/secrets';
const base64 = (bytes: number, fill = 'x') => Buffer.alloc(bytes, fill).toString('base64');

/**
 * kube's 422 for data over MaxSecretSize: the field is `[]` (the whole object) for a ConfigMap,
 * `data` for a Secret. (kapi also sends `details.group: ""`, which kube omits; not compared.)
 */
function assertTooLong(res: Response, kind: string, name: string, field: string): void {
  assert.equal(res.status, 422, res.text.slice(0, 300));
  const { details, ...status } = res.json as { details: Record<string, unknown> };
  assert.deepEqual(status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind} "${name}" is invalid: ${field}: Too long: may not be more than 1048576 bytes`,
    reason: 'Invalid',
    code: 422,
  });
  assert.deepEqual({ ...details, group: undefined }, {
    name,
    group: undefined,
    kind,
    causes: [{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field }],
  });
}

void describe('per-type size limits (ConfigMap and Secret data ≤ 1 MiB)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('a ConfigMap with 2 MiB of data is 422 Invalid on the whole object ([])', async () => {
    const res = await t.request('POST', configMaps, { body: { metadata: { name: 'two-mib' }, data: { a: 'x'.repeat(2 * MiB) } } });
    assertTooLong(res, 'ConfigMap', 'two-mib', '[]');
  });

  void it('a ConfigMap counts data (UTF-8 bytes) and binaryData (decoded bytes) together; exactly 1 MiB is accepted', async () => {
    const half = MiB / 2;
    const exact = await t.request('POST', configMaps, { body: { metadata: { name: 'exact' }, data: { a: 'x'.repeat(half) }, binaryData: { b: base64(half) } } });
    assert.equal(exact.status, 201, exact.text.slice(0, 300));
    const over = await t.request('POST', configMaps, { body: { metadata: { name: 'over' }, data: { a: 'x'.repeat(half) }, binaryData: { b: base64(half + 1) } } });
    assertTooLong(over, 'ConfigMap', 'over', '[]');
    // 'é' is 2 bytes in UTF-8: half a MiB of them plus one is over.
    const utf8 = await t.request('POST', configMaps, { body: { metadata: { name: 'utf8' }, data: { a: 'é'.repeat(half + 1) } } });
    assertTooLong(utf8, 'ConfigMap', 'utf8', '[]');
  });

  void it('an update that grows a ConfigMap past 1 MiB is 422 and leaves it unchanged', async () => {
    const created = await t.request('POST', configMaps, { body: { metadata: { name: 'grows' }, data: { a: 'x'.repeat(MiB - 10) } } });
    assert.equal(created.status, 201);
    const patched = await t.request('PATCH', `${configMaps}/grows`, {
      raw: JSON.stringify({ data: { b: 'y'.repeat(100) } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assertTooLong(patched, 'ConfigMap', 'grows', '[]');
    const got = await t.request('GET', `${configMaps}/grows`);
    assert.deepEqual(got.json['metadata'], created.json['metadata']);
    assert.deepEqual(got.json['data'], { a: 'x'.repeat(MiB - 10) });
  });

  void it('a Secret with 2 MiB of data is 422 Invalid on data', async () => {
    const res = await t.request('POST', secrets, { body: { metadata: { name: 'two-mib' }, data: { a: base64(2 * MiB) } } });
    assertTooLong(res, 'Secret', 'two-mib', 'data');
  });

  void it('a Secret is measured after stringData is merged into data (stringData wins a shared key)', async () => {
    const half = MiB / 2;
    const over = await t.request('POST', secrets, { body: { metadata: { name: 'merged-over' }, data: { a: base64(half) }, stringData: { b: 'y'.repeat(half + 1) } } });
    assertTooLong(over, 'Secret', 'merged-over', 'data');
    const replaced = await t.request('POST', secrets, { body: { metadata: { name: 'replaced' }, data: { a: base64(MiB + 1) }, stringData: { a: 'y' } } });
    assert.equal(replaced.status, 201, replaced.text.slice(0, 300));
    assert.deepEqual(replaced.json['data'], { a: 'eQ==' });
  });
});

const widgets = '/apis/example.com/v1/namespaces/default/widgets';
const events = '/api/v1/namespaces/default/events';
const widget = (name: string, bytes: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, ...extra },
  spec: { extra: { blob: 'x'.repeat(bytes) } },
});
const TOO_LARGE = 'etcdserver: request is too large';
const SEND_LIMIT = /^rpc error: code = ResourceExhausted desc = trying to send message larger than max \(\d+ vs\. 2097152\)$/;

/** kube's answer when etcd (or its client) refuses the write: a 500 Status without a reason or details. */
function assertRefused(res: Response, message: string | RegExp): void {
  assert.equal(res.status, 500, res.text.slice(0, 300));
  const { message: actual, ...status } = res.json as { message: string };
  assert.deepEqual(status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500 });
  if (typeof message === 'string') assert.equal(actual, message);
  else assert.match(actual, message);
}

async function metric(t: TestServer, name: string, labels: string): Promise<number> {
  const text = (await t.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  assert.ok(line !== undefined, `no ${name}{${labels}}`);
  return Number(line.split(' ')[1]);
}

async function watchFromNow(t: TestServer, path: string): Promise<WatchClient> {
  const rv = ((await t.request('GET', path)).json['metadata'] as { resourceVersion: string }).resourceVersion;
  const watch = await openWatch(t.url, `${path}?watch=true&resourceVersion=${rv}`);
  assert.ok(isWatchClient(watch));
  return watch;
}

/**
 * Ten oversize writes at once (creates, updates and patches), then: every watch opened before
 * sees the next write, no watch cache re-initialized, /readyz is 200.
 */
async function assertUnharmedBy(t: TestServer, oversize: () => Promise<Response>[], expect: (res: Response) => void): Promise<void> {
  const watches = [await watchFromNow(t, widgets), await watchFromNow(t, configMaps)];
  const labels = ['group="example.com",resource="widgets"', 'group="",resource="configmaps"'];
  const initializations = await Promise.all(labels.map((l) => metric(t, 'apiserver_watch_cache_initializations_total', l)));
  for (const res of await Promise.all(oversize())) expect(res);
  assert.equal((await t.request('GET', '/readyz')).status, 200);
  const next = [
    await t.request('POST', widgets, { body: widget(`after-${Date.now()}`, 10) }),
    await t.request('POST', configMaps, { body: { metadata: { name: `after-${Date.now()}` } } }),
  ];
  for (const [i, watch] of watches.entries()) {
    assert.equal(next[i]!.status, 201);
    const event = await watch.next(5000);
    assert.deepEqual([event.type, event.object.metadata?.['name']], ['ADDED', (next[i]!.json['metadata'] as { name: string }).name]);
    watch.close();
  }
  assert.deepEqual(await Promise.all(labels.map((l) => metric(t, 'apiserver_watch_cache_initializations_total', l))), initializations);
  assert.equal((await t.request('GET', '/readyz')).status, 200);
}

void describe('objects larger than etcd takes (default --etcd-max-request-bytes, etcd\'s defaults)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createEstablished(t, widgetCrd());
  });
  after(async () => {
    await t.close();
  });

  void it('a custom resource of 1.4 MiB is stored; 1.6 MiB and 2.5 MiB get kube\'s 500s', async () => {
    assert.equal((await t.request('POST', widgets, { body: widget('w14', 1.4 * MiB) })).status, 201);
    assertRefused(await t.request('POST', widgets, { body: widget('w16', 1.6 * MiB) }), TOO_LARGE);
    assertRefused(await t.request('POST', widgets, { body: widget('w25', 2.5 * MiB) }), SEND_LIMIT);
    for (const name of ['w16', 'w25']) assert.equal((await t.request('GET', `${widgets}/${name}`)).status, 404);
  });

  void it('an Event with a 1.6 MiB message gets the same 500', async () => {
    const event = { metadata: { name: 'big' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'x'.repeat(1.6 * MiB) };
    assertRefused(await t.request('POST', events, { body: event }), TOO_LARGE);
  });

  void it('an update or patch that grows an object past the limit gets the 500 and leaves it unchanged', async () => {
    const created = await t.request('POST', widgets, { body: widget('grows', 1.4 * MiB) });
    assert.equal(created.status, 201);
    const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
    assertRefused(await t.request('PUT', `${widgets}/grows`, { body: widget('grows', 1.6 * MiB, { resourceVersion: rv }) }), TOO_LARGE);
    const patch = (bytes: number) => ({ raw: JSON.stringify({ spec: { extra: { more: 'q'.repeat(bytes) } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assertRefused(await t.request('PATCH', `${widgets}/grows`, patch(0.3 * MiB)), TOO_LARGE);
    assertRefused(await t.request('PATCH', `${widgets}/grows`, patch(0.8 * MiB)), SEND_LIMIT);
    const got = await t.request('GET', `${widgets}/grows`);
    assert.deepEqual(got.json, created.json);
  });

  void it('ten oversize writes at once leave the watch caches, open watches and /readyz intact', async () => {
    const created = await t.request('POST', widgets, { body: widget('target', 1024) });
    const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
    await assertUnharmedBy(
      t,
      () =>
        Array.from({ length: 10 }, (_, i) => {
          const bytes = (i % 2 === 0 ? 1.6 : 2.5) * MiB;
          if (i % 3 === 0) return t.request('POST', widgets, { body: widget(`storm${i}`, bytes) });
          if (i % 3 === 1) return t.request('PUT', `${widgets}/target`, { body: widget('target', bytes, { resourceVersion: rv }) });
          return t.request('PATCH', `${widgets}/target`, { raw: JSON.stringify({ spec: { extra: { blob: 'y'.repeat(bytes) } } }), headers: { 'content-type': 'application/merge-patch+json' } });
        }),
      (res) => assertRefused(res, res.json['message'] === TOO_LARGE ? TOO_LARGE : SEND_LIMIT),
    );
    assert.deepEqual((await t.request('GET', `${widgets}/target`)).json, created.json);
  });
});

/** etcd's gRPC server refusing a message over its --max-request-bytes + 512 KiB. */
const RECEIVE_LIMIT = /^rpc error: code = ResourceExhausted desc = grpc: received message larger than max \(\d+ vs\. 1048576\)$/;

void describe('etcd refusing objects itself (etcd --max-request-bytes=512 KiB, below kapi\'s setting)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({}, { extraArgs: ['--max-request-bytes=524288'] });
    await createEstablished(t, widgetCrd());
  });
  after(async () => {
    await t.close();
  });

  void it('etcd\'s refusals are answered as kube-apiserver answers them', async () => {
    assertRefused(await t.request('POST', widgets, { body: widget('w08', 0.8 * MiB) }), TOO_LARGE);
    assertRefused(await t.request('POST', widgets, { body: widget('w12', 1.2 * MiB) }), RECEIVE_LIMIT);
  });

  void it('ten refusals from etcd at once leave the etcd connection, watch caches, open watches and /readyz intact', async () => {
    await assertUnharmedBy(
      t,
      () => Array.from({ length: 10 }, (_, i) => t.request('POST', widgets, { body: widget(`storm${i}`, (i % 2 === 0 ? 0.8 : 1.2) * MiB) })),
      (res) => assertRefused(res, res.json['message'] === TOO_LARGE ? TOO_LARGE : RECEIVE_LIMIT),
    );
  });
});
