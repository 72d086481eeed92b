import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from './schema.js';
import { isInt64, nonFiniteNumberError, typedDecodeError, WELL_KNOWN_TYPES } from './typed-decode.js';

const ref = (name: string): JSONSchemaProps => ({ allOf: [{ $ref: `#/components/schemas/${name}` }], description: 'x' });

/** A kind with every shape the decoder knows; definitions named as kube names them. */
const definitions: Record<string, JSONSchemaProps> = {
  'io.k8s.api.test.v1.ThingSpec': {
    type: 'object',
    properties: {
      replicas: { type: 'integer', format: 'int32' },
      size: { type: 'integer', format: 'int64' },
      ratio: { type: 'number', format: 'float' },
      weight: { type: 'number', format: 'double' },
      enabled: { type: 'boolean' },
      name: { type: 'string' },
      uid: { type: 'string', 'x-kapi-go-type': 'types.UID' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      items: { type: 'array', items: ref('io.k8s.api.test.v1.Item') },
      tags: { type: 'array', items: { type: 'string' } },
      renewTime: ref(WELL_KNOWN_TYPES.microTime),
      startTime: ref(WELL_KNOWN_TYPES.time),
      memory: ref(WELL_KNOWN_TYPES.quantity),
      port: ref(WELL_KNOWN_TYPES.intOrString),
      raw: ref(WELL_KNOWN_TYPES.rawExtension),
      blob: { type: 'string', format: 'byte' },
      inline: { type: 'object', 'x-kapi-go-type': 'v1.InlineThing', properties: { count: { type: 'integer', format: 'int32' } } },
    },
  },
  'io.k8s.api.test.v1.Item': { type: 'object', properties: { weight: { type: 'integer', format: 'int32' } } },
};

const thing: JSONSchemaProps = {
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, spec: ref('io.k8s.api.test.v1.ThingSpec') },
};

const decode = (spec: Record<string, unknown>) => typedDecodeError({ apiVersion: 'test/v1', kind: 'Thing', spec }, thing, { definitions, rootStruct: 'Thing' });
const field = (path: string, what: string, type: string) => `json: cannot unmarshal ${what} into Go struct field ThingSpec.spec.${path} of type ${type}`;

void describe('typedDecodeError (Go typed JSON decoding driven by schemas)', () => {
  void it('accepts values the Go types hold, and null anywhere', () => {
    assert.equal(
      decode({
        replicas: 2147483647,
        size: -9007199254740991,
        ratio: 1.5,
        weight: 1e300,
        enabled: true,
        name: 'n',
        uid: 'u',
        labels: { a: 'b' },
        items: [{ weight: 1 }],
        tags: ['t'],
        renewTime: '2024-01-02T03:04:05.000006Z',
        startTime: '2024-01-02T03:04:05+01:00',
        memory: '1Gi',
        port: 'http',
        raw: { anything: [1, 'x'] },
        blob: 'YWJj',
        inline: { count: 1 },
      }),
      undefined,
    );
    assert.equal(decode({ replicas: null, startTime: null, memory: null, labels: { a: null }, items: [null] }), undefined);
    assert.equal(decode({ memory: 1.5, port: 8080 }), undefined);
  });

  void it('refuses integers out of their range or with a fraction, numbers as written by JavaScript', () => {
    assert.equal(decode({ replicas: 2147483648 }), field('replicas', 'number 2147483648', 'int32'));
    assert.equal(decode({ replicas: -2147483649 }), field('replicas', 'number -2147483649', 'int32'));
    assert.equal(decode({ replicas: 1.5 }), field('replicas', 'number 1.5', 'int32'));
    assert.equal(decode({ size: 1e29 }), field('size', 'number 1e+29', 'int64'));
    assert.equal(decode({ size: 2 ** 63 }), field('size', 'number 9223372036854776000', 'int64'));
    // -2^63 itself would be written back as -9223372036854776000, which no int64 holds.
    assert.equal(decode({ size: -(2 ** 63) }), field('size', 'number -9223372036854776000', 'int64'));
    assert.equal(decode({ ratio: 1e39 }), field('ratio', 'number 1e+39', 'float32'));
    assert.equal(decode({ size: Infinity }), field('size', 'number Infinity', 'int64'));
  });

  void it('names the JSON kind of a value of the wrong type, and the Go type (named types from hints, composites spelled out)', () => {
    assert.equal(decode({ name: 5 }), field('name', 'number', 'string'));
    assert.equal(decode({ uid: true }), field('uid', 'bool', 'types.UID'));
    assert.equal(decode({ enabled: 'yes' }), field('enabled', 'string', 'bool'));
    assert.equal(decode({ replicas: '5' }), field('replicas', 'string', 'int32'));
    assert.equal(decode({ labels: [] }), field('labels', 'array', 'map[string]string'));
    assert.equal(decode({ items: {} }), field('items', 'object', '[]v1.Item'));
    assert.equal(decode({ tags: 'x' }), field('tags', 'string', '[]string'));
    assert.equal(decode({ blob: 5 }), field('blob', 'number', '[]uint8'));
    assert.equal(
      typedDecodeError({ spec: 5 }, thing, { definitions, rootStruct: 'Thing' }),
      'json: cannot unmarshal number into Go struct field Thing.spec of type v1.ThingSpec',
    );
  });

  void it('names the innermost struct and the field path without indexes or map keys', () => {
    assert.equal(decode({ labels: { a: 1 } }), field('labels', 'number', 'string'));
    assert.equal(decode({ items: [{ weight: 1 }, { weight: 'x' }] }), 'json: cannot unmarshal string into Go struct field Item.spec.items.weight of type int32');
    assert.equal(decode({ inline: { count: 1.5 } }), 'json: cannot unmarshal number 1.5 into Go struct field InlineThing.spec.inline.count of type int32');
  });

  void it('reports the first mismatch in document order, unless a well-known type fails later (that stops decoding)', () => {
    assert.equal(decode({ name: 1, replicas: 'x' }), field('name', 'number', 'string'));
    assert.equal(decode({ replicas: 'x', name: 1 }), field('replicas', 'string', 'int32'));
    assert.equal(
      decode({ name: 1, startTime: 'yesterday' }),
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    // base64's own error is remembered like a mismatch, without field context.
    assert.equal(decode({ blob: 'YWJj!', name: 1 }), 'illegal base64 data at input byte 4');
  });

  void it('parses Time and MicroTime with their layouts; a non-string is a mismatch with context', () => {
    assert.equal(
      decode({ renewTime: '2024-01-02T03:04:05Z' }),
      'parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
    assert.equal(decode({ startTime: '2024-01-02T03:04:05.123456789Z' }), undefined);
    assert.equal(decode({ startTime: 5 }), field('startTime', 'number', 'string'));
    assert.equal(decode({ renewTime: {} }), field('renewTime', 'object', 'string'));
  });

  void it('parses quantities as ParseQuantity does (strings trimmed, numbers as written), int-or-strings as int32 or string', () => {
    assert.equal(decode({ memory: ' 1Gi\n' }), undefined);
    assert.equal(decode({ memory: '1Ki5' }), "unable to parse quantity's suffix");
    assert.equal(decode({ memory: { a: 1 } }), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    assert.equal(decode({ port: 1.5 }), field('port', 'number 1.5', 'int32'));
    assert.equal(decode({ port: true }), field('port', 'bool', 'int32'));
  });

  void it('refuses a number beyond the double range even where any JSON is taken', () => {
    assert.equal(decode({ raw: { a: [1, -Infinity] } }), 'json: cannot unmarshal number -Infinity into Go value of type float64');
    assert.equal(nonFiniteNumberError({ a: [{ b: 1e308 }] }), undefined);
    assert.equal(nonFiniteNumberError({ a: [{ b: Infinity }] }), 'json: cannot unmarshal number Infinity into Go value of type float64');
  });

  void it('skips fields the type does not have', () => {
    assert.equal(decode({ unknown: 'x', other: { replicas: 'x' } }), undefined);
  });

  void it('follows sorted keys when asked (metadata re-encoded from a Go map)', () => {
    const spec = definitions['io.k8s.api.test.v1.ThingSpec']!;
    const value = { name: 1, enabled: 'x' };
    assert.equal(typedDecodeError(value, spec, { definitions, rootStruct: 'ThingSpec' }), 'json: cannot unmarshal number into Go struct field ThingSpec.name of type string');
    assert.equal(
      typedDecodeError(value, spec, { definitions, rootStruct: 'ThingSpec', sortedKeys: true }),
      'json: cannot unmarshal string into Go struct field ThingSpec.enabled of type bool',
    );
  });

  void it("decodes apiextensions' schema-or types afresh, reporting inner mismatches in the holding field's context", () => {
    const PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
    const schemaDefinitions: Record<string, JSONSchemaProps> = {
      [PROPS]: {
        type: 'object',
        properties: {
          maxLength: { type: 'integer', format: 'int64' },
          items: { $ref: `#/components/schemas/${WELL_KNOWN_TYPES.schemaOrArray}` },
          additionalProperties: { $ref: `#/components/schemas/${WELL_KNOWN_TYPES.schemaOrBool}` },
          properties: { type: 'object', additionalProperties: { $ref: `#/components/schemas/${PROPS}` } },
        },
      },
    };
    const crd: JSONSchemaProps = { type: 'object', properties: { schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kapi-decode-as': PROPS } } };
    const check = (schema: unknown) => typedDecodeError({ schema }, crd, { definitions: schemaDefinitions, rootStruct: 'Crd' });
    // Recorded from apiextensions v0.32.13's types: the inner field (maxLength) is not in the path.
    assert.equal(check({ items: { maxLength: 1.5 } }), 'json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.schema.items of type int64');
    assert.equal(check({ items: [{}, { maxLength: 'x' }] }), 'json: cannot unmarshal string into Go struct field JSONSchemaProps.schema.items of type int64');
    assert.equal(check({ properties: { a: { maxLength: 1.5 } } }), 'json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.schema.properties.maxLength of type int64');
    assert.equal(check({ items: 5, additionalProperties: true }), undefined);
    assert.equal(check({ additionalProperties: 5 }), 'boolean or JSON schema expected');
    // The inner error stops decoding: it wins over an earlier mismatch.
    assert.equal(check({ maxLength: 'x', items: { maxLength: 1.5 } }), 'json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.schema.items of type int64');
  });

  void it('isInt64: integers strictly between -2^63 and 2^63 as doubles', () => {
    assert.equal(isInt64(2 ** 63 - 1024), true);
    assert.equal(isInt64(2 ** 63), false);
    assert.equal(isInt64(-(2 ** 63)), false);
    assert.equal(isInt64(1.5), false);
  });
});
