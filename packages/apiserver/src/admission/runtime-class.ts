/**
 * kube's RuntimeClass admission plugin (1.32), for pods created (not subresources) with
 * `spec.runtimeClassName`: the RuntimeClass (node.k8s.io/v1) must exist — 403 `pod rejected:
 * RuntimeClass "<n>" not found`. Mutating: the class's `overhead.podFixed` becomes the pod's
 * `spec.overhead` (403 when the pod brings a different one), its `scheduling.nodeSelector`
 * joins the pod's (403 `conflict: ...` when a key has another value) and its
 * `scheduling.tolerations` are merged into the pod's. Validating: the pod's overhead must be
 * the class's, and a pod without such a class may not set one.
 */
import type { KubeObject } from '@kapi/machinery';
import { quantityNanos, type AdmissionAttributes, type AdmissionPlugin, type Registry, type ResourceDefinition } from '@kapi/registry';
import { clusterObjects, type ClusterObjects } from './cluster-objects.js';
import { admissionForbidden } from './forbidden.js';
import { mergeTolerations } from './tolerations.js';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);

const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
const OVERHEAD_WITHOUT_CLASS = 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead';

/** Equal resource lists as Go's semantic DeepEqual sees them (quantities by value). */
function sameResources(a: Json, b: Json): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k in b && quantityNanos(String(a[k])) === quantityNanos(String(b[k])));
}

export interface RuntimeClassAdmission {
  plugin(definition: ResourceDefinition): AdmissionPlugin | undefined;
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

export function createRuntimeClassAdmission(): RuntimeClassAdmission {
  const classes: ClusterObjects = clusterObjects('node.k8s.io', 'v1', 'runtimeclasses');

  /** The pod's spec and its RuntimeClass (undefined when it names none). */
  async function prepare(a: AdmissionAttributes): Promise<{ spec: Json; runtimeClass: KubeObject | undefined } | undefined> {
    const spec = rec((a.object as Json | undefined)?.['spec']);
    if (spec === undefined) return undefined;
    const name = spec['runtimeClassName'];
    if (typeof name !== 'string') return { spec, runtimeClass: undefined };
    const runtimeClass = await classes.get(name);
    if (runtimeClass === undefined) throw admissionForbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return { spec, runtimeClass };
  }

  const plugin: AdmissionPlugin = {
    name: 'RuntimeClass',
    handles: (operation) => operation === 'CREATE',
    async admit(a) {
      if (a.subresource !== '') return;
      const prepared = await prepare(a);
      if (prepared?.runtimeClass === undefined) return;
      const { spec, runtimeClass } = prepared;
      const podFixed = rec(rec((runtimeClass as Json)['overhead'])?.['podFixed']);
      if (podFixed !== undefined) {
        const overhead = rec(spec['overhead']);
        if (overhead !== undefined && Object.keys(overhead).length > 0 && !sameResources(podFixed, overhead)) throw admissionForbidden(a, OVERHEAD_MISMATCH);
        spec['overhead'] = { ...podFixed };
      }
      const scheduling = rec((runtimeClass as Json)['scheduling']);
      if (scheduling !== undefined) {
        const classSelector = rec(scheduling['nodeSelector']) ?? {};
        const podSelector = rec(spec['nodeSelector']);
        if (podSelector === undefined) {
          if (rec(scheduling['nodeSelector']) !== undefined) spec['nodeSelector'] = { ...classSelector };
        } else {
          for (const [key, classValue] of Object.entries(classSelector)) {
            const podValue = podSelector[key];
            if (podValue !== undefined && podValue !== classValue) {
              throw admissionForbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(classValue)}; pod.spec.nodeSelector[${key}] = ${String(podValue)}`);
            }
            podSelector[key] = classValue;
          }
        }
        const merged = mergeTolerations(list(spec['tolerations']), list(scheduling['tolerations']));
        if (merged.length > 0) spec['tolerations'] = merged;
      }
    },
    async validate(a) {
      if (a.subresource !== '') return;
      const prepared = await prepare(a);
      if (prepared === undefined) return;
      const podFixed = rec(rec((prepared.runtimeClass as Json | undefined)?.['overhead'])?.['podFixed']);
      const overhead = rec(prepared.spec['overhead']);
      if (podFixed !== undefined) {
        if (!sameResources(podFixed, overhead ?? {})) throw admissionForbidden(a, OVERHEAD_MISMATCH);
      } else if (overhead !== undefined) {
        throw admissionForbidden(a, OVERHEAD_WITHOUT_CLASS);
      }
    },
  };
  return {
    plugin: (definition) => (definition.group === '' && definition.plural === 'pods' ? plugin : undefined),
    start: (registry, onError) => classes.start(registry, onError),
    synced: () => classes.synced(),
    stop: () => classes.stop(),
  };
}
