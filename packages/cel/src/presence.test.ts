import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kapi/machinery';
import { compileRule, declTypeFromSchema } from './index.js';

// HTTPRoute's shape: rules[].matches[].path
const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    matches: {
      type: 'array',
      maxItems: 8,
      items: { type: 'object', properties: { path: { type: 'object', properties: { type: { type: 'string' }, value: { type: 'string' } } } } },
    },
  },
};
const self = declTypeFromSchema(schema)!;

void describe('has() on a selection of any expression', () => {
  void it('compiles and evaluates has(self.matches[0].path), as in Gateway API HTTPRoute', () => {
    const r = compileRule("self.matches.size() == 0 || !has(self.matches[0].path) || self.matches[0].path.value != ''", { self });
    if (!r.ok) assert.fail(r.errors.join('\n'));
    assert.equal(r.program.outputType, 'bool');
    const ev = (v: unknown) => { const o = r.program.evaluate({ self: v }); return o.ok ? o.value : o.error; };
    assert.equal(ev({ matches: [{}] }), true);
    assert.equal(ev({ matches: [{ path: { value: '' } }] }), false);
    assert.equal(ev({ matches: [{ path: { value: '/a' } }] }), true);
  });

  void it('has() of a field of a list element inside a quantifier and of a nested field', () => {
    const r = compileRule('self.matches.all(m, !has(m.path) || has(self.matches[0].path.type))', { self });
    if (!r.ok) assert.fail(r.errors.join('\n'));
    const o = r.program.evaluate({ self: { matches: [{ path: { type: 'Exact' } }] } });
    assert.deepEqual(o.ok && o.value, true);
  });

  void it('still refuses an undefined field under an index, at has()\'s parenthesis as cel-go does', () => {
    const r = compileRule('has(self.matches[0].nope)', { self });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.errors[0]! : '', /^ERROR: <input>:1:4: undefined field 'nope'/);
  });

  void it('still refuses has() of something that is not a selection', () => {
    const r = compileRule('has(self.matches[0])', { self });
    assert.equal(r.ok, false);
  });
});

void describe('matches() reads its pattern as RE2', () => {
  const str = declTypeFromSchema({ type: 'string' })!;
  const run = (expr: string, value: string) => {
    const r = compileRule(expr, { self: str });
    if (!r.ok) return assert.fail(r.errors.join('\n'));
    const o = r.program.evaluate({ self: value });
    return o.ok ? o.value : o.error;
  };
  void it("GRPCRoute's service pattern: (?i) after ^", () => {
    const rule = "self.matches(r'''^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$''')";
    assert.equal(run(rule, 'Foo.Bar_1'), true);
    assert.equal(run(rule, 'foo..bar'), false);
  });
  void it('. does not match a newline; a pattern RE2 refuses fails with Go\'s text', () => {
    assert.equal(run("self.matches('^a.b$')", 'a\nb'), false);
    assert.equal(run('self.matches(self)', '(a'), 'error parsing regexp: missing closing ): `(a`');
  });
  void it('a literal pattern RE2 refuses does not compile (kube: invalid matches argument)', () => {
    const r = compileRule("self.matches('a(?=b)')", { self: str });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.errors[0]! : '', /invalid matches argument/);
  });
});
