/**
 * kubectl's columns for storage.k8s.io: StorageClasses, CSIDrivers, CSINodes,
 * VolumeAttachments and VolumeAttributesClasses, with kube's defaults for unset fields (a
 * class reclaims with Delete and binds Immediate; a driver requires attach). CSIStorageCapacities
 * keep kube's default Name and Created At.
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

const spec = (obj: KubeObject): Record<string, unknown> => recordAt(obj, 'spec') ?? {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const flag = (value: unknown, unset: boolean): boolean => (typeof value === 'boolean' ? value : unset);

/** The Name column whose cell marks the default class ` (default)` when one of `annotations` is "true". */
function classNameColumn(annotations: readonly string[]) {
  return column(nameColumn.definition.name, 'string', nameColumn.definition.description, (obj) => {
    const name = obj.metadata.name ?? '';
    return annotations.some((a) => obj.metadata.annotations?.[a] === 'true') ? `${name} (default)` : name;
  }, { format: 'name' });
}

export const storageClassColumns = [
  classNameColumn(['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class']),
  column('Provisioner', 'string', 'The volume plugin that provisions volumes of the class.', (obj) => text(obj['provisioner'])),
  column('ReclaimPolicy', 'string', 'What happens to a released volume of the class (Delete unless set).', (obj) => text(obj['reclaimPolicy']) || 'Delete'),
  column('VolumeBindingMode', 'string', 'When volumes of the class are bound (Immediate unless set).', (obj) => text(obj['volumeBindingMode']) || 'Immediate'),
  column('AllowVolumeExpansion', 'string', 'Whether claims of the class may grow.', (obj) => flag(obj['allowVolumeExpansion'], false)),
  ageColumn,
];

export const csiDriverColumns = [
  nameColumn,
  column('AttachRequired', 'boolean', 'Whether volumes of the driver need an attach step (true unless set).', (obj) => flag(spec(obj)['attachRequired'], true)),
  column('PodInfoOnMount', 'boolean', 'Whether the driver gets the pod\'s details on mount.', (obj) => flag(spec(obj)['podInfoOnMount'], false)),
  column('StorageCapacity', 'boolean', 'Whether the scheduler considers the driver\'s reported capacity.', (obj) => flag(spec(obj)['storageCapacity'], false)),
  column('TokenRequests', 'string', 'The audiences of the service account tokens the driver receives.', (obj) => {
    const requests = spec(obj)['tokenRequests'];
    if (!Array.isArray(requests)) return '<unset>';
    return requests.map((r) => text((r as Record<string, unknown> | null)?.['audience'])).join(',');
  }),
  column('RequiresRepublish', 'boolean', 'Whether the driver is called again to remount volumes.', (obj) => flag(spec(obj)['requiresRepublish'], false)),
  column('Modes', 'string', 'The volume lifecycle modes the driver supports.', (obj) => {
    const modes = spec(obj)['volumeLifecycleModes'];
    const list = Array.isArray(modes) ? modes.map(String) : [];
    return list.length === 0 ? '<none>' : list.join(',');
  }),
  ageColumn,
];

export const csiNodeColumns = [
  nameColumn,
  column('Drivers', 'integer', 'The number of CSI drivers registered on the node.', (obj) => {
    const drivers = spec(obj)['drivers'];
    return Array.isArray(drivers) ? drivers.length : 0;
  }),
  ageColumn,
];

export const volumeAttachmentColumns = [
  nameColumn,
  column('Attacher', 'string', 'The driver that attaches the volume.', (obj) => text(spec(obj)['attacher']), { format: 'name' }),
  column('PV', 'string', 'The persistent volume to attach.', (obj) => text(recordAt(spec(obj), 'source')?.['persistentVolumeName'])),
  column('Node', 'string', 'The node to attach the volume to.', (obj) => text(spec(obj)['nodeName'])),
  column('Attached', 'boolean', 'Whether the volume is attached.', (obj) => flag(recordAt(obj, 'status')?.['attached'], false)),
  ageColumn,
];

export const volumeAttributesClassColumns = [
  classNameColumn(['volumeattributesclass.alpha.kubernetes.io/is-default-class']),
  column('DriverName', 'string', 'The CSI driver the class\'s attributes are for.', (obj) => text(obj['driverName'])),
  ageColumn,
];
