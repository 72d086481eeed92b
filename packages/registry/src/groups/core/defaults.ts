/**
 * core/v1 defaulting beyond the kinds' own files (pods/pod-defaults.ts holds the PodSpec's,
 * which every pod template shares): PersistentVolumes, PersistentVolumeClaims and LimitRanges,
 * with the status kube gives new volumes and claims; a ReplicationController's template
 * metadata.
 */
import type { KubeObject } from '@kapi/machinery';
import { nowRFC3339 } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';
import { defaultPersistentVolumeClaimSpec, defaultVolumeSources, zeroCreationTimestamp } from './pods/pod-defaults.js';

type Rec = Record<string, unknown>;

const isRecord = (value: unknown): value is Rec => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The record at `obj[key]`, created when absent (Go's zero struct). */
function ensure(obj: Rec, key: string): Rec {
  if (!isRecord(obj[key])) obj[key] = {};
  return obj[key] as Rec;
}

/** SetDefaults_PersistentVolume: reclaim policy Retain, Filesystem mode, the sources' defaults. */
function defaultPersistentVolume(obj: KubeObject): void {
  const spec = ensure(obj, 'spec');
  if (spec['persistentVolumeReclaimPolicy'] === undefined || spec['persistentVolumeReclaimPolicy'] === '') spec['persistentVolumeReclaimPolicy'] = 'Retain';
  if (spec['volumeMode'] === undefined) spec['volumeMode'] = 'Filesystem';
  defaultVolumeSources(spec);
}

/** A new volume is Pending since now (kube's strategy; the binder then makes it Available). */
function createdPersistentVolume(obj: KubeObject): void {
  const status = ensure(obj, 'status');
  if (status['phase'] === undefined || status['phase'] === '') status['phase'] = 'Pending';
  status['lastPhaseTransitionTime'] ??= nowRFC3339();
}

function defaultPersistentVolumeClaim(obj: KubeObject): void {
  defaultPersistentVolumeClaimSpec(ensure(obj, 'spec'));
  const status = obj['status'];
  if (isRecord(status) && (status['phase'] === undefined || status['phase'] === '')) status['phase'] = 'Pending';
}

/** A new claim is Pending. */
function createdPersistentVolumeClaim(obj: KubeObject): void {
  const status = ensure(obj, 'status');
  if (status['phase'] === undefined || status['phase'] === '') status['phase'] = 'Pending';
}

/** Copies `from`'s entries `into` (created when needed) where `into` has none; empty maps stay absent. */
function fillMissing(item: Rec, into: string, from: unknown): void {
  if (!isRecord(from)) return;
  for (const [name, value] of Object.entries(from)) {
    const target = ensure(item, into);
    if (target[name] === undefined) target[name] = value;
  }
}

/** SetDefaults_LimitRangeItem: a Container item's default limit from max, default request from the default limit, then from min. */
function defaultLimitRange(obj: KubeObject): void {
  const spec = obj['spec'];
  if (!isRecord(spec) || !Array.isArray(spec['limits'])) return;
  for (const item of spec['limits']) {
    if (!isRecord(item) || item['type'] !== 'Container') continue;
    fillMissing(item, 'default', item['max']);
    fillMissing(item, 'defaultRequest', item['default']);
    fillMissing(item, 'defaultRequest', item['min']);
  }
}

function defaultReplicationController(obj: KubeObject): void {
  const template = isRecord(obj['spec']) ? (obj['spec'] as Rec)['template'] : undefined;
  if (isRecord(template)) zeroCreationTimestamp(template);
}

export const coreDefaults: GroupDefaults = {
  replicationcontrollers: { decode: defaultReplicationController },
  persistentvolumes: { decode: defaultPersistentVolume, created: createdPersistentVolume },
  persistentvolumeclaims: { decode: defaultPersistentVolumeClaim, created: createdPersistentVolumeClaim },
  limitranges: { decode: defaultLimitRange },
};
