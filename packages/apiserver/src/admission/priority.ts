/**
 * kube's Priority admission plugin (1.32) and the system PriorityClasses it relies on.
 *
 * Pods (CREATE, not subresources): `spec.priorityClassName` names a PriorityClass (403 `no
 * PriorityClass with name <n> was found` otherwise) whose value and preemptionPolicy the pod
 * gets; without a name, the global default class (the lowest-valued one, should a race have
 * made two) names the class, else priority 0 and PreemptLowerPriority. A pod that already
 * carries a different priority or preemptionPolicy is refused with kube's messages. On
 * UPDATE, a priority or preemptionPolicy the new pod omits is kept from the old one.
 *
 * PriorityClasses (CREATE and UPDATE, validating): only one may be globalDefault — 403
 * `PriorityClass <n> is already marked as default. Only one default can exist`.
 *
 * The classes are read from an informer copy (kube's lister), with a live read on a miss.
 * `ensureSystemPriorityClasses` is kube's scheduling/bootstrap-system-priority-classes
 * post-start hook: system-node-critical and system-cluster-critical, created when absent.
 */
import { isAlreadyExists, isNotFound, type KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionPlugin, Registry, ResourceDefinition } from '@kapi/registry';
import { clusterObjects, type ClusterObjects } from './cluster-objects.js';
import { admissionForbidden } from './forbidden.js';

export const SCHEDULING_GROUP = 'scheduling.k8s.io';
const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority';

/** kube's system PriorityClasses (scheduling/v1 SystemPriorityClasses). */
export const SYSTEM_PRIORITY_CLASSES: readonly { name: string; value: number; description: string }[] = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

type Json = Record<string, unknown>;
const specOf = (obj: KubeObject | undefined): Json | undefined => {
  const spec = (obj as Json | undefined)?.['spec'];
  return typeof spec === 'object' && spec !== null ? (spec as Json) : undefined;
};
const value = (pc: KubeObject): number => (typeof (pc as Json)['value'] === 'number' ? ((pc as Json)['value'] as number) : 0);
const policyOf = (pc: KubeObject): string | undefined => (typeof (pc as Json)['preemptionPolicy'] === 'string' ? ((pc as Json)['preemptionPolicy'] as string) : undefined);

export interface PriorityAdmission {
  plugin(definition: ResourceDefinition): AdmissionPlugin | undefined;
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

export function createPriorityAdmission(): PriorityAdmission {
  const classes: ClusterObjects = clusterObjects(SCHEDULING_GROUP, 'v1', 'priorityclasses');

  /** The global default class: the lowest-valued one marked globalDefault. */
  const defaultClass = (): KubeObject | undefined => {
    let found: KubeObject | undefined;
    for (const pc of classes.list()) {
      if ((pc as Json)['globalDefault'] === true && (found === undefined || value(found) > value(pc))) found = pc;
    }
    return found;
  };

  async function admitPod(a: AdmissionAttributes): Promise<void> {
    const spec = specOf(a.object);
    if (spec === undefined) return;
    if (a.operation === 'UPDATE') {
      const old = specOf(a.oldObject);
      if (spec['priority'] === undefined && old?.['priority'] !== undefined) spec['priority'] = old['priority'];
      if (spec['preemptionPolicy'] === undefined && old?.['preemptionPolicy'] !== undefined) spec['preemptionPolicy'] = old['preemptionPolicy'];
      return;
    }
    let priority: number;
    let policy: string | undefined;
    const className = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
    if (className === '') {
      const pc = defaultClass();
      if (pc !== undefined) {
        spec['priorityClassName'] = pc.metadata.name;
        priority = value(pc);
        policy = policyOf(pc);
      } else {
        priority = 0;
        policy = PREEMPT_LOWER_PRIORITY;
      }
    } else {
      const pc = await classes.get(className);
      if (pc === undefined) throw admissionForbidden(a, `no PriorityClass with name ${className} was found`);
      priority = value(pc);
      policy = policyOf(pc);
    }
    if (typeof spec['priority'] === 'number' && spec['priority'] !== priority) {
      throw admissionForbidden(a, `the integer value of priority (${spec['priority']}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec['priority'] = priority;
    if (policy !== undefined) {
      if (typeof spec['preemptionPolicy'] === 'string' && spec['preemptionPolicy'] !== policy) {
        throw admissionForbidden(a, `the string value of PreemptionPolicy (${spec['preemptionPolicy']}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec['preemptionPolicy'] = policy;
    }
  }

  function validatePriorityClass(a: AdmissionAttributes): void {
    if (a.object === undefined || (a.object as Json)['globalDefault'] !== true) return;
    const current = defaultClass();
    if (current === undefined) return;
    if (a.operation === 'CREATE' || current.metadata.name !== a.object.metadata.name) {
      throw admissionForbidden(a, `PriorityClass ${current.metadata.name} is already marked as default. Only one default can exist`);
    }
  }

  const podPlugin: AdmissionPlugin = {
    name: 'Priority',
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    admit: (a) => (a.subresource === '' ? admitPod(a) : undefined),
  };
  const classPlugin: AdmissionPlugin = {
    name: 'Priority',
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    validate: (a) => (a.subresource === '' ? validatePriorityClass(a) : undefined),
  };
  return {
    plugin(definition) {
      if (definition.group === '' && definition.plural === 'pods') return podPlugin;
      if (definition.group === SCHEDULING_GROUP && definition.plural === 'priorityclasses') return classPlugin;
      return undefined;
    },
    start: (registry, onError) => classes.start(registry, onError),
    synced: () => classes.synced(),
    stop: () => classes.stop(),
  };
}

/**
 * Creates each system PriorityClass that does not exist (an existing one is left as it is, as
 * kube's hook does). Does nothing when scheduling.k8s.io/v1 is not served; throws the first
 * storage error other than a lost creation race (the caller retries).
 */
export async function ensureSystemPriorityClasses(registry: Pick<Registry, 'lookup'>): Promise<void> {
  const resource = registry.lookup(SCHEDULING_GROUP, 'v1', 'priorityclasses');
  if (resource?.getter === undefined || resource.creater === undefined) return;
  const ctx = { namespace: '', userAgent: 'kapi-apiserver' };
  for (const pc of SYSTEM_PRIORITY_CLASSES) {
    try {
      await resource.getter.get(ctx, pc.name, {});
      continue;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const object = { apiVersion: `${SCHEDULING_GROUP}/v1`, kind: 'PriorityClass', metadata: { name: pc.name }, value: pc.value, description: pc.description, preemptionPolicy: PREEMPT_LOWER_PRIORITY } as unknown as KubeObject;
    try {
      await resource.creater.create(ctx, object, { fieldManager: 'kube-apiserver' });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}
