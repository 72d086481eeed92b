import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Authorizer, AuthorizerType, compileRule, DynType, ResourceCheck, ResourceCheckType, type AuthorizationCheck } from './index.js';

void describe('dotted variable names (authorizer.requestResource)', () => {
  const vars = { authorizer: AuthorizerType, 'authorizer.requestResource': ResourceCheckType, object: DynType };
  const asked: AuthorizationCheck[] = [];
  const authorizer = new Authorizer({
    authorize(check) {
      asked.push(check);
      return { decision: check.verb === 'get' ? 'Allow' : 'Deny', reason: `said ${check.verb}` };
    },
  });
  const requestResource = new ResourceCheck(authorizer, { apiGroup: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web' });
  const run = (expression: string) => {
    const compiled = compileRule(expression, { vars });
    assert.ok(compiled.ok, compiled.ok ? '' : compiled.errors.join('\n'));
    return compiled.program.evaluate({ authorizer, 'authorizer.requestResource': requestResource, object: {} });
  };

  void it('resolves to the declared variable, checks its attributes, and chains like any resource check', () => {
    asked.length = 0;
    const allowed = run("authorizer.requestResource.check('get').allowed()");
    assert.equal(allowed.ok && allowed.value, true);
    assert.deepEqual(asked[0], { apiGroup: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web', verb: 'get' });
    const sub = run("authorizer.requestResource.subresource('scale').check('update').reason()");
    assert.equal(sub.ok && sub.value, 'said update');
    assert.equal(asked.at(-1)?.subresource, 'scale');
    const errored = run("authorizer.requestResource.check('delete').errored()");
    assert.equal(errored.ok && errored.value, false);
  });

  void it('the authorizer variable itself still works beside it', () => {
    const r = run("authorizer.group('').resource('pods').check('get').allowed()");
    assert.equal(r.ok && r.value, true);
  });

  void it('refuses what kube refuses, in its words (kube-apiserver v1.32.13, through a policy)', () => {
    const errors = (expression: string) => {
      const r = compileRule(expression, { vars });
      return r.ok ? [] : r.errors;
    };
    assert.deepEqual(errors("authorizer.requestResource.check(1).allowed()"), [
      "ERROR: <input>:1:33: found no matching overload for 'check' applied to 'kubernetes.authorization.ResourceCheck.(int)'\n | authorizer.requestResource.check(1).allowed()\n | ................................^",
    ]);
    assert.deepEqual(errors("authorizer.requestResource.namespace == ''"), [
      "ERROR: <input>:1:27: unexpected failed resolution of 'kubernetes.authorization.ResourceCheck'\n | authorizer.requestResource.namespace == ''\n | ..........................^",
    ]);
    assert.deepEqual(errors('authorizer.foo == 1'), [
      "ERROR: <input>:1:11: unexpected failed resolution of 'kubernetes.authorization.Authorizer'\n | authorizer.foo == 1\n | ..........^",
    ]);
  });
});
