import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { persistentVolumeClaimColumns, persistentVolumeColumns, resourceQuotaColumns } from './storage-columns.js';

const NOW = Date.parse('2024-01-01T00:10:00Z');
const meta = { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' };
const row = (columns: readonly PrinterColumn[], obj: KubeObject) => columns.map((c) => c.cell(obj, NOW));
const header = (columns: readonly PrinterColumn[]) => columns.map((c) => [c.definition.name, c.definition.type, c.definition.priority]);

void describe('persistent volume and claim columns', () => {
  void it('prints a PersistentVolume as kubectl does', () => {
    assert.deepEqual(header(persistentVolumeColumns).map(([n]) => n), ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
    assert.equal(persistentVolumeColumns[10]!.definition.priority, 1);
    const pv: KubeObject = {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta,
      spec: { capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'ns', name: 'c' }, storageClassName: 'fast', volumeMode: 'Block' },
      status: { phase: 'Bound' },
    };
    assert.deepEqual(row(persistentVolumeColumns, pv), ['x', '1Gi', 'RWO,RWX', 'Retain', 'Bound', 'ns/c', 'fast', '<unset>', '', '10m', 'Block']);
    const bare: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { ...meta, deletionTimestamp: '2024-01-01T00:05:00Z', annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' } }, spec: {} };
    assert.deepEqual(row(persistentVolumeColumns, bare), ['x', '0', '', '', 'Terminating', '', 'old', '<unset>', '', '10m', '<unset>']);
  });

  void it('prints a claim\'s capacity and modes only once it is bound', () => {
    const pending: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta, spec: { volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } };
    assert.deepEqual(row(persistentVolumeClaimColumns, pending), ['x', 'Pending', '', '', '', '', '<unset>', '10m', 'Filesystem']);
    const bound: KubeObject = {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta,
      spec: { volumeName: 'pv1', storageClassName: 'fast', volumeAttributesClassName: 'gold' },
      status: { phase: 'Bound', capacity: { storage: '2Gi' }, accessModes: ['ReadOnlyMany', 'ReadWriteOncePod'] },
    };
    assert.deepEqual(row(persistentVolumeClaimColumns, bound), ['x', 'Bound', 'pv1', '2Gi', 'ROX,RWOP', 'fast', 'gold', '10m', '<unset>']);
  });
});

void describe('resource quota columns', () => {
  void it('splits usage into requests and limits, names sorted', () => {
    const quota: KubeObject = {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta,
      status: { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi', cpu: '1000m' }, used: { pods: '3', cpu: '500m' } },
    };
    assert.deepEqual(row(resourceQuotaColumns, quota), ['x', '10m', 'cpu: 500m/1, pods: 3/10, requests.memory: 0/1Gi', 'limits.cpu: 0/2']);
    assert.deepEqual(row(resourceQuotaColumns, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta }), ['x', '10m', '', '']);
  });
});
