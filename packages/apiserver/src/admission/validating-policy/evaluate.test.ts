/**
 * A compiled policy evaluated as kube's validator does: the messages below are the ones
 * kube-apiserver 1.32.13 answered for the same policies (see validating-policy.test.ts for
 * the same through HTTP).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePolicy } from './compile.js';
import { validatePolicy, type PolicyInput } from './evaluate.js';
import type { PolicySpec } from './policy-types.js';

const input = (object: unknown, params: unknown = null): PolicyInput => ({ object, oldObject: null, request: { operation: 'CREATE' }, params, namespaceObject: null });
const deployment = (name: string, replicas: number, labels?: Record<string, string>) => ({ metadata: { name, ...(labels ? { labels } : {}) }, spec: { replicas } });

const spec: PolicySpec = {
  failurePolicy: 'Fail',
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
  variables: [{ name: 'reps', expression: 'object.spec.replicas' }, { name: 'bad', expression: 'object.spec.nope' }],
  validations: [
    { expression: 'variables.reps <= int(params.data.maxReplicas)', messageExpression: "'replicas ' + string(object.spec.replicas) + ' > ' + params.data.maxReplicas" },
    { expression: "object.metadata.name != 'err' || variables.bad == 1", message: 'bad' },
    { expression: "object.metadata.name != 'msgerr'", messageExpression: 'string(object.spec.nope)' },
    { expression: "object.metadata.name != 'fbd'", reason: 'Forbidden', message: '  spaced  ' },
  ],
  auditAnnotations: [{ key: 'reps', valueExpression: "'r=' + string(object.spec.replicas)" }],
};
const params = { data: { maxReplicas: '3' } };

void describe('validatePolicy', () => {
  const policy = compilePolicy(spec);
  const denials = (object: unknown) => validatePolicy(policy, input(object, params)).decisions.filter((d) => d.action === 'deny');

  void it('admits what passes, and publishes the audit annotation', () => {
    const result = validatePolicy(policy, input(deployment('ok', 1), params));
    assert.deepEqual(result.decisions.map((d) => d.action), ['admit', 'admit', 'admit', 'admit']);
    assert.deepEqual(result.auditAnnotations, [{ key: 'reps', action: 'publish', value: 'r=1' }]);
  });

  void it('messageExpression gives the message; reason defaults to Invalid', () => {
    const [denied, ...more] = denials(deployment('web', 5));
    assert.deepEqual(more, []);
    const { elapsedSeconds, ...decision } = denied!;
    assert.deepEqual(decision, { action: 'deny', evaluation: 'deny', message: 'replicas 5 > 3', reason: 'Invalid' });
    // The validation's own evaluation time (kube's Elapsed, for the check_duration_seconds metric).
    assert.ok(elapsedSeconds > 0 && elapsedSeconds < 1, String(elapsedSeconds));
  });

  void it('a variable fails only when read, with kube\'s words', () => {
    assert.deepEqual(denials(deployment('err', 1)).map((d) => [d.evaluation, d.message]), [
      ['error', 'expression \'object.metadata.name != \'err\' || variables.bad == 1\' resulted in error: composited variable "bad" fails to evaluate: no such key: nope'],
    ]);
  });

  void it('a failing messageExpression falls back to the expression', () => {
    assert.deepEqual(denials(deployment('msgerr', 1)).map((d) => d.message), ["failed expression: object.metadata.name != 'msgerr'"]);
  });

  void it('message is trimmed; reason Forbidden is kept', () => {
    assert.deepEqual(denials(deployment('fbd', 1)).map((d) => [d.message, d.reason]), [['spaced', 'Forbidden']]);
  });

  void it('a false matchCondition skips the policy', () => {
    assert.deepEqual(validatePolicy(policy, input(deployment('web', 5, { exempt: 'yes' }), params)), { decisions: [], auditAnnotations: [] });
  });

  void it('with failurePolicy Ignore an error admits', () => {
    const ignoring = compilePolicy({ ...spec, failurePolicy: 'Ignore' });
    assert.deepEqual(validatePolicy(ignoring, input(deployment('err', 1), params)).decisions.map((d) => d.action), ['admit', 'admit', 'admit', 'admit']);
  });

  void it('a matchCondition error follows failurePolicy', () => {
    const failing = compilePolicy({ validations: [{ expression: 'true' }], matchConditions: [{ name: 'x', expression: "'exempt' in object.metadata.labels" }] });
    assert.deepEqual(validatePolicy(failing, input(deployment('a', 1))).decisions, [
      { action: 'deny', evaluation: 'error', message: "expression ''exempt' in object.metadata.labels' resulted in error: no such key: labels", reason: '', elapsedSeconds: 0 },
    ]);
    const ignoring = compilePolicy({ failurePolicy: 'Ignore', validations: [{ expression: 'false' }], matchConditions: [{ name: 'x', expression: "'exempt' in object.metadata.labels" }] });
    assert.deepEqual(validatePolicy(ignoring, input(deployment('a', 1))).decisions, []);
  });

  void it('an expression that does not compile is reported when evaluated', () => {
    const broken = compilePolicy({ validations: [{ expression: 'object.spec.replicas +' }] });
    const [decision] = validatePolicy(broken, input(deployment('a', 1))).decisions;
    assert.equal(decision?.evaluation, 'error');
    assert.match(decision?.message ?? '', /^compilation error: compilation failed: ERROR: <input>:1:/);
  });

  void it('an audit annotation that is not a string or null does not compile, and is an error', () => {
    const wrong = compilePolicy({ validations: [], auditAnnotations: [{ key: 'k', valueExpression: 'object.spec.replicas' }] });
    const result = validatePolicy(wrong, input(deployment('a', 1)));
    assert.deepEqual(result.auditAnnotations, [{ key: 'k', action: 'error', error: 'compilation error: must evaluate to one of [string null_type]' }]);
  });
});
