/** kube's admission matching rules (rules, scope, selectors, matchPolicy), as pure functions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kapi/machinery';
import { isStatusError } from '@kapi/machinery';
import type { AdmissionOperation, EquivalentResource } from '@kapi/registry';
import { matchResources, matchWebhook, ruleMatches, type MatchAttributes, type NamespaceLabels } from './matching.js';

const obj = (labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'n', ...(labels ? { labels } : {}) } });

interface Req {
  operation?: AdmissionOperation;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  equivalents?: EquivalentResource[];
}

function attrs(r: Req = {}): MatchAttributes {
  const group = r.group ?? 'apps';
  const version = r.version ?? 'v1';
  return {
    operation: r.operation ?? 'CREATE',
    kind: { group, version, kind: 'Deployment' },
    resource: { group, version, resource: r.resource ?? 'deployments' },
    subresource: r.subresource ?? '',
    name: r.name ?? 'd',
    namespace: r.namespace ?? 'ns',
    object: r.object,
    oldObject: r.oldObject,
    equivalents: () => r.equivalents ?? [],
  };
}

const all = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
const noNamespaces: NamespaceLabels = () => undefined;
const labelled: NamespaceLabels = (name) => ({ ns: { env: 'prod' }, other: { env: 'dev' } } as Record<string, Record<string, string>>)[name];

void describe('rules', () => {
  void it('operations, groups and versions: lists or *', () => {
    assert.equal(ruleMatches(all, attrs()), true);
    assert.equal(ruleMatches({ ...all, operations: ['UPDATE'] }, attrs()), false);
    assert.equal(ruleMatches({ ...all, operations: ['CREATE', 'UPDATE'] }, attrs()), true);
    assert.equal(ruleMatches({ ...all, apiGroups: [''] }, attrs()), false);
    assert.equal(ruleMatches({ ...all, apiVersions: ['v1beta1'] }, attrs()), false);
    assert.equal(ruleMatches({ ...all, operations: [] }, attrs()), false);
  });

  void it('resources: * is every resource without a subresource, */* everything, res/* and */sub', () => {
    const status = attrs({ subresource: 'status', operation: 'UPDATE' });
    assert.equal(ruleMatches(all, status), false);
    assert.equal(ruleMatches({ ...all, resources: ['*/*'] }, status), true);
    assert.equal(ruleMatches({ ...all, resources: ['deployments/*'] }, status), true);
    assert.equal(ruleMatches({ ...all, resources: ['*/status'] }, status), true);
    assert.equal(ruleMatches({ ...all, resources: ['*/scale'] }, status), false);
    assert.equal(ruleMatches({ ...all, resources: ['deployments'] }, status), false);
    assert.equal(ruleMatches({ ...all, resources: ['deployments/status'] }, status), true);
    assert.equal(ruleMatches({ ...all, resources: ['pods'] }, attrs()), false);
    assert.equal(ruleMatches({ ...all, resources: ['deployments'] }, attrs()), true);
  });

  void it('scope: Namespaced excludes cluster-scoped resources and the namespace object; Cluster includes the namespace object', () => {
    const namespaced = attrs();
    const cluster = attrs({ group: '', resource: 'nodes', namespace: '' });
    const namespaceObject = attrs({ group: '', resource: 'namespaces', namespace: 'foo', name: 'foo', operation: 'UPDATE' });
    assert.equal(ruleMatches({ ...all, scope: 'Namespaced' }, namespaced), true);
    assert.equal(ruleMatches({ ...all, scope: 'Namespaced' }, cluster), false);
    assert.equal(ruleMatches({ ...all, scope: 'Namespaced' }, namespaceObject), false);
    assert.equal(ruleMatches({ ...all, scope: 'Cluster' }, namespaceObject), true);
    assert.equal(ruleMatches({ ...all, scope: 'Cluster' }, cluster), true);
    assert.equal(ruleMatches({ ...all, scope: 'Cluster' }, namespaced), false);
    assert.equal(ruleMatches({ ...all, scope: '*' }, namespaced), true);
  });
});

void describe('selectors', () => {
  void it('namespaceSelector reads the namespace labels; cluster-scoped resources always match', async () => {
    const hook = { rules: [all], namespaceSelector: { matchLabels: { env: 'prod' } } };
    assert.ok(await matchWebhook(hook, attrs(), labelled));
    assert.equal(await matchWebhook(hook, attrs({ namespace: 'other' }), labelled), undefined);
    assert.ok(await matchWebhook(hook, attrs({ group: '', resource: 'nodes', namespace: '' }), labelled));
  });

  void it('a namespace create or update is matched by its own labels, its delete by the stored namespace', async () => {
    const hook = { rules: [all], namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } };
    const ns = (operation: AdmissionOperation, object?: KubeObject) =>
      attrs({ group: '', resource: 'namespaces', operation, namespace: operation === 'CREATE' ? '' : 'other', name: 'other', ...(object ? { object } : {}) });
    assert.ok(await matchWebhook(hook, ns('CREATE', obj({ env: 'prod' })), noNamespaces));
    assert.equal(await matchWebhook(hook, ns('CREATE', obj({ env: 'dev' })), labelled), undefined);
    assert.ok(await matchWebhook(hook, ns('UPDATE', obj({ env: 'prod' })), labelled));
    assert.equal(await matchWebhook({ ...hook, rules: [{ ...all, operations: ['DELETE'] }] }, ns('DELETE'), labelled), undefined);
  });

  void it('an absent namespace is a 404 only for a webhook whose rules match', async () => {
    const hook = { rules: [all], namespaceSelector: { matchLabels: { env: 'prod' } } };
    await assert.rejects(matchWebhook(hook, attrs({ namespace: 'gone' }), labelled), (err) => isStatusError(err) && err.code === 404 && err.status.message === 'namespaces "gone" not found');
    assert.equal(await matchWebhook({ ...hook, rules: [{ ...all, resources: ['pods'] }] }, attrs({ namespace: 'gone' }), labelled), undefined);
  });

  void it('an invalid selector is an InternalError when the rules match', async () => {
    const hook = { rules: [all], objectSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } };
    await assert.rejects(matchWebhook(hook, attrs({ object: obj() }), noNamespaces), (err) => isStatusError(err) && err.code === 500);
    assert.equal(await matchWebhook({ ...hook, rules: [] }, attrs({ object: obj() }), noNamespaces), undefined);
  });

  void it('objectSelector matches the object or the old object', async () => {
    const hook = { rules: [all].map((r) => ({ ...r, operations: ['*'] })), objectSelector: { matchLabels: { a: 'b' } } };
    assert.ok(await matchWebhook(hook, attrs({ object: obj({ a: 'b' }) }), noNamespaces));
    assert.equal(await matchWebhook(hook, attrs({ object: obj({ a: 'c' }) }), noNamespaces), undefined);
    assert.ok(await matchWebhook(hook, attrs({ operation: 'UPDATE', object: obj(), oldObject: obj({ a: 'b' }) }), noNamespaces));
    assert.ok(await matchWebhook(hook, attrs({ operation: 'DELETE', oldObject: obj({ a: 'b' }) }), noNamespaces));
    assert.equal(await matchWebhook(hook, attrs({ operation: 'DELETE' }), noNamespaces), undefined);
    // An empty selector matches objects without labels.
    assert.ok(await matchWebhook({ rules: [all], objectSelector: {} }, attrs({ object: obj() }), noNamespaces));
  });
});

void describe('matchPolicy', () => {
  const v1beta1: EquivalentResource = {
    resource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
    kind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
    convert: (o) => o,
    convertBack: (o) => o,
  };
  const beta = { ...all, apiVersions: ['v1beta1'] };

  void it('webhooks: Equivalent (the default) matches another version of the same resource; Exact does not', async () => {
    const a = attrs({ equivalents: [v1beta1] });
    const matched = await matchWebhook({ rules: [beta] }, a, noNamespaces);
    assert.deepEqual(matched?.resource, v1beta1.resource);
    assert.deepEqual(matched?.kind, v1beta1.kind);
    assert.equal(matched?.equivalent, v1beta1);
    assert.equal(await matchWebhook({ rules: [beta], matchPolicy: 'Exact' }, a, noNamespaces), undefined);
    const direct = await matchWebhook({ rules: [all] }, a, noNamespaces);
    assert.deepEqual(direct?.resource, a.resource);
    assert.equal(direct?.equivalent, undefined);
  });

  void it('policies: resourceRules with names, excludeResourceRules, no rules = all, absent matchPolicy = Exact', async () => {
    const a = attrs({ equivalents: [v1beta1] });
    assert.ok(await matchResources({}, a, noNamespaces));
    assert.ok(await matchResources({ resourceRules: [{ ...all, resourceNames: ['d'] }] }, a, noNamespaces));
    assert.equal(await matchResources({ resourceRules: [{ ...all, resourceNames: ['e'] }] }, a, noNamespaces), undefined);
    assert.equal(await matchResources({ excludeResourceRules: [all] }, a, noNamespaces), undefined);
    assert.ok(await matchResources({ excludeResourceRules: [{ ...all, resourceNames: ['e'] }] }, a, noNamespaces));
    assert.equal(await matchResources({ resourceRules: [beta] }, a, noNamespaces), undefined);
    const equivalent = await matchResources({ resourceRules: [beta], matchPolicy: 'Equivalent' }, a, noNamespaces);
    assert.deepEqual(equivalent?.resource, v1beta1.resource);
    assert.equal(await matchResources({ resourceRules: [beta], excludeResourceRules: [beta], matchPolicy: 'Equivalent' }, a, noNamespaces), undefined);
  });
});
