import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { csiDriverColumns, csiNodeColumns, storageClassColumns, volumeAttachmentColumns, volumeAttributesClassColumns } from './columns.js';

const NOW = Date.parse('2024-01-01T00:00:30Z');
const meta = { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' };
const row = (columns: readonly PrinterColumn[], obj: Omit<KubeObject, 'apiVersion' | 'kind'>) => columns.map((c) => c.cell({ apiVersion: 'storage.k8s.io/v1', kind: 'K', ...obj } as KubeObject, NOW));

void describe('storage.k8s.io columns', () => {
  void it('prints a StorageClass with kube\'s defaults and marks the default class', () => {
    assert.deepEqual(storageClassColumns.map((c) => [c.definition.name, c.definition.type, c.definition.format]), [
      ['Name', 'string', 'name'], ['Provisioner', 'string', ''], ['ReclaimPolicy', 'string', ''], ['VolumeBindingMode', 'string', ''], ['AllowVolumeExpansion', 'string', ''], ['Age', 'string', ''],
    ]);
    assert.deepEqual(row(storageClassColumns, { metadata: meta, provisioner: 'p' }), ['x', 'p', 'Delete', 'Immediate', false, '30s']);
    const annotated = { ...meta, annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } };
    assert.deepEqual(row(storageClassColumns, { metadata: annotated, provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }), ['x (default)', 'p', 'Retain', 'WaitForFirstConsumer', true, '30s']);
    assert.equal(row(storageClassColumns, { metadata: { ...meta, annotations: { 'storageclass.kubernetes.io/is-default-class': 'yes' } } })[0], 'x');
  });

  void it('prints a CSIDriver with kube\'s defaults', () => {
    assert.deepEqual(row(csiDriverColumns, { metadata: meta, spec: {} }), ['x', true, false, false, '<unset>', false, '<none>', '30s']);
    const spec = { attachRequired: false, podInfoOnMount: true, storageCapacity: true, tokenRequests: [{ audience: 'a' }, { audience: 'b' }], requiresRepublish: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] };
    assert.deepEqual(row(csiDriverColumns, { metadata: meta, spec }), ['x', false, true, true, 'a,b', true, 'Persistent,Ephemeral', '30s']);
    assert.equal(row(csiDriverColumns, { metadata: meta, spec: { tokenRequests: [] } })[4], '');
  });

  void it('prints CSINodes, VolumeAttachments and VolumeAttributesClasses', () => {
    assert.deepEqual(row(csiNodeColumns, { metadata: meta, spec: { drivers: [{ name: 'd', nodeID: 'n' }] } }), ['x', 1, '30s']);
    assert.deepEqual(row(csiNodeColumns, { metadata: meta, spec: {} }), ['x', 0, '30s']);
    assert.equal(volumeAttachmentColumns[1]!.definition.format, 'name');
    assert.deepEqual(row(volumeAttachmentColumns, { metadata: meta, spec: { attacher: 'd', source: { persistentVolumeName: 'pv' }, nodeName: 'n' } }), ['x', 'd', 'pv', 'n', false, '30s']);
    assert.deepEqual(row(volumeAttachmentColumns, { metadata: meta, spec: { attacher: 'd', source: {}, nodeName: 'n' }, status: { attached: true } }), ['x', 'd', '', 'n', true, '30s']);
    const vacMeta = { ...meta, annotations: { 'volumeattributesclass.alpha.kubernetes.io/is-default-class': 'true' } };
    assert.deepEqual(row(volumeAttributesClassColumns, { metadata: vacMeta, driverName: 'd' }), ['x (default)', 'd', '30s']);
  });
});
