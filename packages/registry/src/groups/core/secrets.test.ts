import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldSelector } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

void describe('secrets', () => {
  let fx: Fixture;
  let registry: Registry;
  const ns = inNamespace('default');
  const secrets = () => resource(registry, 'secrets');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('merges stringData into data (stringData wins), drops it and defaults type to Opaque', async () => {
    const created = await secrets().creater.create(
      ns,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'plain' } },
      {},
    );
    assert.deepEqual(created['data'], { a: b64('new'), b: b64('keep'), c: b64('plain') });
    assert.equal(created['stringData'], undefined);
    assert.equal(created['type'], 'Opaque');
    const got = await secrets().getter.get(ns, 's1', {});
    assert.equal(got['stringData'], undefined);
  });

  void it('stringData is applied on update too', async () => {
    const created = await secrets().creater.create(ns, { metadata: { name: 's2' }, data: { a: b64('1') } }, {});
    const { object } = await secrets().updater.update(ns, 's2', { ...created, stringData: { a: '2' } }, {});
    assert.deepEqual(object['data'], { a: b64('2') });
  });

  void it('invalid base64 in data is a 400 with Go\'s offset', async () => {
    await rejectsWithStatus(secrets().creater.create(ns, { metadata: { name: 'bad' }, data: { a: 'YWJj!' } }, {}), {
      code: 400,
      reason: 'BadRequest',
      message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4',
    });
  });

  void it('type is immutable', async () => {
    const created = await secrets().creater.create(ns, { metadata: { name: 's3' } }, {});
    const status = await rejectsWithStatus(secrets().updater.update(ns, 's3', { ...created, type: 'example.com/other' }, {}), { code: 422 });
    assert.equal(status.message, 'Secret "s3" is invalid: type: Invalid value: "example.com/other": field is immutable');
  });

  void it('well-known types require their keys', async () => {
    const status = await rejectsWithStatus(secrets().creater.create(ns, { metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }, {}), {
      code: 422,
    });
    assert.equal(status.message, 'Secret "tls" is invalid: data[tls.key]: Required value');
  });

  void it('immutable secrets reject data changes', async () => {
    const created = await secrets().creater.create(ns, { metadata: { name: 'frozen' }, data: { a: b64('1') }, immutable: true }, {});
    const status = await rejectsWithStatus(secrets().updater.update(ns, 'frozen', { ...created, stringData: { a: 'x' } }, {}), { code: 422 });
    assert.equal(status.message, 'Secret "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
  });

  void it('field selector type', async () => {
    await secrets().creater.create(ns, { metadata: { name: 'typed' }, type: 'example.com/special' }, {});
    const list = await secrets().lister.list(ns, { fieldSelector: parseFieldSelector('type=example.com/special') });
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['typed']);
    const notOpaque = await secrets().lister.list(ns, { fieldSelector: parseFieldSelector('type!=Opaque') });
    assert.deepEqual(notOpaque.items.map((i) => i.metadata.name), ['typed']);
    await rejectsWithStatus(secrets().lister.list(ns, { fieldSelector: parseFieldSelector('data.a=1') }), { code: 400, message: 'field label not supported: data.a' });
  });
});
