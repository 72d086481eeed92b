/** The rule arithmetic of escalation prevention, against kube's Covers/CompactRules/CompactString semantics. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compactString, escalationError, onlyMutatesGcFields, uncoveredRules } from './escalation.js';
import type { RbacPolicy } from './rbac-policy.js';
import type { Binding, PolicyRule } from './rbac-rules.js';

const covered = (owned: PolicyRule[], wanted: PolicyRule[]) => uncoveredRules(owned, wanted).length === 0;

void describe('escalation rule coverage', () => {
  void it('covers subresources through */sub, resource names and URL prefixes as kube does', () => {
    const status: PolicyRule = { apiGroups: [''], resources: ['*/status'], verbs: ['update'] };
    assert.ok(covered([status], [{ apiGroups: [''], resources: ['pods/status', 'services/status'], verbs: ['update'] }]));
    assert.ok(!covered([status], [{ apiGroups: [''], resources: ['pods'], verbs: ['update'] }]));
    const named: PolicyRule = { apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['get'] };
    assert.ok(covered([named], [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['get'] }]));
    assert.ok(!covered([named], [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]));
    assert.ok(covered([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], [{ apiGroups: ['apps'], resources: ['deployments/scale'], resourceNames: ['x'], verbs: ['patch'] }]));
    // A resource rule never covers a URL, nor the reverse.
    assert.ok(!covered([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]));
    const urls: PolicyRule = { nonResourceURLs: ['/api/*'], verbs: ['get'] };
    assert.ok(covered([urls], [{ nonResourceURLs: ['/api/v1', '/api/'], verbs: ['get'] }]));
    assert.ok(!covered([urls], [{ nonResourceURLs: ['/api'], verbs: ['get'] }]));
    // Rules split across owners: each broken-down piece needs one owner rule.
    assert.ok(covered([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['list'] }], [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]));
  });

  void it('describes the missing rules compacted by verb and sorted, with the resolution errors', () => {
    const policy: RbacPolicy = {
      generation: 1,
      clusterRoleBindings: (): Binding[] => [{ metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'gone' }, subjects: [{ kind: 'User', name: 'u' }] }],
      roleBindings: () => [],
      clusterRoleRules: () => undefined,
      roleRules: () => undefined,
    };
    const message = escalationError(policy, { group: 'rbac.authorization.k8s.io', resource: 'roles' }, { name: 'u', uid: '', groups: ['g "1"', 'system:authenticated'], extra: {} }, 'ns', [
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['get', 'list'] },
      { apiGroups: ['apps', ''], resources: ['deployments'], verbs: ['watch'] },
      { nonResourceURLs: ['/x'], verbs: ['get'] },
    ]);
    assert.equal(message, [
      'user "u" (groups=["g \\"1\\"" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:',
      '{APIGroups:[""], Resources:["deployments"], Verbs:["watch"]}',
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get" "list"]}',
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["watch"]}',
      '{NonResourceURLs:["/x"], Verbs:["get"]}; resolution errors: [roles.rbac.authorization.k8s.io "gone" not found]',
    ].join('\n'));
    assert.equal(compactString({ verbs: ['get'] }), '{Verbs:["get"]}');
  });

  void it('lets through updates of the garbage collector\'s fields only', () => {
    const old = { apiVersion: 'v1', kind: 'Role', metadata: { name: 'r', resourceVersion: '5' }, rules: [{ verbs: ['get'] }] };
    assert.ok(onlyMutatesGcFields({ ...old, metadata: { ...old.metadata, finalizers: ['a/b'], ownerReferences: [] } }, old));
    assert.ok(!onlyMutatesGcFields({ ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old));
    assert.ok(!onlyMutatesGcFields({ ...old, rules: [] }, old));
    assert.ok(!onlyMutatesGcFields(old, undefined));
  });
});
