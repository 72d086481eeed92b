import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Status } from '@kapi/machinery';
import { isStatusError } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { builtinDefinitions } from '../../builtin/index.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function cm(name: string, data: Record<string, string> = { a: '1' }, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data, ...extra };
}

void describe('generic store over configmaps', () => {
  let fx: Fixture;
  let registry: Registry;
  const ns = inNamespace('default');
  const cms = () => resource(registry, 'configmaps');

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('creates and gets an object with server-set metadata', async () => {
    const created = await cms().creater.create(ns, cm('one'), {});
    assert.equal(created.apiVersion, 'v1');
    assert.equal(created.kind, 'ConfigMap');
    assert.equal(created.metadata.namespace, 'default');
    assert.match(created.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.match(created.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(created.metadata.generation, undefined);
    assert.match(created.metadata.resourceVersion ?? '', /^\d+$/);
    const got = await cms().getter.get(ns, 'one', {});
    assert.deepEqual(got, created);
  });

  void it('clears client-set deletion fields on create', async () => {
    const created = await cms().creater.create(
      ns,
      cm('deletion-fields', {}, { metadata: { name: 'deletion-fields', deletionTimestamp: '2020-01-01T00:00:00Z', deletionGracePeriodSeconds: 5, uid: 'mine' } }),
      {},
    );
    assert.equal(created.metadata.deletionTimestamp, undefined);
    assert.equal(created.metadata.deletionGracePeriodSeconds, undefined);
    assert.notEqual(created.metadata.uid, 'mine');
  });

  void it('accepts null fields as absent (typed decoding) and fills an empty namespace from the URL', async () => {
    const created = await cms().creater.create(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', creationTimestamp: null }, data: null }, {});
    assert.equal(created.metadata.namespace, 'default');
    assert.equal(created['data'], undefined);
  });

  void it('404 NotFound with kube details', async () => {
    await rejectsWithStatus(cms().getter.get(ns, 'missing', {}), {
      code: 404,
      reason: 'NotFound',
      message: 'configmaps "missing" not found',
      details: { name: 'missing', kind: 'configmaps' },
    });
  });

  void it('409 AlreadyExists', async () => {
    await cms().creater.create(ns, cm('dup'), {});
    await rejectsWithStatus(cms().creater.create(ns, cm('dup'), {}), {
      code: 409,
      reason: 'AlreadyExists',
      message: 'configmaps "dup" already exists',
      details: { name: 'dup', kind: 'configmaps' },
    });
  });

  void it('404 when the namespace does not exist', async () => {
    await rejectsWithStatus(cms().creater.create(inNamespace('nope'), cm('x'), {}), {
      code: 404,
      reason: 'NotFound',
      message: 'namespaces "nope" not found',
      details: { name: 'nope', kind: 'namespaces' },
    });
  });

  void it('422 Invalid for a bad name, with the cause field', async () => {
    const status = await rejectsWithStatus(cms().creater.create(ns, cm('Bad_Name'), {}), { code: 422, reason: 'Invalid' });
    assert.equal(status.message, `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`);
    assert.deepEqual(status.details, {
      name: 'Bad_Name',
      kind: 'ConfigMap',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}`, field: 'metadata.name' }],
    });
  });

  void it('422 Required when neither name nor generateName is given', async () => {
    const status = await rejectsWithStatus(cms().creater.create(ns, { metadata: {} }, {}), { code: 422 });
    assert.equal(status.message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    assert.deepEqual(status.details?.causes, [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
  });

  void it('422 for bad labels and annotations, several errors bracketed', async () => {
    const status = await rejectsWithStatus(
      cms().creater.create(ns, cm('labels', {}, { metadata: { name: 'labels', labels: { 'bad key!': 'v' }, annotations: { '/x': 'y' } } }), {}),
      { code: 422, reason: 'Invalid' },
    );
    const fields = status.details?.causes?.map((c) => c.field);
    assert.deepEqual(fields, ['metadata.labels', 'metadata.annotations']);
    assert.match(status.message ?? '', /^ConfigMap "labels" is invalid: \[metadata\.labels: Invalid value: "bad key!": name part must consist of/);
  });

  void it('400 for values the Go type cannot hold (the first in the body, as kube decodes)', async () => {
    await rejectsWithStatus(cms().creater.create(ns, cm('types', {}, { data: { a: 5 } as unknown as Record<string, string>, immutable: 'yes' }), {}), {
      code: 400,
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    });
  });

  void it('422 for an invalid data key and a key in both maps', async () => {
    const status = await rejectsWithStatus(cms().creater.create(ns, cm('keys', { 'a b': 'x', dup: 'y' }, { binaryData: { dup: 'eQ==' } }), {}), { code: 422 });
    assert.deepEqual(
      status.details?.causes?.map((c) => [c.field, c.message]),
      [
        [
          'data[a b]',
          `Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
        ],
        ['data[dup]', 'Invalid value: "dup": duplicate of key present in binaryData'],
      ],
    );
  });

  void it('422 when the payload exceeds 1 MiB', async () => {
    const status = await rejectsWithStatus(cms().creater.create(ns, cm('big', { a: 'x'.repeat(1024 * 1024 + 1) }), {}), { code: 422 });
    assert.equal(status.message, 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes');
    assert.deepEqual(status.details?.causes, [{ reason: 'FieldValueTooLong', field: '[]', message: 'Too long: may not be more than 1048576 bytes' }]);
  });

  void it('400 for invalid binaryData base64', async () => {
    await rejectsWithStatus(cms().creater.create(ns, cm('b64', {}, { binaryData: { k: 'abc' } }), {}), {
      code: 400,
      reason: 'BadRequest',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0',
    });
  });

  void it('400 BadRequest for apiVersion, kind, namespace and name mismatches', async () => {
    await rejectsWithStatus(cms().creater.create(ns, { ...cm('x'), apiVersion: 'apps/v1' }, {}), {
      code: 400,
      reason: 'BadRequest',
      message: 'the API version in the data (apps/v1) does not match the expected API version (v1)',
    });
    // kube's decoder reads a kind its scheme knows and finds no conversion; another it does not know (issue 23).
    await rejectsWithStatus(cms().creater.create(ns, { ...cm('x'), kind: 'Secret' }, {}), {
      code: 400,
      message: 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    });
    await rejectsWithStatus(cms().creater.create(ns, { ...cm('x'), kind: 'Bogus' }, {}), {
      code: 400,
      message: 'Bogus in version "v1" cannot be handled as a ConfigMap: no kind "Bogus" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"',
    });
    await rejectsWithStatus(cms().creater.create(ns, cm('x', {}, { metadata: { name: 'x', namespace: 'kube-system' } }), {}), {
      code: 400,
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
    await cms().creater.create(ns, cm('named'), {});
    await rejectsWithStatus(cms().updater.update(ns, 'named', cm('other'), {}), {
      code: 400,
      message: 'the name of the object (other) does not match the name on the URL (named)',
    });
    await rejectsWithStatus(cms().updater.update(ns, 'named', cm('named', {}, { metadata: { name: 'named', namespace: 'kube-system' } }), {}), {
      code: 400,
      message: 'the namespace of the object (kube-system) does not match the namespace on the URL (default)',
    });
    await rejectsWithStatus(cms().creater.create(ns, [1, 2], {}), { code: 400, reason: 'BadRequest' });
    await rejectsWithStatus(cms().creater.create(ns, { metadata: 'x' }, {}), {
      code: 400,
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
    });
  });

  void it('fieldValidation Strict rejects unknown fields, joining several', async () => {
    await rejectsWithStatus(cms().creater.create(ns, { ...cm('strict'), spec: {}, metadata: { name: 'strict', bogus: 1 } }, { fieldValidation: 'Strict' }), {
      code: 400,
      reason: 'BadRequest',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "spec"',
    });
  });

  void it('fieldValidation Warn (default) prunes and warns; Ignore prunes silently', async () => {
    const warnings: string[] = [];
    const warned = await cms().creater.create(ns, { ...cm('warn'), extra: true }, { warn: (m) => warnings.push(m) });
    assert.deepEqual(warnings, ['unknown field "extra"']);
    assert.equal(warned['extra'], undefined);
    const ignoredWarnings: string[] = [];
    const ignored = await cms().creater.create(ns, { ...cm('ignore'), extra: true }, { fieldValidation: 'Ignore', warn: (m) => ignoredWarnings.push(m) });
    assert.deepEqual(ignoredWarnings, []);
    assert.equal(ignored['extra'], undefined);
  });

  void it('generateName creates unique names', async () => {
    const body = { metadata: { generateName: 'gen-' }, data: {} };
    const a = await cms().creater.create(ns, body, {});
    const b = await cms().creater.create(ns, body, {});
    assert.match(a.metadata.name ?? '', /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.notEqual(a.metadata.name, b.metadata.name);
  });

  void it('updates with optimistic concurrency', async () => {
    const created = await cms().creater.create(ns, cm('occ'), {});
    const { object: updated, created: wasCreated } = await cms().updater.update(ns, 'occ', { ...created, data: { a: '2' } }, {});
    assert.equal(wasCreated, false);
    assert.equal(updated['data'] && (updated['data'] as Record<string, string>)['a'], '2');
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assert.equal(updated.metadata.creationTimestamp, created.metadata.creationTimestamp);
    await rejectsWithStatus(cms().updater.update(ns, 'occ', { ...created, data: { a: '3' } }, {}), {
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'occ', kind: 'configmaps' },
    });
  });

  void it('an update without resourceVersion is unconditional for configmaps', async () => {
    await cms().creater.create(ns, cm('uncond'), {});
    const { object } = await cms().updater.update(ns, 'uncond', cm('uncond', { a: 'z' }), {});
    assert.deepEqual(object['data'], { a: 'z' });
  });

  void it('a no-op update keeps the resourceVersion', async () => {
    const created = await cms().creater.create(ns, cm('noop', { a: '1', b: '2' }), {});
    const reordered = { metadata: { ...created.metadata }, data: { b: '2', a: '1' }, kind: 'ConfigMap', apiVersion: 'v1' };
    const { object } = await cms().updater.update(ns, 'noop', reordered, {});
    assert.equal(object.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  void it('update of a missing configmap is 404 (no create on update)', async () => {
    await rejectsWithStatus(cms().updater.update(ns, 'ghost', cm('ghost'), {}), { code: 404, message: 'configmaps "ghost" not found' });
  });

  void it('422 for immutable fields on update', async () => {
    const created = await cms().creater.create(ns, cm('imm-meta'), {});
    const status = await rejectsWithStatus(
      cms().updater.update(ns, 'imm-meta', { ...created, metadata: { ...created.metadata, uid: 'changed' } }, {}),
      { code: 422 },
    );
    assert.equal(status.message, 'ConfigMap "imm-meta" is invalid: metadata.uid: Invalid value: "changed": field is immutable');
  });

  void it('immutable configmaps reject data changes with kube\'s message', async () => {
    const created = await cms().creater.create(ns, cm('frozen', { a: '1' }, { immutable: true }), {});
    const status = await rejectsWithStatus(cms().updater.update(ns, 'frozen', { ...created, data: { a: '2' } }, {}), { code: 422 });
    assert.equal(status.message, 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set');
    const status2 = await rejectsWithStatus(cms().updater.update(ns, 'frozen', { ...created, immutable: false }, {}), { code: 422 });
    assert.equal(status2.message, 'ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
    const { object } = await cms().updater.update(ns, 'frozen', { ...created, metadata: { ...created.metadata, labels: { ok: 'yes' } } }, {});
    assert.deepEqual(object.metadata.labels, { ok: 'yes' });
  });

  void it('deletes, answering a success Status; preconditions give 409', async () => {
    const created = await cms().creater.create(ns, cm('del'), {});
    await rejectsWithStatus(cms().deleter.delete(ns, 'del', { preconditions: { uid: 'other-uid' } }), {
      code: 409,
      reason: 'Conflict',
      // kube's rest.BeforeDelete: the Kind, not the resource (kube-apiserver 1.32's text).
      message: `Operation cannot be fulfilled on ConfigMap "del": the UID in the precondition (other-uid) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
      details: { name: 'del', kind: 'ConfigMap' },
    });
    await rejectsWithStatus(cms().deleter.delete(ns, 'del', { preconditions: { resourceVersion: '1' } }), {
      code: 409,
      message: `Operation cannot be fulfilled on ConfigMap "del": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.metadata.resourceVersion}). The object might have been modified`,
    });
    const result = await cms().deleter.delete(ns, 'del', { preconditions: { uid: created.metadata.uid! } });
    assert.equal(result.deletedImmediately, true);
    assert.deepEqual((result.object as Status).details, { name: 'del', kind: 'configmaps', uid: created.metadata.uid });
    await rejectsWithStatus(cms().getter.get(ns, 'del', {}), { code: 404 });
    await rejectsWithStatus(cms().deleter.delete(ns, 'del', {}), { code: 404, message: 'configmaps "del" not found' });
  });

  void it('an object with finalizers is marked, then removed when the last finalizer goes', async () => {
    await cms().creater.create(ns, cm('fin', {}, { metadata: { name: 'fin', finalizers: ['example.com/hold'] } }), {});
    const marked = await cms().deleter.delete(ns, 'fin', {});
    assert.equal(marked.deletedImmediately, false);
    const obj = marked.object as KubeObject;
    assert.ok(obj.metadata.deletionTimestamp);
    const { object } = await cms().updater.update(ns, 'fin', { ...obj, metadata: { ...obj.metadata, finalizers: [] } }, {});
    assert.equal(object.metadata.name, 'fin');
    await rejectsWithStatus(cms().getter.get(ns, 'fin', {}), { code: 404 });
  });

  void it('dryRun persists nothing', async () => {
    const dry = await cms().creater.create(ns, cm('dry'), { dryRun: true });
    assert.equal(dry.metadata.name, 'dry');
    await rejectsWithStatus(cms().getter.get(ns, 'dry', {}), { code: 404 });
    const real = await cms().creater.create(ns, cm('dry'), {});
    await rejectsWithStatus(cms().creater.create(ns, cm('dry'), { dryRun: true }), { code: 409, reason: 'AlreadyExists' });
    const { object } = await cms().updater.update(ns, 'dry', { ...real, data: { z: 'z' } }, { dryRun: true });
    assert.deepEqual(object['data'], { z: 'z' });
    assert.deepEqual((await cms().getter.get(ns, 'dry', {}))['data'], { a: '1' });
    await cms().deleter.delete(ns, 'dry', { dryRun: true });
    await cms().getter.get(ns, 'dry', {});
  });

  void it('parallel updates at one resourceVersion: exactly one wins', async () => {
    const created = await cms().creater.create(ns, cm('race'), {});
    const attempts = Array.from({ length: 10 }, (_, i) => cms().updater.update(ns, 'race', { ...created, data: { a: `v${i}` } }, {}));
    const results = await Promise.allSettled(attempts);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 9);
    for (const r of lost) assert.ok(isStatusError(r.reason) && r.reason.code === 409 && r.reason.reason === 'Conflict');
  });

  void it('400 when a create carries a resourceVersion', async () => {
    await rejectsWithStatus(cms().creater.create(ns, cm('with-rv', {}, { metadata: { name: 'with-rv', resourceVersion: '5' } }), {}), {
      code: 400,
      message: 'resourceVersion should not be set on objects to be created',
    });
  });

  void it('504 for a resourceVersion ahead of the store', async () => {
    await cms().creater.create(ns, cm('future'), {});
    await rejectsWithStatus(cms().getter.get(ns, 'future', { resourceVersion: '999999999' }), { code: 504, reason: 'Timeout' });
  });

  void it('lookup finds served resources only', () => {
    assert.equal(registry.lookup('', 'v1', 'configmaps')?.definition.kind, 'ConfigMap');
    assert.equal(registry.lookup('coordination.k8s.io', 'v1', 'leases')?.version, 'v1');
    assert.equal(registry.lookup('', 'v1', 'widgets'), undefined);
    assert.equal(registry.lookup('', 'v2', 'configmaps'), undefined);
    // One per served version of every built-in (leases and events.k8s.io also serve v1beta1).
    assert.equal(registry.resources.length, builtinDefinitions.reduce((n, d) => n + d.versions.filter((v) => v.served).length, 0));
  });

  void it('400 for names that cannot be a path segment', async () => {
    await rejectsWithStatus(cms().getter.get(ns, 'a/b', {}), { code: 400, message: 'Name parameter invalid: "a/b": may not contain \'/\'' });
  });
});
