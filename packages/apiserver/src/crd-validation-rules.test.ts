/**
 * CRD validation rules (x-kubernetes-validations) over HTTPS and through kubectl against a
 * real etcd, answered as kube-apiserver 1.32.13 answers (bodies, warnings and kubectl's
 * output taken from the v1.32 oracle for the same CRD and objects).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './testing/fixture.js';
import { eventuallyValue, startSecureServer, type Identity, type SecureServer } from './testing/secure-server.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const RANGES = '/apis/example.com/v1/namespaces/default/ranges';
type Json = Record<string, unknown>;

const rules = (...r: Json[]) => ({ 'x-kubernetes-validations': r });

function rangeSchema(extraSpecRules: Json[] = []): Json {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        ...rules({ rule: 'self.min <= self.max', message: 'min must be <= max' }, ...extraSpecRules),
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          name: { type: 'string', ...rules({ rule: 'self == oldSelf', message: 'name is immutable' }) },
          level: { type: 'integer', ...rules({ rule: 'self >= oldSelf', messageExpression: "'level may not decrease'" }) },
          tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20, ...rules({ rule: "self.startsWith('t')", reason: 'FieldValueForbidden', message: 'tags must start with t' }) } },
          kv: {
            type: 'object',
            ...rules({ rule: 'has(self.a) == has(self.b)', fieldPath: '.a', reason: 'FieldValueRequired', message: 'a and b go together' }),
            properties: { a: { type: 'string' }, b: { type: 'string' } },
          },
        },
      },
      status: { type: 'object', properties: { phase: { type: 'string', ...rules({ rule: "self != 'Bad'", message: 'bad phase' }) } } },
    },
  };
}

function rangeCrd(schema: Json): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'ranges.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'ranges', singular: 'range', kind: 'Range', listKind: 'RangeList' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: schema } }],
    },
  };
}

const range = (name: string, spec: Json, extra: Json = {}) => ({ apiVersion: 'example.com/v1', kind: 'Range', metadata: { name, ...extra }, spec });

void describe('CRD validation rules', () => {
  let t: SecureServer;
  let admin: Identity;
  before(async () => {
    t = await startSecureServer();
    admin = { cert: t.admin };
    const created = await t.request(admin, 'POST', CRD_PATH, { body: rangeCrd(rangeSchema()) });
    assert.equal(created.status, 201, created.text);
    await eventually('ranges to be served', async () => (await t.request(admin, 'GET', RANGES)).status === 200, 15_000);
  });
  after(async () => t?.close());

  const causes = (res: { json: Json }) => ((res.json['details'] as Json | undefined)?.['causes'] as Json[] | undefined)?.map((c) => `${String(c['reason'])} ${String(c['field'])}: ${String(c['message'])}`);

  void it("the issue's example: {min: 5, max: 1} is kube's 422 with the rule's message", async () => {
    const res = await t.request(admin, 'POST', RANGES, { body: range('x', { min: 5, max: 1 }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Range.example.com "x" is invalid: spec: Invalid value: "object": min must be <= max',
      reason: 'Invalid',
      details: { name: 'x', group: 'example.com', kind: 'Range', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": min must be <= max', field: 'spec' }] },
      code: 422,
    });
    assert.equal((await t.request(admin, 'GET', `${RANGES}/x`)).status, 404, 'nothing was written');
  });

  void it('list items, reason and fieldPath; rules are skipped after an error that blocks them', async () => {
    const res = await t.request(admin, 'POST', RANGES, { body: range('y', { min: 1, max: 2, tags: ['ok', 'tb', 'zz'], kv: { b: '1' } }) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res), [
      'FieldValueForbidden spec.tags[0]: Forbidden: tags must start with t',
      'FieldValueForbidden spec.tags[2]: Forbidden: tags must start with t',
      'FieldValueRequired spec.kv.a: Required value: a and b go together',
    ]);
    const blocked = await t.request(admin, 'POST', RANGES, { body: range('y', { min: 'x', max: 2 }) });
    assert.equal(blocked.status, 422, blocked.text);
    assert.equal(
      blocked.json['message'],
      'Range.example.com "y" is invalid: [spec.min: Invalid value: "string": spec.min in body must be of type integer: "string", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  void it('transition rules on update (self == oldSelf, messageExpression); a field new to the object is not checked against an old value', async () => {
    const created = await t.request(admin, 'POST', RANGES, { body: range('t', { min: 1, max: 2, name: 'n1', level: 5 }) });
    assert.equal(created.status, 201, created.text);
    const rv = String((created.json['metadata'] as Json)['resourceVersion']);
    const bad = await t.request(admin, 'PUT', `${RANGES}/t`, { body: range('t', { min: 1, max: 2, name: 'n2', level: 4 }, { resourceVersion: rv }) });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.json['message'], 'Range.example.com "t" is invalid: [spec.name: Invalid value: "string": name is immutable, spec.level: Invalid value: "integer": level may not decrease]');
    const merge = { 'content-type': 'application/merge-patch+json' };
    const patched = await t.request(admin, 'PATCH', `${RANGES}/t`, { body: { spec: { level: 6, kv: { a: '1', b: '2' } } }, headers: merge });
    assert.equal(patched.status, 200, patched.text);
    const down = await t.request(admin, 'PATCH', `${RANGES}/t`, { body: { spec: { level: 1 } }, headers: merge });
    assert.equal(down.status, 422, down.text);
    assert.deepEqual(causes(down), ['FieldValueInvalid spec.level: Invalid value: "integer": level may not decrease']);
  });

  void it("a CRD whose rules do not compile is refused with kube's paths; nothing is stored", async () => {
    const schema = rangeSchema([{ rule: 'self.nope > 1' }, { rule: 'self.min', messageExpression: '1' }]);
    const crd = rangeCrd(schema);
    (crd['metadata'] as Json)['name'] = 'badranges.example.com';
    (crd['spec'] as Json)['names'] = { plural: 'badranges', singular: 'badrange', kind: 'BadRange', listKind: 'BadRangeList' };
    const res = await t.request(admin, 'POST', CRD_PATH, { body: crd });
    assert.equal(res.status, 422, res.text);
    const rule = (r: string, messageExpression = '') =>
      `apiextensions.ValidationRule{Rule:${JSON.stringify(r)}, Message:"", MessageExpression:${JSON.stringify(messageExpression)}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
    assert.deepEqual(causes(res), [
      `FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: ${rule('self.nope > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^`,
      `FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[2].rule: Invalid value: ${rule('self.min', '1')}: cel expression must evaluate to a bool`,
    ]);
    assert.equal((await t.request(admin, 'GET', `${CRD_PATH}/badranges.example.com`)).status, 404);
  });

  void it("kubectl apply of a bad Range prints kube's error", async () => {
    const file = join(t.ca.dir, 'bad-range.json');
    writeFileSync(file, JSON.stringify(range('k', { min: 9, max: 2, tags: ['zz'] })));
    const out = await t.kubectl(admin, ['apply', '-f', file]);
    assert.equal(out.code, 1);
    assert.equal(out.stderr, 'The Range "k" is invalid: \n* spec: Invalid value: "object": min must be <= max\n* spec.tags[0]: Forbidden: tags must start with t\n');
    const created = await t.kubectl(admin, ['create', '-f', file]);
    assert.equal(created.code, 1);
    assert.equal(created.stderr, 'The Range "k" is invalid: \n* spec: Invalid value: "object": min must be <= max\n* spec.tags[0]: Forbidden: tags must start with t\n');
  });
  void it('schema errors ratchet too: after a stricter schema an update that leaves the values alone passes; changed values fail; status writes check status only', async () => {
    const crd = rangeCrd(rangeSchema());
    (crd['metadata'] as Json)['name'] = 'strictranges.example.com';
    (crd['spec'] as Json)['names'] = { plural: 'strictranges', singular: 'strictrange', kind: 'StrictRange', listKind: 'StrictRangeList' };
    const path = '/apis/example.com/v1/namespaces/default/strictranges';
    assert.equal((await t.request(admin, 'POST', CRD_PATH, { body: crd })).status, 201);
    await eventually('strictranges to be served', async () => (await t.request(admin, 'GET', path)).status === 200, 15_000);
    const strict = (spec: Json, status?: Json) => ({ ...range('s2', spec), kind: 'StrictRange', ...(status !== undefined ? { status } : {}) });
    const spec = { min: 1, max: 2, name: 'n1', tags: ['ta', 'tb'], kv: { a: 'y', b: 'x' }, level: 1 };
    assert.equal((await t.request(admin, 'POST', path, { body: strict(spec) })).status, 201);

    const current = await t.request(admin, 'GET', `${CRD_PATH}/strictranges.example.com`);
    const schema = rangeSchema() as { properties: { spec: { properties: Record<string, Json> } } };
    const props = schema.properties.spec.properties;
    props['name'] = { ...props['name'], maxLength: 1 };
    props['tags'] = { ...props['tags'], maxItems: 1, 'x-kubernetes-list-type': 'set', items: { ...(props['tags']!['items'] as Json), maxLength: 1 } };
    props['kv'] = { ...props['kv'], required: ['a'] };
    const version = { ...((current.json['spec'] as Json)['versions'] as Json[])[0], schema: { openAPIV3Schema: schema } };
    const stricter = await t.request(admin, 'PUT', `${CRD_PATH}/strictranges.example.com`, { body: { ...current.json, spec: { ...(current.json['spec'] as Json), versions: [version] } } });
    assert.equal(stricter.status, 200, stricter.text);
    await eventuallyValue('the stricter schema to apply', async () => {
      const probe = await t.request(admin, 'POST', `${path}?dryRun=All`, { body: { ...strict(spec), metadata: { name: 'probe' } } });
      return probe.status === 422 ? probe : undefined;
    });

    const merge = { 'content-type': 'application/merge-patch+json' };
    const untouched = await t.request(admin, 'PATCH', `${path}/s2`, { body: { spec: { level: 2 } }, headers: merge });
    assert.equal(untouched.status, 200, untouched.text);
    assert.equal(untouched.headers['warning'], undefined, 'kube drops ratcheted schema errors silently');
    const changed = await t.request(admin, 'PATCH', `${path}/s2`, { body: { spec: { level: 3, tags: ['ta', 'tc'], kv: { a: null } } }, headers: merge });
    assert.equal(changed.status, 422, changed.text);
    assert.deepEqual(causes(changed)?.sort(), [
      'FieldValueInvalid <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      'FieldValueRequired spec.kv.a: Required value',
      'FieldValueTooLong spec.tags[0]: Too long: may not be more than 1 bytes',
      'FieldValueTooLong spec.tags[1]: Too long: may not be more than 1 bytes',
      'FieldValueTooMany spec.tags: Too many: 2: must have at most 1 items',
    ]);
    const status = await t.request(admin, 'PATCH', `${path}/s2/status`, { body: { status: { phase: 'x' } }, headers: merge });
    assert.equal(status.status, 200, status.text);
  });

  // Last: it makes the CRD stricter.
  void it('status writes run the rules too; after a stricter CRD, unchanged values warn on update but fail through status (1.32 ratcheting)', async () => {
    const created = await t.request(admin, 'POST', RANGES, { body: range('r', { min: 1, max: 2, level: 1 }) });
    assert.equal(created.status, 201, created.text);
    const status = await t.request(admin, 'PATCH', `${RANGES}/r/status`, { body: { status: { phase: 'Bad' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(status.status, 422, status.text);
    assert.deepEqual(causes(status), ['FieldValueInvalid status.phase: Invalid value: "string": bad phase']);

    const crd = await t.request(admin, 'GET', `${CRD_PATH}/ranges.example.com`);
    const stricter = { ...crd.json, spec: { ...(crd.json['spec'] as Json), versions: [{ ...((crd.json['spec'] as Json)['versions'] as Json[])[0], schema: { openAPIV3Schema: rangeSchema([{ rule: 'self.max < 2', message: 'max below 2' }]) } }] } };
    const updated = await t.request(admin, 'PUT', `${CRD_PATH}/ranges.example.com`, { body: stricter });
    assert.equal(updated.status, 200, updated.text);
    const current = await eventuallyValue('the stricter rules to apply', async () => {
      const probe = await t.request(admin, 'POST', `${RANGES}?dryRun=All`, { body: range('probe', { min: 1, max: 2 }) });
      return probe.status === 422 ? probe : undefined;
    });
    assert.deepEqual(causes(current), ['FieldValueInvalid spec: Invalid value: "object": max below 2']);

    const r = await t.request(admin, 'GET', `${RANGES}/r`);
    const unchanged = await t.request(admin, 'PUT', `${RANGES}/r`, { body: r.json });
    assert.equal(unchanged.status, 200, unchanged.text);
    assert.equal(unchanged.headers['warning'], '299 - "spec: Invalid value: \\"object\\": max below 2"');
    const changed = await t.request(admin, 'PATCH', `${RANGES}/r`, { body: { spec: { level: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(changed.status, 422, changed.text);
    assert.deepEqual(causes(changed), ['FieldValueInvalid spec: Invalid value: "object": max below 2']);
    const throughStatus = await t.request(admin, 'PATCH', `${RANGES}/r/status`, { body: { status: { phase: 'ok' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(throughStatus.status, 422, throughStatus.text);
    assert.deepEqual(causes(throughStatus), ['FieldValueInvalid spec: Invalid value: "object": max below 2']);
  });

});
