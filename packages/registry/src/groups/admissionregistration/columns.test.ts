import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { validatingAdmissionPolicyBindingColumns, validatingAdmissionPolicyColumns, webhookConfigurationColumns } from './columns.js';

const NOW = Date.parse('2024-01-02T00:00:00Z');
const meta = { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' };
const row = (columns: readonly PrinterColumn[], fields: Record<string, unknown>) =>
  columns.map((c) => c.cell({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'K', metadata: meta, ...fields } as KubeObject, NOW));

void describe('admission configuration columns', () => {
  void it('counts webhooks and validations', () => {
    assert.deepEqual(webhookConfigurationColumns.map((c) => c.definition.type), ['string', 'integer', 'string']);
    assert.deepEqual(row(webhookConfigurationColumns, {}), ['x', 0, '24h']);
    assert.deepEqual(row(webhookConfigurationColumns, { webhooks: [{}, {}] }), ['x', 2, '24h']);
    assert.deepEqual(row(validatingAdmissionPolicyColumns, { spec: { validations: [{ expression: 'true' }] } }), ['x', 1, '<unset>', '24h']);
    assert.deepEqual(row(validatingAdmissionPolicyColumns, { spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } }), ['x', 0, 'v1/ConfigMap', '24h']);
  });

  void it('prints a binding\'s param reference by name or selector', () => {
    const cell = (paramRef: unknown) => row(validatingAdmissionPolicyBindingColumns, { spec: { policyName: 'p', ...(paramRef === undefined ? {} : { paramRef }) } })[2];
    assert.deepEqual(row(validatingAdmissionPolicyBindingColumns, { spec: { policyName: 'p' } }), ['x', 'p', '<unset>', '24h']);
    assert.equal(cell({ name: 'cm', namespace: 'ns' }), 'ns/cm');
    assert.equal(cell({ name: 'cm' }), '*/cm');
    assert.equal(cell({ selector: {} }), '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}');
    assert.equal(
      cell({ selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v', 'w'] }] } }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[v w],},},}',
    );
    assert.equal(cell({ parameterNotFoundAction: 'Deny' }), '<unset>');
  });
});
