/**
 * kubectl's columns for PersistentVolumes, PersistentVolumeClaims and ResourceQuotas, cell
 * for cell as kube's printers compute them (quantities in canonical form, access modes
 * abbreviated, `<unset>` for an unset volume mode or attributes class).
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, formatQuantity, nameColumn, parseQuantity } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

export const UNSET = '<unset>';
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const spec = (obj: KubeObject): Record<string, unknown> => recordAt(obj, 'spec') ?? {};
const status = (obj: KubeObject): Record<string, unknown> => recordAt(obj, 'status') ?? {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A quantity as kube's Quantity.String() prints it; `0` when absent. */
export function quantityText(value: unknown): string {
  const q = parseQuantity(value);
  return q === undefined ? '0' : formatQuantity(q);
}

/** Access modes as RWO,ROX,RWX,RWOP (in that order, each once). */
export function accessModesText(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  const short: [string, string][] = [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']];
  return short.filter(([mode]) => list.includes(mode)).map(([, abbreviation]) => abbreviation).join(',');
}

/** The phase, or Terminating once deletion has started. */
function phase(obj: KubeObject): string {
  return obj.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null ? 'Terminating' : text(status(obj)['phase']);
}

function storageClass(obj: KubeObject): string {
  const annotated = obj.metadata.annotations?.[BETA_CLASS_ANNOTATION];
  if (annotated !== undefined) return annotated;
  return text(spec(obj)['storageClassName']);
}

const unsetOr = (value: unknown): string => (typeof value === 'string' ? value : UNSET);

export const persistentVolumeColumns = [
  nameColumn,
  column('Capacity', 'string', 'The storage the volume offers.', (obj) => quantityText(recordAt(spec(obj), 'capacity')?.['storage'])),
  column('Access Modes', 'string', 'How the volume can be mounted (RWO, ROX, RWX, RWOP).', (obj) => accessModesText(spec(obj)['accessModes'])),
  column('Reclaim Policy', 'string', 'What happens to the volume when its claim is released.', (obj) => text(spec(obj)['persistentVolumeReclaimPolicy'])),
  column('Status', 'string', 'The phase of the volume.', phase),
  column('Claim', 'string', 'The claim bound to the volume, as namespace/name.', (obj) => {
    const ref = recordAt(spec(obj), 'claimRef');
    return ref === undefined ? '' : `${text(ref['namespace'])}/${text(ref['name'])}`;
  }),
  column('StorageClass', 'string', 'The class the volume belongs to.', storageClass),
  column('VolumeAttributesClass', 'string', 'The volume attributes class of the volume.', (obj) => unsetOr(spec(obj)['volumeAttributesClassName'])),
  column('Reason', 'string', 'Why the volume is in its phase, if a reason was given.', (obj) => text(status(obj)['reason'])),
  ageColumn,
  column('VolumeMode', 'string', 'Filesystem or Block.', (obj) => unsetOr(spec(obj)['volumeMode']), { priority: 1 }),
];

export const persistentVolumeClaimColumns = [
  nameColumn,
  column('Status', 'string', 'The phase of the claim.', phase),
  column('Volume', 'string', 'The volume bound to the claim.', (obj) => text(spec(obj)['volumeName'])),
  column('Capacity', 'string', 'The storage of the bound volume.', (obj) => (text(spec(obj)['volumeName']) === '' ? '' : quantityText(recordAt(status(obj), 'capacity')?.['storage']))),
  column('Access Modes', 'string', 'How the bound volume can be mounted (RWO, ROX, RWX, RWOP).', (obj) => (text(spec(obj)['volumeName']) === '' ? '' : accessModesText(status(obj)['accessModes']))),
  column('StorageClass', 'string', 'The class the claim asks for.', storageClass),
  column('VolumeAttributesClass', 'string', 'The volume attributes class the claim asks for.', (obj) => unsetOr(spec(obj)['volumeAttributesClassName'])),
  ageColumn,
  column('VolumeMode', 'string', 'Filesystem or Block.', (obj) => unsetOr(spec(obj)['volumeMode']), { priority: 1 }),
];

/** `name: used/hard` for each hard limit (names sorted), requests and limits.* in separate cells. */
function quotaUsage(obj: KubeObject, limits: boolean): string {
  const hard = recordAt(status(obj), 'hard') ?? {};
  const used = recordAt(status(obj), 'used') ?? {};
  return Object.keys(hard)
    .sort()
    .filter((name) => { const parts = name.split('.'); return (parts.length > 1 && parts[0] === 'limits') === limits; })
    .map((name) => `${name}: ${quantityText(used[name])}/${quantityText(hard[name])}`)
    .join(', ');
}

export const resourceQuotaColumns = [
  nameColumn,
  ageColumn,
  column('Request', 'string', 'Used out of hard limits of the quota, but for limits.*.', (obj) => quotaUsage(obj, false)),
  column('Limit', 'string', 'Used out of hard limits.* of the quota.', (obj) => quotaUsage(obj, true)),
];
