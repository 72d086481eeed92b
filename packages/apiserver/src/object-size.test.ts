/**
 * Object size limits, as kube-apiserver 1.32 enforces them (checked against a real
 * kube-apiserver on etcd 3.4 with default limits): ConfigMap and Secret data over 1 MiB is a
 * 422 from validation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Response, type TestServer } from './testing/fixture.js';

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
