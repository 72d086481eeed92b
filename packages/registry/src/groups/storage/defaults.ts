/** storage.k8s.io defaulting (kube's SetDefaults_StorageClass and SetDefaults_CSIDriver, v1). */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';

type Rec = Record<string, unknown>;

const isRecord = (value: unknown): value is Rec => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A StorageClass reclaims its volumes on release (Delete) and binds them at once (Immediate). */
function defaultStorageClass(obj: KubeObject): void {
  const sc = obj as Rec;
  if (sc['reclaimPolicy'] === undefined) sc['reclaimPolicy'] = 'Delete';
  if (sc['volumeBindingMode'] === undefined) sc['volumeBindingMode'] = 'Immediate';
}

/** A CSIDriver attaches, passes no pod info, has no capacity tracking and serves persistent volumes unless told otherwise. */
function defaultCSIDriver(obj: KubeObject): void {
  if (!isRecord(obj['spec'])) obj['spec'] = {};
  const spec = obj['spec'] as Rec;
  const defaults: readonly (readonly [string, unknown])[] = [
    ['attachRequired', true],
    ['podInfoOnMount', false],
    ['storageCapacity', false],
    ['fsGroupPolicy', 'ReadWriteOnceWithFSType'],
    ['requiresRepublish', false],
    // The SELinuxMountReadWriteOncePod gate is on in 1.32.
    ['seLinuxMount', false],
  ];
  for (const [key, value] of defaults) if (spec[key] === undefined) spec[key] = value;
  if (!Array.isArray(spec['volumeLifecycleModes']) || spec['volumeLifecycleModes'].length === 0) spec['volumeLifecycleModes'] = ['Persistent'];
}

export const storageDefaults: GroupDefaults = {
  storageclasses: { decode: defaultStorageClass },
  csidrivers: { decode: defaultCSIDriver },
};
