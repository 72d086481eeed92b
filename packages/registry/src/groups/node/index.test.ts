import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { runtimeClassColumns } from './index.js';

void describe('runtime class columns', () => {
  void it('prints a RuntimeClass\'s handler', () => {
    const rc = { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' }, handler: 'runc' } as KubeObject;
    assert.deepEqual(runtimeClassColumns.map((c) => [c.definition.name, c.definition.type]), [['Name', 'string'], ['Handler', 'string'], ['Age', 'string']]);
    assert.deepEqual(runtimeClassColumns.map((c) => c.cell(rc, Date.parse('2024-01-01T00:00:05Z'))), ['x', 'runc', '5s']);
  });
});
