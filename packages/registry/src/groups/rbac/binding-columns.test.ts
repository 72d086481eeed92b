import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { clusterRoleBindingColumns, roleBindingColumns } from './binding-columns.js';

const NOW = Date.parse('2024-01-01T01:00:00Z');
const meta = { name: 'b', creationTimestamp: '2024-01-01T00:00:00Z' };

void describe('role binding columns', () => {
  void it('prints the role and the subjects by kind', () => {
    assert.deepEqual(roleBindingColumns.map((c) => [c.definition.name, c.definition.priority]), [['Name', 0], ['Role', 0], ['Age', 0], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1]]);
    const binding: KubeObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' }, { kind: 'Other', name: 'skipped' },
      ],
    };
    assert.deepEqual(roleBindingColumns.map((c) => c.cell(binding, NOW)), ['b', 'Role/reader', '60m', 'alice, bob', 'devs', 'ns/sa']);
  });

  void it('prints empty subject cells for a binding without subjects', () => {
    const binding: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta, roleRef: { kind: 'ClusterRole', name: 'view' } };
    assert.deepEqual(clusterRoleBindingColumns.map((c) => c.cell(binding, NOW)), ['b', 'ClusterRole/view', '60m', '', '', '']);
  });
});
