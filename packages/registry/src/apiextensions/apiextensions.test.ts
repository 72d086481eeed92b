import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { desiredStatus } from './crd-status.js';
import type { CustomResourceDefinition } from './crd-types.js';
import { defaultCrd } from './crd-resource.js';
import { customResourceDefinition, printerColumnsFor } from './custom-resource.js';
import { nameValidatorFor } from '../validate-object.js';
import { compileJsonPath, evaluateJsonPath, simpleJsonPathProblem } from './jsonpath.js';
import { validateSchemaDefaults, validateStructuralSchema } from './structural-schema.js';

function crd(name: string, names: Record<string, unknown>, versions: Record<string, unknown>[] = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }]): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: { group: 'example.com', scope: 'Namespaced', names, versions },
  } as CustomResourceDefinition;
}

void describe('simple JSONPath', () => {
  const obj = { spec: { replicas: 3, 'a.b': 1 }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] } };
  void it('fields, indexes, quoted keys, wildcards and equality filters', () => {
    assert.deepEqual(evaluateJsonPath(compileJsonPath('.spec.replicas'), obj), [3]);
    assert.deepEqual(evaluateJsonPath(compileJsonPath("{.spec['a.b']}"), obj), [1]);
    assert.deepEqual(evaluateJsonPath(compileJsonPath('.status.conditions[1].type'), obj), ['Synced']);
    assert.deepEqual(evaluateJsonPath(compileJsonPath('.status.conditions[*].status'), obj), ['True', 'False']);
    assert.deepEqual(evaluateJsonPath(compileJsonPath('.status.conditions[?(@.type=="Ready")].status'), obj), ['True']);
    assert.deepEqual(evaluateJsonPath(compileJsonPath('.spec.missing'), obj), []);
  });
  void it("kube's validation texts", () => {
    assert.equal(simpleJsonPathProblem(''), 'must not be empty');
    assert.equal(simpleJsonPathProblem('spec.x'), 'must be a simple json path starting with .');
    assert.equal(simpleJsonPathProblem('.spec[x'), 'must be a json path in the dot notation');
    assert.equal(simpleJsonPathProblem('.spec.x'), undefined);
  });
});

void describe('structural schema', () => {
  void it('accepts int-or-string, preserve-unknown-fields without type and embedded resources', () => {
    const errs = validateStructuralSchema(
      {
        type: 'object',
        properties: {
          a: { 'x-kubernetes-int-or-string': true },
          b: { 'x-kubernetes-preserve-unknown-fields': true },
          c: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          d: { type: 'array', items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] },
          // controller-gen's IntOrString: the two types spelled out under anyOf (or allOf[0].anyOf).
          e: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^[0-9]+%?$' } as JSONSchemaProps,
          f: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] } as JSONSchemaProps] },
        },
      },
      'spec.versions[0].schema.openAPIV3Schema',
    );
    assert.deepEqual(errs, []);
  });
  void it("patterns are RE2 as in kube: (?i) after ^ is accepted, lookahead and backreferences refused with Go's text", () => {
    const schema = (a: string, b: string) => ({ type: 'object', properties: { a: { type: 'string', pattern: a }, b: { type: 'string', pattern: b } } }) as JSONSchemaProps;
    assert.deepEqual(validateStructuralSchema(schema('^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$', '^(?i:x)y$'), 'p'), []);
    // kube-apiserver 1.32.13's causes for the same schema
    assert.deepEqual(
      validateStructuralSchema(schema('a(?=b)', '(a)\\1'), 'p').map((e) => `${e.field}: ${e.message}`),
      [
        'p.properties[a].pattern: Invalid value: "a(?=b)": must be a valid regular expression, but isn\'t: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
        'p.properties[b].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn\'t: error parsing regexp: invalid escape sequence: `\\1`',
      ],
    );
  });
  void it('types under anyOf are refused without x-kubernetes-int-or-string', () => {
    const errs = validateStructuralSchema({ type: 'object', properties: { e: { type: 'string', anyOf: [{ type: 'integer' }, { type: 'string' }] } as JSONSchemaProps } }, 'p');
    assert.deepEqual(
      errs.map((e) => e.field),
      ['p.properties[e].anyOf[0].type', 'p.properties[e].anyOf[1].type'],
    );
  });
  void it('list-type and nested value validation rules', () => {
    const messages = validateStructuralSchema(
      {
        type: 'object',
        properties: {
          m: { type: 'array', items: { type: 'object', properties: {} }, 'x-kubernetes-list-type': 'map' },
          s: { type: 'string', 'x-kubernetes-list-type': 'set' },
          n: { type: 'string', allOf: [{ type: 'string' }] },
          r: { type: 'object', $ref: '#/definitions/x' },
          set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } },
          keyed: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } },
        },
      },
      'p',
    ).map((e) => `${e.field}: ${e.message}`);
    assert.deepEqual(messages.sort(), [
      'p.properties[keyed].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      'p.properties[m].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
      'p.properties[n].allOf[0].type: Forbidden: must be empty to be structural',
      'p.properties[r].$ref: Forbidden: $ref is not supported',
      'p.properties[s].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified',
      'p.properties[set].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set',
    ]);
  });
});

void describe('schema defaults', () => {
  void it('must be valid against their own schema', () => {
    const messages = validateSchemaDefaults(
      { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string', default: 5 }, n: { type: 'integer', minimum: 1, default: 0 }, ok: { type: 'string', default: 'x' } } } } },
      'spec.versions[0].schema.openAPIV3Schema',
    ).map((e) => `${e.field}: ${e.message}`);
    assert.deepEqual(messages, [
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].default: Invalid value: "integer": spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].default in body must be of type string: "integer"',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[n].default: Invalid value: 0: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[n].default in body should be greater than or equal to 1',
    ]);
  });
});

void describe('CRD status', () => {
  void it('accepts free names, refuses names another CRD of the group holds', () => {
    const first = crd('widgets.example.com', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['w'] });
    first.status = desiredStatus(first, [first]);
    assert.deepEqual(first.status.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`), ['NamesAccepted=True/NoConflicts', 'Established=True/InitialNamesAccepted']);
    assert.deepEqual(first.status.storedVersions, ['v1']);
    const second = crd('wodgets.example.com', { plural: 'wodgets', singular: 'wodget', kind: 'Widget', listKind: 'WodgetList' });
    const status = desiredStatus(second, [first, second]);
    assert.deepEqual(status.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}/${c.message}`), [
      'NamesAccepted=False/KindConflict/"Widget" is already in use',
      'Established=False/NotAccepted/not all names are accepted',
    ]);
    const again = desiredStatus({ ...first, status: first.status }, [first]);
    assert.deepEqual(again, first.status, 'stable: lastTransitionTime is kept');
  });
});

void describe('custom resource definitions from CRDs', () => {
  const versions = [
    { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
    { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object' } } },
    { name: 'v1alpha1', served: false, storage: false, deprecated: true, deprecationWarning: 'use v1', schema: { openAPIV3Schema: { type: 'object' } } },
  ];
  const definition = customResourceDefinition(crd('widgets.example.com', { plural: 'widgets', kind: 'Widget' }, versions), { terminating: () => false });
  void it('deprecated versions carry kube\'s default warning or the CRD\'s own', () => {
    assert.equal(definition.versions[0]!.deprecated, undefined);
    assert.equal(definition.versions[1]!.deprecated?.warning, 'example.com/v1beta1 Widget is deprecated');
    assert.equal(definition.versions[2]!.deprecated?.warning, 'use v1');
    assert.equal(definition.versions[2]!.served, false);
  });
  void it('stores under <group>/<plural>, refuses strategic merge, names are DNS-1123 subdomains', () => {
    assert.equal(definition.storagePrefix, 'example.com/widgets');
    assert.equal(definition.strategicMergePatch, false);
    // kube's custom-resource validator: NameIsDNSSubdomain (a Widget named W_10 is 422; issue 23).
    assert.match(nameValidatorFor(definition)('W_10', false).join(), /^a lowercase RFC 1123 subdomain must consist of/);
    assert.deepEqual(nameValidatorFor(definition)('w-10.a', false), []);
    assert.equal(definition.listKind, 'WidgetList');
  });
  void it('default printer columns: Name and Age', () => {
    assert.deepEqual(definition.printerColumns?.map((c) => `${c.definition.name}:${c.definition.type}`), ['Name:string', 'Age:date']);
    const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x', creationTimestamp: new Date(Date.now() - 90_000).toISOString() } } as KubeObject;
    assert.equal(definition.printerColumns?.[1]?.cell(obj, Date.now()), '90s');
  });
});

void describe('CRD defaulting', () => {
  void it('adds no printer-column priority, and drops an explicit 0 (kube omits the zero int32)', () => {
    const obj = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.a' }, { name: 'B', type: 'string', jsonPath: '.b', priority: 0 }, { name: 'C', type: 'string', jsonPath: '.c', priority: 1 }] }],
      },
    } as unknown as KubeObject;
    defaultCrd(obj);
    const columns = (obj as unknown as CustomResourceDefinition).spec!.versions![0]!.additionalPrinterColumns!;
    assert.deepEqual(columns.map((c) => c.priority), [undefined, undefined, 1]);
    assert.equal('priority' in columns[0]!, false);
  });
});

void describe('custom-resource printer columns', () => {
  void it('a column without a description is described by its JSONPath, as kube does', () => {
    const [, size] = printerColumnsFor({ name: 'v1', served: true, storage: true, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] });
    assert.equal(size?.definition.description, 'Custom resource definition column (in JSONPath format): .spec.size');
  });
});
