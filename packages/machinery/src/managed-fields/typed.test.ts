import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from './field-set.js';
import { fieldElement, keyElement, parsePathElement, pathString, valueElement, indexElement } from './path-element.js';
import { schemaAtom } from './schema-type.js';
import { compareValues, mergeValues, removeItems, toFieldSet, validateForApply } from './typed.js';
import { testDefinitions, testSchema } from './test-schema.js';

const atom = schemaAtom(testSchema, testDefinitions);
const f = fieldElement;

function fieldsV1(value: unknown): string {
  return JSON.stringify(toFieldSet(value, atom).toFieldsV1());
}

void test('path elements serialize, parse and print as kube does', () => {
  const key = keyElement([['protocol', 'TCP'], ['containerPort', 80]]);
  assert.equal(key.key, 'k:{"containerPort":80,"protocol":"TCP"}');
  assert.equal(pathString([f('spec'), f('containers'), keyElement([['name', 'nginx']]), f('image')]), '.spec.containers[name="nginx"].image');
  assert.equal(pathString([f('tags'), valueElement('a')]), '.tags[="a"]');
  assert.equal(pathString([f('args'), indexElement(3)]), '.args[3]');
  assert.equal(valueElement('<&>').key, 'v:"\\u003c\\u0026\\u003e"');
  assert.deepEqual(parsePathElement('k:{"protocol":"TCP","containerPort":80}'), key);
  assert.equal(parsePathElement('x:whatever'), undefined);
  assert.throws(() => parsePathElement('f'), /2 characters/);
  assert.throws(() => parsePathElement('fname'), /missing colon/);
  assert.throws(() => parsePathElement('k:{nope'));
});

void test('the field set of an applied configuration, in FieldsV1', () => {
  const config = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', labels: { app: 'a' } },
    spec: { replicas: 2, containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }], tags: ['x', 'y'], selector: { a: 'b' } },
  };
  assert.equal(
    fieldsV1(config),
    JSON.stringify({
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:name': {} },
      'f:spec': {
        'f:containers': {
          'k:{"name":"c"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
        'f:replicas': {},
        'f:selector': {},
        'f:tags': { 'v:"x"': {}, 'v:"y"': {} },
      },
    }),
  );
});

void test('empty and null structs are leaves; empty granular lists set nothing; atomic lists are leaves', () => {
  assert.equal(fieldsV1({ spec: {} }), '{"f:spec":{}}');
  assert.equal(fieldsV1({ spec: null }), '{"f:spec":{}}');
  assert.equal(fieldsV1({ spec: { tags: [] } }), '{}');
  assert.equal(fieldsV1({ spec: { args: ['a'] } }), '{"f:spec":{"f:args":{}}}');
  assert.equal(fieldsV1({ spec: { strategy: { rollingUpdate: {} } } }), '{"f:spec":{"f:strategy":{"f:rollingUpdate":{}}}}');
  // Map entries (not struct fields) are members in their own right.
  assert.equal(fieldsV1({ data: { a: '1' } }), '{"f:data":{"f:a":{}}}');
  assert.equal(fieldsV1({ spec: { extra: { free: { deep: 1 }, list: [1] } } }), '{"f:spec":{"f:extra":{"f:free":{".":{},"f:deep":{}},"f:list":{}}}}');
  // Atomic items of a map-list are leaves under their key.
  assert.equal(fieldsV1({ metadata: { ownerReferences: [{ uid: 'u1', name: 'o' }] } }), '{"f:metadata":{"f:ownerReferences":{"k:{\\"uid\\":\\"u1\\"}":{}}}}');
});

void test('repeated items of an associative list are owned as a whole', () => {
  assert.equal(fieldsV1({ spec: { tags: ['a', 'a', 'b'] } }), '{"f:spec":{"f:tags":{"v:\\"a\\"":{},"v:\\"b\\"":{}}}}');
  assert.equal(
    fieldsV1({ spec: { containers: [{ name: 'c', image: '1' }, { name: 'c', image: '2' }] } }),
    '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{}}}}',
  );
});

void test('FieldsV1 round-trips, including members with children', () => {
  const text = '{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{}}}}}';
  const set = FieldSet.fromFieldsV1(JSON.parse(text));
  assert.equal(JSON.stringify(set.toFieldsV1()), text);
  assert.ok(set.has([f('data')]));
  assert.ok(set.has([f('data'), f('a')]));
  assert.ok(!set.has([f('metadata')]));
  assert.ok(set.has([f('spec'), f('containers'), keyElement([['name', 'c']])]));
  assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': [] }));
  assert.equal(JSON.stringify(FieldSet.fromFieldsV1({ 'f:a': {}, 'z:unknown': {} }).toFieldsV1()), '{"f:a":{}}');
});

void test('set operations keep smd semantics', () => {
  const a = FieldSet.of([f('x')], [f('x'), f('y')], [f('z'), f('w')]);
  const b = FieldSet.of([f('x')], [f('z')]);
  // difference removes members only; the x subtree stays.
  assert.equal(JSON.stringify(a.difference(b).toFieldsV1()), '{"f:x":{"f:y":{}},"f:z":{"f:w":{}}}');
  // recursiveDifference drops everything below a member of the other set.
  assert.equal(JSON.stringify(a.recursiveDifference(b).toFieldsV1()), '{}');
  assert.equal(JSON.stringify(a.intersection(FieldSet.of([f('x'), f('y')])).toFieldsV1()), '{"f:x":{"f:y":{}}}');
  assert.equal(JSON.stringify(b.union(FieldSet.of([f('z'), f('v')])).toFieldsV1()), '{"f:x":{},"f:z":{".":{},"f:v":{}}}');
  assert.deepEqual(a.paths().map(pathString), ['.x', '.x.y', '.z.w']);
});

void test('compare reports added, modified and removed fields, with the containers that appear', () => {
  const c = compareValues({ metadata: { name: 'a' }, data: { a: '1', b: '2' } }, { metadata: { name: 'a', labels: { x: 'y' } }, data: { a: '9' } }, atom);
  assert.deepEqual(c.added.paths().map(pathString), ['.metadata.labels', '.metadata.labels.x']);
  assert.deepEqual(c.modified.paths().map(pathString), ['.data.a']);
  assert.deepEqual(c.removed.paths().map(pathString), ['.data.b']);
  const lists = compareValues(
    { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '1' }], tags: ['x'], args: ['1'] } },
    { spec: { containers: [{ name: 'b', image: '2' }], tags: ['x', 'y'], args: ['2'] } },
    atom,
  );
  assert.deepEqual(lists.added.paths().map(pathString), ['.spec.tags[="y"]']);
  assert.deepEqual(lists.modified.paths().map(pathString), ['.spec.args', '.spec.containers[name="b"].image']);
  assert.deepEqual(lists.removed.paths().map(pathString), ['.spec.containers[name="a"]', '.spec.containers[name="a"].image', '.spec.containers[name="a"].name']);
});

void test('merge: rhs wins at leaves, maps merge, keyed and set lists merge by key keeping the live order', () => {
  const live = { spec: { replicas: 1, containers: [{ name: 'a', image: '1' }, { name: 'b', image: '1' }], tags: ['x', 'y'], selector: { a: '1', b: '2' } }, data: { k: 'v' } };
  const config = { spec: { replicas: 3, containers: [{ name: 'c', image: '3' }, { name: 'b', image: '2' }], tags: ['z', 'x'], selector: { c: '3' } } };
  assert.deepEqual(mergeValues(live, config, atom), {
    spec: {
      replicas: 3,
      containers: [{ name: 'a', image: '1' }, { name: 'c', image: '3' }, { name: 'b', image: '2' }],
      tags: ['z', 'x', 'y'],
      selector: { c: '3' },
    },
    data: { k: 'v' },
  });
  assert.deepEqual(mergeValues({ spec: { args: ['a', 'b'] } }, { spec: { args: ['c'] } }, atom), { spec: { args: ['c'] } });
});

void test('remove drops members with their subtrees and leaves emptied containers null', () => {
  const obj = { data: { a: '1', b: '2' }, spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '2' }], tags: ['x'] } };
  assert.deepEqual(removeItems(obj, FieldSet.of([f('data'), f('a')], [f('spec'), f('containers'), keyElement([['name', 'a']])]), atom), {
    data: { b: '2' },
    spec: { containers: [{ name: 'b', image: '2' }], tags: ['x'] },
  });
  assert.deepEqual(removeItems(obj, FieldSet.of([f('spec'), f('tags'), valueElement('x')]), atom), { data: obj.data, spec: { containers: obj.spec.containers, tags: null } });
});

void test('an applied configuration whose keyed lists cannot be keyed is reported with smd paths', () => {
  assert.deepEqual(validateForApply({ spec: { containers: [{ image: 'x' }] } }, atom), [
    '.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
  ]);
  assert.deepEqual(validateForApply({ metadata: { ownerReferences: [{ uid: '1' }, { uid: '1' }] } }, atom), ['.metadata.ownerReferences: duplicate entries for key [uid="1"]']);
  assert.deepEqual(validateForApply({ spec: { tags: [{ a: 1 }] } }, atom), [".spec.tags: element 0: associative list without keys has an element that's a map type"]);
  assert.deepEqual(validateForApply({ spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP' }] }] } }, atom), [
    '.spec.containers[name="c"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]',
  ]);
});

void test('a runtime.RawExtension is one atomic value whatever its schema says (kube fixes its atom)', () => {
  const rawExtension = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
  const definitions = {
    [rawExtension]: { type: 'object' as const, 'x-kubernetes-preserve-unknown-fields': true },
    revision: { type: 'object' as const, properties: { data: { allOf: [{ $ref: `#/components/schemas/${rawExtension}` }] }, revision: { type: 'integer' as const } } },
  };
  const revision = schemaAtom({ $ref: '#/components/schemas/revision' }, definitions);
  assert.deepEqual(toFieldSet({ data: { spec: { replicas: 1 } }, revision: 1 }, revision).toFieldsV1(), { 'f:data': {}, 'f:revision': {} });
});
