import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { priorityClassColumns } from './columns.js';

const NOW = Date.parse('2024-01-01T00:00:05Z');
const meta = { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' };

void describe('priority class columns', () => {
  void it('prints a PriorityClass with its preemption policy in the default output', () => {
    assert.deepEqual(priorityClassColumns.map((c) => [c.definition.name, c.definition.type, c.definition.priority]), [
      ['Name', 'string', 0], ['Value', 'integer', 0], ['Global-Default', 'boolean', 0], ['Age', 'string', 0], ['PreemptionPolicy', 'string', 0],
    ]);
    const pc = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta, value: 1000, preemptionPolicy: 'Never' } as KubeObject;
    assert.deepEqual(priorityClassColumns.map((c) => c.cell(pc, NOW)), ['x', 1000, false, '5s', 'Never']);
    const global = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta, value: -5, globalDefault: true } as KubeObject;
    assert.deepEqual(priorityClassColumns.map((c) => c.cell(global, NOW)), ['x', -5, true, '5s', '']);
  });
});
