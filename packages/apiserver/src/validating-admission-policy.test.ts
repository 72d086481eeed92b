/**
 * ValidatingAdmissionPolicy end to end on a real etcd, through HTTPS and kubectl: a policy
 * with a ConfigMap param giving the most replicas a Deployment may have, bound to deny, to
 * warn, by a param selector, with a missing param, matchConditions, failurePolicy on a
 * runtime error, an unknown paramKind, and the type-checking status the
 * validatingadmissionpolicy-status-controller writes. Every status, message and warning was
 * taken from kube-apiserver 1.32.13 (with kube-controller-manager for the status) given the
 * same objects.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { eventuallyValue, startSecureServer, type Identity, type SecureResponse, type SecureServer } from './testing/secure-server.js';

const admin: Identity = { token: 'admin-token' };
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

const deployment = (name: string, replicas: number, labels?: Record<string, string>) => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name, ...(labels !== undefined ? { labels } : {}) },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

const maxReplicas = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'max-replicas' },
  spec: {
    failurePolicy: 'Fail',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
    validations: [
      { expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: "'replicas ' + string(object.spec.replicas) + ' > ' + params.data.maxReplicas" },
      { expression: 'object.spec.replicas > 0', reason: 'Forbidden' },
    ],
  },
};

const binding = (name: string, policyName: string, spec: Record<string, unknown>) => ({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, ...spec },
});

const configMap = (name: string, max: string, labels?: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels !== undefined ? { labels } : {}) }, data: { maxReplicas: max },
});

const denial = (policy: string, bindingName: string, name: string, message: string, reason = 'Invalid', code = 422) => {
  const full = `ValidatingAdmissionPolicy '${policy}' with binding '${bindingName}' denied request: ${message}`;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `deployments.apps "${name}" is forbidden: ${full}`, reason, details: { name, group: 'apps', kind: 'deployments', causes: [{ message: full }] }, code };
};

void describe('ValidatingAdmissionPolicy', () => {
  let t: SecureServer;
  let dir: string;
  before(async () => {
    t = await startSecureServer({ tokens: ['admin-token,admin,admin-uid,"system:masters"'] });
    dir = mkdtempSync(join(tmpdir(), 'kapi-vap-'));
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (path: string, body: unknown): Promise<SecureResponse> => {
    const r = await t.request(admin, 'POST', path, { body });
    assert.equal(r.status, 201, r.text);
    return r;
  };
  const remove = async (path: string) => {
    const r = await t.request(admin, 'DELETE', path);
    assert.equal(r.status, 200, r.text);
  };
  /** Creates the deployment until the answer is the expected one (the policy informers catch up), then deletes what was created. */
  const expectCreate = async (body: ReturnType<typeof deployment>, check: (r: SecureResponse) => boolean): Promise<SecureResponse> => {
    const r = await eventuallyValue(`a create of ${body.metadata.name} answered as expected`, async () => {
      const res = await t.request(admin, 'POST', DEPLOYMENTS, { body });
      if (res.status === 201) await t.request(admin, 'DELETE', `${DEPLOYMENTS}/${body.metadata.name}`);
      return check(res) ? res : undefined;
    });
    return r;
  };
  const kubectlApply = async (obj: unknown) => {
    const file = join(dir, `obj-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(obj));
    return t.kubectl(admin, ['create', '-f', file]);
  };

  void it('a param denies with kube\'s message and code; reason Forbidden is 403; kubectl shows it', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('limits', '3'));
    await create(VAP, maxReplicas);
    await create(BINDINGS, binding('max-replicas-b', 'max-replicas', { validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }));
    const denied = await expectCreate(deployment('web', 5), (r) => r.status === 422);
    assert.deepEqual(denied.json, denial('max-replicas', 'max-replicas-b', 'web', 'replicas 5 > 3'));
    const zero = await expectCreate(deployment('zero', 0), (r) => r.status !== 201);
    assert.deepEqual(zero.json, denial('max-replicas', 'max-replicas-b', 'zero', 'failed expression: object.spec.replicas > 0', 'Forbidden', 403));
    await expectCreate(deployment('small', 2), (r) => r.status === 201);
    const out = await kubectlApply(deployment('web', 5));
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, /ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-b' denied request: replicas 5 > 3/);
    await remove(`${BINDINGS}/max-replicas-b`);
  });

  void it('validationActions [Warn] admits with kube\'s Warning header, which kubectl prints', async () => {
    await create(BINDINGS, binding('warn-b', 'max-replicas', { validationActions: ['Warn'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }));
    const warned = await expectCreate(deployment('web', 5), (r) => r.status === 201 && r.headers['warning'] !== undefined);
    assert.equal(warned.headers['warning'], `299 - "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'warn-b': replicas 5 > 3"`);
    const out = await kubectlApply(deployment('web2', 5));
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'warn-b': replicas 5 > 3/);
    await remove(`${DEPLOYMENTS}/web2`);
    await remove(`${BINDINGS}/warn-b`);
  });

  void it('paramRef.selector: every selected param is checked; none selected with Deny is a binding error', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('tier-a-4', '4', { tier: 'a' }));
    await create('/api/v1/namespaces/default/configmaps', configMap('tier-a-6', '6', { tier: 'a' }));
    await create(BINDINGS, binding('sel-b', 'max-replicas', { validationActions: ['Deny'], paramRef: { selector: { matchLabels: { tier: 'a' } }, parameterNotFoundAction: 'Deny' } }));
    const denied = await expectCreate(deployment('five', 5), (r) => r.status === 422);
    assert.deepEqual(denied.json, denial('max-replicas', 'sel-b', 'five', 'replicas 5 > 4'));
    await remove(`${BINDINGS}/sel-b`);
    await create(BINDINGS, binding('sel-none', 'max-replicas', { validationActions: ['Deny'], paramRef: { selector: { matchLabels: { tier: 'zz' } }, parameterNotFoundAction: 'Deny' } }));
    const none = await expectCreate(deployment('one', 1), (r) => r.status === 422);
    assert.deepEqual(none.json, denial('max-replicas', 'sel-none', 'one', 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction'));
    await remove(`${BINDINGS}/sel-none`);
  });

  void it('a missing param: Deny refuses, Allow skips the binding', async () => {
    await create(BINDINGS, binding('miss-deny', 'max-replicas', { validationActions: ['Deny'], paramRef: { name: 'nope', parameterNotFoundAction: 'Deny' } }));
    const denied = await expectCreate(deployment('web', 1), (r) => r.status === 422);
    assert.deepEqual(denied.json, denial('max-replicas', 'miss-deny', 'web', 'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction'));
    await remove(`${BINDINGS}/miss-deny`);
    await create(BINDINGS, binding('miss-allow', 'max-replicas', { validationActions: ['Deny'], paramRef: { name: 'nope', parameterNotFoundAction: 'Allow' } }));
    await expectCreate(deployment('web', 50), (r) => r.status === 201);
    // A param created afterwards applies at once (read through storage when the informer has not seen it yet).
    await create('/api/v1/namespaces/default/configmaps', configMap('nope', '1'));
    const now = await t.request(admin, 'POST', DEPLOYMENTS, { body: deployment('web', 50) });
    assert.equal(now.status, 422, now.text);
    await remove(`${BINDINGS}/miss-allow`);
  });

  void it('matchConditions, variables, messageExpression fallback and failurePolicy on a runtime error', async () => {
    const policy = (failurePolicy: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p2' },
      spec: {
        failurePolicy,
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
        variables: [{ name: 'reps', expression: 'object.spec.replicas' }, { name: 'bad', expression: 'object.spec.nope' }],
        validations: [
          { expression: 'variables.reps < 10', message: 'too many' },
          { expression: "object.metadata.name != 'err' || variables.bad == 1", message: 'bad' },
          { expression: "object.metadata.name != 'msgerr'", messageExpression: 'string(object.spec.nope)' },
        ],
      },
    });
    await create(VAP, policy('Fail'));
    await create(BINDINGS, binding('p2-b', 'p2', { validationActions: ['Deny'] }));
    const err = await expectCreate(deployment('err', 1), (r) => r.status === 422);
    assert.deepEqual(err.json, denial('p2', 'p2-b', 'err', 'expression \'object.metadata.name != \'err\' || variables.bad == 1\' resulted in error: composited variable "bad" fails to evaluate: no such key: nope'));
    const msg = await t.request(admin, 'POST', DEPLOYMENTS, { body: deployment('msgerr', 1) });
    assert.deepEqual(msg.json, denial('p2', 'p2-b', 'msgerr', "failed expression: object.metadata.name != 'msgerr'"));
    const many = await t.request(admin, 'POST', DEPLOYMENTS, { body: deployment('many', 20) });
    assert.deepEqual(many.json, denial('p2', 'p2-b', 'many', 'too many'));
    const exempt = await t.request(admin, 'POST', DEPLOYMENTS, { body: deployment('many', 20, { exempt: 'yes' }) });
    assert.equal(exempt.status, 201, exempt.text);
    await remove(`${DEPLOYMENTS}/many`);
    const current = await t.request(admin, 'GET', `${VAP}/p2`);
    const updated = await t.request(admin, 'PUT', `${VAP}/p2`, { body: { ...policy('Ignore'), metadata: { name: 'p2', resourceVersion: (current.json['metadata'] as { resourceVersion: string }).resourceVersion } } });
    assert.equal(updated.status, 200, updated.text);
    await expectCreate(deployment('err', 1), (r) => r.status === 201);
    await remove(`${BINDINGS}/p2-b`);
    await remove(`${VAP}/p2`);
  });

  void it('an unknown paramKind fails the policy (failurePolicy Fail); a DELETE sees request.operation', async () => {
    await create(VAP, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p3' },
      spec: {
        paramKind: { apiVersion: 'example.com/v1', kind: 'Nope' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] },
        validations: [{ expression: 'true' }],
      },
    });
    await create(BINDINGS, binding('p3-b', 'p3', { validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } }));
    const refused = await eventuallyValue('the unknown paramKind refusal', async () => {
      const r = await t.request(admin, 'POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 's' } } });
      if (r.status === 201) await t.request(admin, 'DELETE', '/api/v1/namespaces/default/secrets/s');
      return r.status === 422 ? r : undefined;
    });
    assert.equal(refused.json['message'], "secrets \"s\" is forbidden: ValidatingAdmissionPolicy 'p3' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'");
    await remove(`${BINDINGS}/p3-b`);
    await remove(`${VAP}/p3`);

    await create(VAP, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-delete' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] },
        validations: [{ expression: "request.operation != 'DELETE'", message: 'no delete' }],
      },
    });
    await create(BINDINGS, binding('no-delete-b', 'no-delete', { validationActions: ['Deny'] }));
    const deleted = await eventuallyValue('the delete refusal', async () => {
      const r = await t.request(admin, 'DELETE', '/api/v1/namespaces/default/configmaps/tier-a-4');
      return r.status === 422 ? r : undefined;
    });
    assert.equal(deleted.json['message'], "configmaps \"tier-a-4\" is forbidden: ValidatingAdmissionPolicy 'no-delete' with binding 'no-delete-b' denied request: no delete");
    // The policies' own objects are never subject to policies.
    await remove(`${BINDINGS}/no-delete-b`);
    await remove(`${VAP}/no-delete`);
  });

  void it('the status controller writes observedGeneration and type-checking warnings per matched kind', async () => {
    await create(VAP, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'tc' },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments', 'replicasets'] }] },
        validations: [
          { expression: 'object.spec.replicas > 1' },
          { expression: 'object.spec.replicaz > 1' },
          { expression: "params.data.x == 'y'", messageExpression: "object.spec.nope + 'x'" },
          { expression: 'object.metadata.name.size() < 10' },
        ],
      },
    });
    const status = await eventuallyValue('the type-checking status', async () => {
      const r = await t.request(admin, 'GET', `${VAP}/tc`);
      const s = r.json['status'] as Record<string, unknown> | undefined;
      return s?.['observedGeneration'] === 1 ? s : undefined;
    });
    const warning = (field: string) => ['Deployment', 'ReplicaSet'].map((kind) => `apps/v1, Kind=${kind}: ERROR: <input>:1:12: undefined field '${field}'\n | object.spec.${field}${field === 'nope' ? " + 'x'" : ' > 1'}\n | ...........^\n`).join('\n');
    assert.deepEqual(status, {
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          { fieldRef: 'spec.validations[1].expression', warning: warning('replicaz') },
          { fieldRef: 'spec.validations[2].messageExpression', warning: warning('nope') },
        ],
      },
    });
    const clean = await t.request(admin, 'GET', `${VAP}/max-replicas`);
    assert.deepEqual(clean.json['status'], { observedGeneration: 1, typeChecking: {} });
  });
  void it('counts denied, warned, audited and ignored-error checks in kube\'s apiserver_validating_admission_policy_check_* metrics', async () => {
    await create(VAP, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'metered' },
      spec: {
        failurePolicy: 'Ignore',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "object.data.nope == 'x'" }, { expression: "object.metadata.name != 'metered-no'" }],
      },
    });
    await create(BINDINGS, binding('metered-deny', 'metered', { validationActions: ['Deny', 'Audit'] }));
    await create(BINDINGS, binding('metered-warn', 'metered', { validationActions: ['Warn'] }));
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    await eventuallyValue('metered-no refused', async () => {
      const r = await t.request(admin, 'POST', CONFIGMAPS, { body: { metadata: { name: 'metered-no' } } });
      if (r.status === 201) await t.request(admin, 'DELETE', `${CONFIGMAPS}/metered-no`);
      return r.status === 422 ? r : undefined;
    });
    const text = (await t.request(admin, 'GET', '/metrics')).text;
    const series = (binding: string, action: string) => `{enforcement_action="${action}",error_type="invalid_error",policy="metered",policy_binding="${binding}"}`;
    for (const [binding, action] of [['metered-deny', 'deny'], ['metered-deny', 'audit'], ['metered-warn', 'warn'], ['metered-deny', 'allow'], ['metered-warn', 'allow']] as const) {
      assert.match(text, new RegExp(`^apiserver_validating_admission_policy_check_total${escapeRegExp(series(binding, action))} [1-9]`, 'm'), `${binding} ${action}`);
    }
    assert.match(text, /^# HELP apiserver_validating_admission_policy_check_total \[BETA\] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken\.$/m);
    assert.match(text, /^# HELP apiserver_validating_admission_policy_check_duration_seconds \[BETA\] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken\.$/m);
    const buckets = [...text.matchAll(/^apiserver_validating_admission_policy_check_duration_seconds_bucket\{le="([^"]+)",enforcement_action="deny",error_type="invalid_error",policy="metered",policy_binding="metered-deny"\}/gm)].map((m) => m[1]);
    // The bounds as kube writes them (Go's float formatting).
    assert.deepEqual(buckets, ['5e-07', '0.001', '0.01', '0.1', '1', '+Inf']);
    // A validation that passes is not counted (kube observes only denials and errors).
    assert.doesNotMatch(text, /error_type="no_error",policy="metered"/);
    await remove(`${BINDINGS}/metered-deny`);
    await remove(`${BINDINGS}/metered-warn`);
    await remove(`${VAP}/metered`);
  });

  void it('the API refuses invalid policies and bindings with kube\'s field errors, and defaults what kube defaults', async () => {
    const bad = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "bad"}, "spec": {"failurePolicy": "Sometimes", "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]}, "validations": [{"expression": "object.spec.replicas >", "message": "x"}, {"expression": "object.spec.replicas", "messageExpression": "1"}, {"expression": "", "reason": "Weird"}], "variables": [{"name": "1bad", "expression": "1 +"}], "matchConditions": [{"name": "ok", "expression": "'a'"}], "auditAnnotations": [{"key": "a b", "valueExpression": "1"}]}};
    const refusedPolicy = await t.request(admin, 'POST', VAP, { body: bad });
    assert.equal(refusedPolicy.status, 422, refusedPolicy.text);
    assert.equal(refusedPolicy.json['message'], "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"bad\" is invalid: [spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\", spec.matchConditions[0].expression: Invalid value: \"'a'\": must evaluate to bool but got string, spec.variables[0].name: Invalid value: \"1bad\": name is not a valid CEL identifier, spec.variables[0].expression: Invalid value: \"1 +\": compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^, spec.validations[0].expression: Invalid value: \"object.spec.replicas >\": compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.spec.replicas >\n | ......................^, spec.validations[1].expression: Invalid value: \"object.spec.replicas\": must evaluate to bool but got dyn, spec.validations[1].messageExpression: Invalid value: \"1\": must evaluate to string but got int, spec.validations[2].expression: Required value: expression is not specified, spec.validations[2].reason: Unsupported value: \"Weird\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\", spec.auditAnnotations[0].key: Invalid value: \"bad/a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to one of [string null_type] but got int]");
    const empty = await t.request(admin, 'POST', VAP, { body: {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "bad2"}, "spec": {}} });
    assert.equal(empty.json['message'], "ValidatingAdmissionPolicy.admissionregistration.k8s.io \"bad2\" is invalid: [spec.matchConstraints: Required value, spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]");
    const badBinding = await t.request(admin, 'POST', BINDINGS, { body: {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "badb"}, "spec": {"paramRef": {"name": "x", "selector": {}}, "validationActions": ["Deny", "Nope", "Deny"]}} });
    assert.equal(badBinding.json['message'], "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io \"badb\" is invalid: [spec.policyName: Required value, spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive, spec.paramRef.parameterNotFoundAction: Required value, spec.validationActions[1]: Unsupported value: \"Nope\": supported values: \"Audit\", \"Deny\", \"Warn\", spec.validationActions[2]: Duplicate value: \"Deny\"]");
    const both = await t.request(admin, 'POST', BINDINGS, { body: binding('dw', 'x', { validationActions: ['Deny', 'Warn'] }) });
    assert.equal(both.json['message'], 'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "dw" is invalid: spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)');
    const noRef = await t.request(admin, 'POST', BINDINGS, { body: binding('dw', 'x', { validationActions: ['Deny'], paramRef: { parameterNotFoundAction: 'Deny' } }) });
    assert.equal(noRef.json['message'], 'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "dw" is invalid: spec.paramRef: Required value: one of name or selector must be specified');
    const stored = await t.request(admin, 'GET', `${VAP}/max-replicas`);
    const spec = stored.json['spec'] as Record<string, unknown>;
    assert.equal(spec['failurePolicy'], 'Fail');
    assert.deepEqual(spec['matchConstraints'], {
      matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {},
      resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' }],
    });
  });
});

void describe('ValidatingAdmissionPolicy with RBAC: authorizer checks as the requesting user', () => {
  let t: SecureServer;
  const bob: Identity = { token: 'bob-token' };
  before(async () => {
    t = await startSecureServer({ tokens: ['admin-token,admin,admin-uid,"system:masters"', 'bob-token,bob,bob-uid,"dev"'], authorizationModes: ['RBAC'] });
  });
  after(async () => t?.close());

  void it('authorizer.group().resource().check() answers as the user; a service account may be asked for instead', async () => {
    const post = async (who: Identity, path: string, body: unknown) => t.request(who, 'POST', path, { body });
    assert.equal((await post(admin, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      metadata: { name: 'deployer' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete'] }],
    })).status, 201);
    assert.equal((await post(admin, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'bob-deployer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }],
    })).status, 201);
    assert.equal((await post(admin, VAP, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'secret-readers' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        validations: [
          { expression: "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()", message: 'only who reads secrets may deploy' },
          { expression: "!authorizer.serviceAccount('default', 'builder').group('apps').resource('deployments').namespace('default').check('create').allowed()", message: 'the builder may not' },
        ],
      },
    })).status, 201);
    assert.equal((await post(admin, BINDINGS, binding('secret-readers-b', 'secret-readers', { validationActions: ['Deny'] }))).status, 201);
    const refused = await eventuallyValue('bob refused', async () => {
      const r = await post(bob, DEPLOYMENTS, deployment('by-bob', 1));
      if (r.status === 201) await t.request(bob, 'DELETE', `${DEPLOYMENTS}/by-bob`);
      return r.status === 422 ? r : undefined;
    });
    assert.deepEqual(refused.json, denial('secret-readers', 'secret-readers-b', 'by-bob', 'only who reads secrets may deploy'));
    const byAdmin = await post(admin, DEPLOYMENTS, deployment('by-admin', 1));
    assert.equal(byAdmin.status, 201, byAdmin.text);
    // Once the builder service account may create deployments, the second rule refuses everyone.
    assert.equal((await post(admin, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'builder-deployer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' }, subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'default' }],
    })).status, 201);
    const again = await eventuallyValue('the builder rule', async () => {
      const r = await post(admin, DEPLOYMENTS, deployment('by-admin-2', 1));
      if (r.status === 201) await t.request(admin, 'DELETE', `${DEPLOYMENTS}/by-admin-2`);
      return r.status === 422 ? r : undefined;
    });
    assert.deepEqual(again.json, denial('secret-readers', 'secret-readers-b', 'by-admin-2', 'the builder may not'));
  });

  void it('authorizer.requestResource checks the request\'s own group, resource, namespace and name', async () => {
    const post = async (who: Identity, path: string, body: unknown) => t.request(who, 'POST', path, { body });
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    const role = (name: string, rule: Record<string, unknown>) => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], ...rule }] });
    const bindBob = (name: string, roleName: string) => ({
      metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
    const ROLEBINDINGS = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings';
    assert.equal((await post(admin, ROLES, role('cm-creator', { verbs: ['create', 'delete'] }))).status, 201);
    assert.equal((await post(admin, ROLES, role('cm-updater', { verbs: ['update'], resourceNames: ['cm-ok'] }))).status, 201);
    assert.equal((await post(admin, ROLEBINDINGS, bindBob('bob-cm-creator', 'cm-creator'))).status, 201);
    assert.equal((await post(admin, ROLEBINDINGS, bindBob('bob-cm-updater', 'cm-updater'))).status, 201);
    assert.equal((await post(admin, VAP, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'own-updates' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "authorizer.requestResource.check('update').allowed()", message: 'who creates must be able to update it' }],
      },
    })).status, 201);
    assert.equal((await post(admin, BINDINGS, binding('own-updates-b', 'own-updates', { validationActions: ['Deny'] }))).status, 201);
    const full = "ValidatingAdmissionPolicy 'own-updates' with binding 'own-updates-b' denied request: who creates must be able to update it";
    const refused = await eventuallyValue('bob refused cm-no', async () => {
      const r = await post(bob, CONFIGMAPS, { metadata: { name: 'cm-no' } });
      if (r.status === 201) await t.request(bob, 'DELETE', `${CONFIGMAPS}/cm-no`);
      return r.status === 422 ? r : undefined;
    });
    assert.deepEqual(refused.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `configmaps "cm-no" is forbidden: ${full}`, reason: 'Invalid',
      details: { name: 'cm-no', kind: 'configmaps', causes: [{ message: full }] }, code: 422,
    });
    // bob may update cm-ok only: the check carries the request's name and namespace.
    const allowed = await eventuallyValue('bob creates cm-ok', async () => {
      const r = await post(bob, CONFIGMAPS, { metadata: { name: 'cm-ok' } });
      return r.status === 201 ? r : undefined;
    });
    assert.equal(allowed.status, 201);
  });
});

void describe('ValidatingAdmissionPolicy in the audit log', () => {
  let t: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-vap-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: ["RequestReceived"]\nrules:\n- level: Metadata\n');
    t = await startTestServer({ audit: { policyFile: join(dir, 'policy.yaml'), logPath: join(dir, 'audit.log') } });
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('validationActions [Audit] admits and records validation_failure; auditAnnotations are published under the policy\'s name', async () => {
    const created = (r: { status: number; text: string }) => assert.equal(r.status, 201, r.text);
    created(await t.request('POST', VAP, { body: {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'audited' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "object.metadata.name != 'bad'", message: 'no <bad> & co' }],
        auditAnnotations: [{ key: 'name', valueExpression: "'name=' + object.metadata.name" }],
      },
    } }));
    created(await t.request('POST', BINDINGS, { body: binding('audited-b', 'audited', { validationActions: ['Audit'] }) }));
    const annotations = await eventuallyValue('the audit annotations', async () => {
      const r = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { generateName: 'bad-' } } });
      assert.equal(r.status, 201, r.text);
      const name = (r.json['metadata'] as { name: string }).name;
      await t.request('DELETE', `/api/v1/namespaces/default/configmaps/${name}`);
      const auditId = r.headers.get('audit-id') ?? '';
      await new Promise((resolve) => setTimeout(resolve, 200));
      const events = readFileSync(join(dir, 'audit.log'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
      const found = events.find((e) => e['auditID'] === auditId && e['stage'] === 'ResponseComplete')?.['annotations'] as Record<string, string> | undefined;
      return found?.['audited/name'] !== undefined ? { name, found } : undefined;
    }).catch(() => undefined);
    // generateName is resolved before validation, so the expressions see (and name) the generated name.
    assert.ok(annotations !== undefined, 'the policy published its annotations');
    assert.equal(annotations.found['audited/name'], `name=${annotations.name}`);
    assert.equal(annotations.found['validation.policy.admission.k8s.io/validation_failure'], undefined, 'a name other than bad passes');
    const bad = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'bad' } } });
    assert.equal(bad.status, 201, bad.text);
    const auditId = bad.headers.get('audit-id') ?? '';
    const found = await eventuallyValue('the failure annotation', async () => {
      const events = readFileSync(join(dir, 'audit.log'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
      return events.find((e) => e['auditID'] === auditId && e['stage'] === 'ResponseComplete')?.['annotations'] as Record<string, string> | undefined;
    });
    assert.equal(found['audited/name'], 'name=bad');
    assert.equal(found['validation.policy.admission.k8s.io/validation_failure'], '[{"message":"no \\u003cbad\\u003e \\u0026 co","policy":"audited","binding":"audited-b","expressionIndex":0,"validationActions":["Audit"]}]');
  });
});
