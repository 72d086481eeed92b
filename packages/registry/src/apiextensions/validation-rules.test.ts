/**
 * CRD validation rules without a server: the compiled rule tree run on objects, and the
 * checks of rules when a CRD is written. Every expected text was taken from kube-apiserver
 * v1.32.13 answering the same CRD and objects.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, JSONSchemaProps } from '@kapi/machinery';
import { validateSchemaRules } from './crd-rules.js';
import { parseRuleFieldPath } from './rule-field-path.js';
import { validateSchemaDefaults } from './structural-schema.js';
import { compileValidator, validateRules, type RuleNode } from './rule-validator.js';

const rules = (...r: Record<string, unknown>[]) => ({ 'x-kubernetes-validations': r }) as JSONSchemaProps;

/** The oracle's CRD (ranges.example.com): rules on objects, scalars, list items, maps, transitions. */
const rangeSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      ...rules({ rule: 'self.min <= self.max', message: 'min must be <= max' }, { rule: 'self.min != 3' }),
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
        dup: { type: 'string', ...rules({ rule: "self != 'x'", reason: 'FieldValueDuplicate' }) },
        me: {
          type: 'string',
          maxLength: 10,
          ...rules(
            { rule: "self != 'bad'", messageExpression: "self == 'bad' ? '' : 'x'" },
            { rule: "self != 'bad2'", messageExpression: "'x' + ['a','b'][size(self)]", message: 'fallback msg' },
            { rule: "self != 'bad3'", messageExpression: "'line1\\nline2'" },
          ),
        },
        opt: { type: 'integer', ...rules({ rule: '!oldSelf.hasValue() || self >= oldSelf.value()', optionalOldSelf: true, message: 'opt may not decrease' }) },
        div: { type: 'integer', ...rules({ rule: '10 / self > 1' }) },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string', ...rules({ rule: "self != 'Bad'", message: 'bad phase' }) } } },
  },
};

const range = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: 'example.com/v1',
  kind: 'Range',
  metadata: { name: 'a', namespace: 'default', resourceVersion: '7' },
  spec,
  ...(status !== undefined ? { status } : {}),
});
const lines = (errs: readonly FieldError[]) => errs.map((e) => `${e.type} ${e.field}: ${e.message}`);
const M = { min: 1, max: 2 };

function validator(schema: JSONSchemaProps): RuleNode {
  const v = compileValidator(schema);
  assert.ok(v !== undefined);
  return v;
}

void describe('validation rules on custom resources', () => {
  const v = validator(rangeSchema);
  const create = (spec: Record<string, unknown>) => lines(validateRules(v, range(spec)).errors);

  void it("a failed rule names the node's type and the message, or the rule", () => {
    assert.deepEqual(create({ min: 5, max: 1 }), ['FieldValueInvalid spec: Invalid value: "object": min must be <= max']);
    assert.deepEqual(create({ min: 3, max: 4 }), ['FieldValueInvalid spec: Invalid value: "object": failed rule: self.min != 3']);
    assert.deepEqual(create(M), []);
  });

  void it('list items, reasons and fieldPath; evaluation errors quote the rule', () => {
    assert.deepEqual(create({ ...M, tags: ['ta', 'xb', 'tc', 'yy'] }), ['FieldValueForbidden spec.tags[1]: Forbidden: tags must start with t', 'FieldValueForbidden spec.tags[3]: Forbidden: tags must start with t']);
    assert.deepEqual(create({ ...M, kv: { b: 'x' } }), ['FieldValueRequired spec.kv.a: Required value: a and b go together']);
    assert.deepEqual(create({ ...M, dup: 'x' }), ['FieldValueDuplicate spec.dup: Duplicate value: "string"']);
    assert.deepEqual(create({ dup: 'y' }), [
      'FieldValueInvalid spec: Invalid value: "object": no such key: min evaluating rule: min must be <= max',
      'FieldValueInvalid spec: Invalid value: "object": no such key: min evaluating rule: self.min != 3',
    ]);
    assert.deepEqual(create({ ...M, div: 0 }), ['FieldValueInvalid spec.div: Invalid value: "integer": division by zero evaluating rule: 10 / self > 1']);
    assert.deepEqual(create({ ...M, div: 20 }), ['FieldValueInvalid spec.div: Invalid value: "integer": failed rule: 10 / self > 1']);
  });

  void it('a messageExpression that fails, is empty or spans lines falls back to the message or the rule', () => {
    assert.deepEqual(create({ ...M, me: 'bad' }), ['FieldValueInvalid spec.me: Invalid value: "string": failed rule: self != \'bad\'']);
    assert.deepEqual(create({ ...M, me: 'bad2' }), ['FieldValueInvalid spec.me: Invalid value: "string": fallback msg']);
    assert.deepEqual(create({ ...M, me: 'bad3' }), ['FieldValueInvalid spec.me: Invalid value: "string": failed rule: self != \'bad3\'']);
  });

  void it('transition rules run only against an old value; optionalOldSelf runs on create with none', () => {
    assert.deepEqual(create({ ...M, name: 'n', level: 1, opt: 3 }), []);
    const old = range({ ...M, name: 'n1', level: 5, opt: 3 });
    const update = (spec: Record<string, unknown>) => lines(validateRules(v, range(spec), { old, ratchet: true }).errors);
    assert.deepEqual(update({ ...M, name: 'n2', level: 4, opt: 2 }), [
      'FieldValueInvalid spec.name: Invalid value: "string": name is immutable',
      'FieldValueInvalid spec.level: Invalid value: "integer": level may not decrease',
      'FieldValueInvalid spec.opt: Invalid value: "integer": opt may not decrease',
    ]);
    // A field absent before has no old value: its transition rule does not run.
    assert.deepEqual(lines(validateRules(v, range({ ...M, level: 1 }), { old: range(M), ratchet: true }).errors), []);
  });

  void it('ratcheting: a rule failing on an unchanged value warns on update; changed values and status writes fail', () => {
    const stricter = validator({
      ...rangeSchema,
      properties: {
        ...rangeSchema.properties,
        spec: {
          ...rangeSchema.properties!['spec']!,
          ...rules({ rule: 'self.min <= self.max', message: 'min must be <= max' }, { rule: 'self.min != 3' }, { rule: 'self.max < 2', message: 'max below 2' }),
          properties: { ...rangeSchema.properties!['spec']!.properties, dup: { type: 'string', ...rules({ rule: "self != 'y'", reason: 'FieldValueDuplicate' }) } },
        },
      },
    });
    const old = range({ ...M, dup: 'y', level: 1 });
    const same = validateRules(stricter, range({ ...M, dup: 'y', level: 1 }), { old, ratchet: true });
    assert.deepEqual(same.errors, []);
    assert.deepEqual(same.warnings.sort(), ['spec.dup: Duplicate value: "string"', 'spec: Invalid value: "object": max below 2']);
    const changed = validateRules(stricter, range({ ...M, dup: 'y', level: 2 }), { old, ratchet: true });
    assert.deepEqual(lines(changed.errors), ['FieldValueInvalid spec: Invalid value: "object": max below 2']);
    assert.deepEqual(changed.warnings, ['spec.dup: Duplicate value: "string"']);
    const status = validateRules(stricter, range({ ...M, dup: 'y', level: 1 }, { phase: 'x' }), { old });
    assert.deepEqual(lines(status.errors).sort(), ['FieldValueDuplicate spec.dup: Duplicate value: "string"', 'FieldValueInvalid spec: Invalid value: "object": max below 2']);
  });

  void it("a rule over its per-call cost limit stops validation with kube's message", () => {
    const quadratic = { type: 'array', maxItems: 1000, items: { type: 'integer' } } as JSONSchemaProps;
    const costly = validator({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            xs: { ...quadratic, ...rules({ rule: 'self.all(x, self.all(y, x >= 0))', message: 'all non-negative' }) },
            ys: { ...quadratic, ...rules({ rule: 'self.all(x, self.all(y, x >= 0))' }) },
          },
        },
      },
    });
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    assert.deepEqual(lines(validateRules(costly, range({ xs, ys: xs })).errors), [
      "FieldValueInvalid spec.xs: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: all non-negative",
    ]);
    assert.deepEqual(lines(validateRules(costly, range({ xs: xs.slice(0, 10), ys: xs.slice(0, 10) })).errors), []);
  });

  void it('map-list items meet their old selves by key, map values by key', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', ...rules({ rule: 'self == oldSelf', message: 'port is immutable' }) } } },
            },
            labels: { type: 'object', additionalProperties: { type: 'string', ...rules({ rule: 'self == oldSelf', message: 'labels are immutable' }) } },
          },
        },
      },
    };
    const v2 = validator(schema);
    const old = range({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }], labels: { x: '1' } });
    const now = range({ ports: [{ name: 'b', port: 3 }, { name: 'c', port: 4 }, { name: 'a', port: 1 }], labels: { x: '2', y: '3' } });
    assert.deepEqual(lines(validateRules(v2, now, { old, ratchet: true }).errors), [
      'FieldValueInvalid spec.ports[0].port: Invalid value: "integer": port is immutable',
      'FieldValueInvalid spec.labels[x]: Invalid value: "string": labels are immutable',
    ]);
  });

  void it('the root sees metadata.name and is named <nil>; a fieldPath into a map is appended as kube does; null values are not validated', () => {
    const v3 = validator({
      type: 'object',
      ...rules({ rule: "self.metadata.name.startsWith('a')", message: 'name must start with a' }),
      properties: {
        spec: {
          type: 'object',
          nullable: true,
          properties: { m: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 10 }, ...rules({ rule: "self.all(k, k != 'bad')", fieldPath: "['zz']", message: 'no bad keys' }) } },
        },
        other: { type: 'object', nullable: true, ...rules({ rule: 'false' }) },
      },
    });
    const obj = (name: string, spec: unknown) => ({ ...range({}), metadata: { name }, spec, other: null });
    assert.deepEqual(lines(validateRules(v3, obj('b', {})).errors), ['FieldValueInvalid <nil>: Invalid value: "object": name must start with a']);
    assert.deepEqual(lines(validateRules(v3, obj('a1', { m: { bad: '1' } })).errors), ['FieldValueInvalid spec.m.[zz]: Invalid value: "object": no bad keys']);
    assert.deepEqual(lines(validateRules(v3, obj('a2', null)).errors), []);
  });
});

void describe('rule fieldPath', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: { kv: { type: 'object', properties: { a: { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'object', properties: { x: { type: 'string' } } } }, 'a.b': { type: 'string' } },
  };
  void it('normalizes field and key accessors against the schema', () => {
    assert.deepEqual(parseRuleFieldPath('.kv.a', schema), { path: 'kv.a', schema: { type: 'string' } });
    assert.equal((parseRuleFieldPath(".m['k.1'].x", schema) as { path: string }).path, 'm[k.1].x');
    assert.equal((parseRuleFieldPath("['a.b']", schema) as { path: string }).path, 'a.b');
  });
  void it("refuses paths the schema does not have, with kube's reasons", () => {
    assert.deepEqual(parseRuleFieldPath('.nope', schema), { error: 'does not refer to a valid field' });
    assert.deepEqual(parseRuleFieldPath('kv', schema), { error: 'expected [ or . but got: kv' });
    assert.deepEqual(parseRuleFieldPath('.kv[', schema), { error: 'unexpected end of JSON path' });
    assert.deepEqual(parseRuleFieldPath(".kv['a'", schema), { error: 'unexpected end of JSON path' });
    assert.deepEqual(parseRuleFieldPath('.kv[a]', schema), { error: 'expected single quoted string but got a' });
  });
});

void describe('validation rules checked when a CRD is written', () => {
  const at = 'spec.validation.openAPIV3Schema';
  const check = (schema: JSONSchemaProps) => validateSchemaRules(schema, at, { compile: true }).map((e) => `${e.type} ${e.field} | ${e.message}`);
  const specWith = (...r: Record<string, unknown>[]): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        ...rules(...r),
        properties: {
          a: { type: 'string', maxLength: 5 },
          items: { type: 'array', maxItems: 5, items: { type: 'object', properties: { k: { type: 'string', maxLength: 5 } }, ...rules({ rule: 'self.k == oldSelf.k' }) } },
        },
      },
    },
  });
  const ruleAt = (i: number, field: string) => `${at}.properties[spec].x-kubernetes-validations[${i}].${field}`;
  const oldSelfItems = `FieldValueInvalid ${at}.properties[spec].properties[items].items.x-kubernetes-validations[0].rule | Invalid value: "self.k == oldSelf.k": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}.properties[spec].properties[items]`;

  void it("each rule's own fields (rules below still compile)", () => {
    assert.deepEqual(
      check(
        specWith(
          { rule: "self.a == 'x'", reason: 'Bogus' },
          { rule: "self.a == 'x'", fieldPath: '.b' },
          { rule: "self.a == 'x'", message: 'two\nlines' },
          { rule: "self.a ==\n 'x'" },
          { rule: '  ' },
          { rule: "self.a == 'x'", message: '  ' },
          { rule: "self.a == 'x'", messageExpression: '  ' },
          { rule: "self.a == 'x'", fieldPath: '  ' },
        ),
      ),
      [
        `FieldValueNotSupported ${ruleAt(0, 'reason')} | Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
        `FieldValueInvalid ${ruleAt(1, 'fieldPath')} | Invalid value: ".b": fieldPath must be a valid path`,
        `FieldValueInvalid ${ruleAt(2, 'message')} | Invalid value: "two\\nlines": message must not contain line breaks`,
        `FieldValueRequired ${ruleAt(3, 'message')} | Required value: message must be specified if rule contains line breaks`,
        `FieldValueRequired ${ruleAt(4, 'rule')} | Required value: rule is not specified`,
        `FieldValueInvalid ${ruleAt(5, 'message')} | Invalid value: "  ": message must be non-empty if specified`,
        `FieldValueRequired ${ruleAt(6, 'messageExpression')} | Required value: messageExpression must be non-empty if specified`,
        `FieldValueInvalid ${ruleAt(7, 'fieldPath')} | Invalid value: "  ": fieldPath must be non-empty if specified`,
        `FieldValueInvalid ${ruleAt(7, 'fieldPath')} | Invalid value: "  ": fieldPath must be a valid path`,
        oldSelfItems,
      ],
    );
  });

  void it('compile errors quote the rule as kube prints it; messageExpression type; optionalOldSelf without oldSelf', () => {
    const rule = (r: string, messageExpression = '') =>
      `apiextensions.ValidationRule{Rule:${JSON.stringify(r)}, Message:"", MessageExpression:${JSON.stringify(messageExpression)}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
    assert.deepEqual(
      check(
        specWith(
          { rule: 'self.nope > 1' },
          { rule: 'self.a' },
          { rule: "self.a == 'x'", messageExpression: '1' },
          { rule: "self.a == 'x'", messageExpression: 'self.zzz' },
          { rule: "self.a == 'x'", optionalOldSelf: true },
        ),
      ),
      [
        oldSelfItems,
        `FieldValueInvalid ${ruleAt(0, 'rule')} | Invalid value: ${rule('self.nope > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^`,
        `FieldValueInvalid ${ruleAt(1, 'rule')} | Invalid value: ${rule('self.a')}: cel expression must evaluate to a bool`,
        `FieldValueInvalid ${ruleAt(2, 'messageExpression')} | Invalid value: ${rule("self.a == 'x'", '1')}: messageExpression must evaluate to a string`,
        `FieldValueInvalid ${ruleAt(3, 'messageExpression')} | Invalid value: ${rule("self.a == 'x'", 'self.zzz')}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'zzz'\n | self.zzz\n | ....^`,
        `FieldValueInvalid ${ruleAt(4, 'optionalOldSelf')} | Invalid value: true: may not be set if oldSelf is not used in rule`,
      ],
    );
  });

  void it("RE2: literal patterns RE2 refuses; has() of an indexed element's field; (?i) after ^ (kube 1.32.13's texts)", () => {
    const rule = (r: string) =>
      `apiextensions.ValidationRule{Rule:${JSON.stringify(r)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
    assert.deepEqual(
      check(
        specWith(
          { rule: "self.a.matches('a(?=b)')" },
          { rule: "self.a.find('(?<!b)a') == ''" },
          { rule: "self.a.findAll('a++').size() == 0" },
          { rule: "self.items.size() == 0 || has(self.items[0].k) || self.a.matches('^(?i)[a-z]+$')" },
        ),
      ),
      [
        oldSelfItems,
        `FieldValueInvalid ${ruleAt(0, 'rule')} | Invalid value: ${rule("self.a.matches('a(?=b)')")}: compilation failed: ERROR: <input>:1:16: invalid matches argument\n | self.a.matches('a(?=b)')\n | ...............^`,
        `FieldValueInvalid ${ruleAt(1, 'rule')} | Invalid value: ${rule("self.a.find('(?<!b)a') == ''")}: program instantiation failed: error parsing regexp: invalid named capture: \`(?<!b)a\``,
        `FieldValueInvalid ${ruleAt(2, 'rule')} | Invalid value: ${rule("self.a.findAll('a++').size() == 0")}: program instantiation failed: error parsing regexp: invalid nested repetition operator: \`++\``,
      ],
    );
  });

  void it('estimated cost: per rule times how often its node can occur, and the total for the CRD', () => {
    const advice = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    const unbounded: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', ...rules({ rule: 'self == oldSelf' }) } } },
            },
            labels: { type: 'object', additionalProperties: { type: 'string', ...rules({ rule: 'self == oldSelf' }) } },
            m: { type: 'object', additionalProperties: { type: 'string' }, ...rules({ rule: "self.all(k, k != 'bad')" }) },
          },
        },
      },
    };
    const spec = `${at}.properties[spec].properties`;
    assert.deepEqual(check(unbounded), [
      `FieldValueForbidden ${spec}[labels].additionalProperties.x-kubernetes-validations[0].rule | Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${advice}`,
      `FieldValueForbidden ${spec}[labels].additionalProperties.x-kubernetes-validations[0].rule | Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `FieldValueForbidden ${spec}[ports].items.properties[port].x-kubernetes-validations[0].rule | Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `FieldValueForbidden ${spec}[m].x-kubernetes-validations[0].rule | Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `FieldValueForbidden ${at} | Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${advice}`,
    ]);
    // Bounded by maxItems, maxProperties and maxLength, the same rules fit.
    const bounded = structuredClone(unbounded);
    const props = bounded.properties!['spec']!.properties!;
    props['ports']!.maxItems = 10;
    Object.assign(props['labels']!, { maxProperties: 10, additionalProperties: { ...(props['labels']!.additionalProperties as JSONSchemaProps), maxLength: 10 } });
    Object.assign(props['m']!, { maxProperties: 10, additionalProperties: { type: 'string', maxLength: 10 } });
    assert.deepEqual(check(bounded), []);
    // A messageExpression's cost is checked on its own (a string of unbounded size costs too much).
    assert.deepEqual(check({ type: 'object', properties: { n: { type: 'integer', ...rules({ rule: 'self >= oldSelf', messageExpression: "'from ' + string(oldSelf) + ' to ' + string(self)" }) } } }), [
      `FieldValueForbidden ${at}.properties[n].x-kubernetes-validations[0].messageExpression | Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${advice}`,
      `FieldValueForbidden ${at}.properties[n].x-kubernetes-validations[0].messageExpression | Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `FieldValueForbidden ${at} | Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${advice}`,
    ]);
  });

  void it('defaults must pass the rules of their node: as an update from themselves, then as a create', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string', default: 'no', ...rules({ rule: "self.startsWith('y')", message: 'must start with y' }) },
            b: { type: 'string', default: 'x', ...rules({ rule: 'self == oldSelf', message: 'immutable' }) },
            c: { type: 'integer', default: 1, ...rules({ rule: 'oldSelf.hasValue() || self > 5', optionalOldSelf: true, message: 'new c must be > 5' }) },
            o: { type: 'object', default: { k: 'v' }, properties: { k: { type: 'string', maxLength: 5, ...rules({ rule: "self != 'v'", message: 'k must not be v' }) } } },
          },
        },
      },
    };
    assert.deepEqual(lines(validateSchemaDefaults(schema, at)), [
      `FieldValueInvalid ${at}.properties[spec].properties[a].default: Invalid value: "string": must start with y`,
      `FieldValueInvalid ${at}.properties[spec].properties[c].default: Invalid value: "integer": new c must be > 5`,
      `FieldValueInvalid ${at}.properties[spec].properties[o].default.k: Invalid value: "string": k must not be v`,
    ]);
  });

  void it('rules are not compiled where the schema is not usable', () => {
    assert.deepEqual(validateSchemaRules(specWith({ rule: 'self.nope' }), at, { compile: false }), []);
  });

  void it('a rule on a node without a type cannot be typed', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { x: { 'x-kubernetes-preserve-unknown-fields': true, ...rules({ rule: 'true' }) } } };
    assert.deepEqual(check(schema), [
      `InternalError ${at}.properties[x].x-kubernetes-validations | Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations`,
    ]);
  });
});
