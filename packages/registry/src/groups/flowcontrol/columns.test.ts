import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { flowSchemaColumns, priorityLevelConfigurationColumns } from './columns.js';

const NOW = Date.parse('2024-01-01T00:00:05Z');
const meta = { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' };
const row = (columns: readonly PrinterColumn[], fields: Record<string, unknown>) =>
  columns.map((c) => c.cell({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'K', metadata: meta, ...fields } as KubeObject, NOW));

void describe('flowcontrol columns', () => {
  void it('prints a FlowSchema, `?` until the Dangling condition is set', () => {
    const spec = { priorityLevelConfiguration: { name: 'pl' }, matchingPrecedence: 500 };
    assert.deepEqual(row(flowSchemaColumns, { spec }), ['x', 'pl', 500, '<none>', '5s', '?']);
    const status = { conditions: [{ type: 'Other', status: 'True' }, { type: 'Dangling', status: 'False' }] };
    assert.deepEqual(row(flowSchemaColumns, { spec: { ...spec, distinguisherMethod: { type: 'ByUser' } }, status }), ['x', 'pl', 500, 'ByUser', '5s', 'False']);
  });

  void it('prints `<none>` for what a priority level does not have', () => {
    assert.deepEqual(row(priorityLevelConfigurationColumns, { spec: { type: 'Exempt', exempt: {} } }), ['x', 'Exempt', '<none>', '<none>', '<none>', '<none>', '5s']);
    assert.deepEqual(row(priorityLevelConfigurationColumns, { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } }), ['x', 'Limited', 5, '<none>', '<none>', '<none>', '5s']);
    const queuing = { queues: 64, handSize: 6, queueLengthLimit: 50 };
    assert.deepEqual(row(priorityLevelConfigurationColumns, { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing } } } }), ['x', 'Limited', 30, 64, 6, 50, '5s']);
  });
});
