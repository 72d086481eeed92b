/**
 * core/v1 Node: cluster-scoped, has status, and — unlike most kinds — keeps the status it is
 * created with (a kubelet registers its node with it). As kube does:
 * - decoding folds `spec.podCIDR` into `spec.podCIDRs` (podCIDR wins when they disagree) and
 *   back, defaults `status.allocatable` to `status.capacity`, and writes the status structs Go
 *   always prints (daemonEndpoints, nodeInfo);
 * - (the `node.kubernetes.io/not-ready:NoSchedule` taint of a new node is kube's
 *   TaintNodesByCondition admission plugin: the apiserver's admission/, not this strategy);
 * - the main resource keeps status, `/status` keeps spec;
 * - field selector `spec.unschedulable` ("true"/"false");
 * - `kubectl get nodes` columns NAME STATUS ROLES AGE VERSION, and with `-o wide` INTERNAL-IP
 *   EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME.
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt, stringAt } from '../../builtin/builtin-strategy.js';
import { validateNode, validateNodeUpdate } from './node-validation.js';

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const LEGACY_ROLE_LABEL = 'kubernetes.io/role';
const NODE_INFO_FIELDS = ['architecture', 'bootID', 'containerRuntimeVersion', 'kernelVersion', 'kubeProxyVersion', 'kubeletVersion', 'machineID', 'operatingSystem', 'osImage', 'systemUUID'];

function ensure(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = recordAt(obj, key) ?? {};
  obj[key] = value;
  return value;
}

/** kube's v1 conversion and defaulting of a Node (see the file comment). */
function defaultNode(node: KubeObject): void {
  const spec = recordAt(node, 'spec');
  if (spec !== undefined) {
    const podCIDR = typeof spec['podCIDR'] === 'string' ? spec['podCIDR'] : '';
    const podCIDRs = Array.isArray(spec['podCIDRs']) ? spec['podCIDRs'] : [];
    if (podCIDR !== '' && podCIDRs[0] !== podCIDR) spec['podCIDRs'] = [podCIDR];
    else if (podCIDR === '' && typeof podCIDRs[0] === 'string' && podCIDRs[0] !== '') spec['podCIDR'] = podCIDRs[0];
  }
  const status = ensure(node, 'status');
  const capacity = recordAt(status, 'capacity');
  if (status['allocatable'] === undefined && capacity !== undefined) status['allocatable'] = { ...capacity };
  const kubelet = ensure(ensure(status, 'daemonEndpoints'), 'kubeletEndpoint');
  if (typeof kubelet['Port'] !== 'number') kubelet['Port'] = 0;
  const info = ensure(status, 'nodeInfo');
  for (const field of NODE_INFO_FIELDS) if (typeof info[field] !== 'string') info[field] = '';
}

function keep(obj: KubeObject, old: KubeObject, field: string): void {
  if (old[field] === undefined) delete obj[field];
  else obj[field] = structuredClone(old[field]);
}

const unschedulable = (node: KubeObject): boolean => recordAt(node, 'spec')?.['unschedulable'] === true;

/** kubectl's STATUS: Ready/NotReady from the Ready condition (Unknown without one), then SchedulingDisabled. */
function nodeStatus(node: KubeObject): string {
  const conditions = recordAt(node, 'status')?.['conditions'];
  const ready = Array.isArray(conditions) ? (conditions as Record<string, unknown>[]).find((c) => c?.['type'] === 'Ready') : undefined;
  const states = [ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady'];
  if (unschedulable(node)) states.push('SchedulingDisabled');
  return states.join(',');
}

/** kubectl's ROLES: `node-role.kubernetes.io/<role>` labels and the legacy `kubernetes.io/role`, sorted. */
function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [label, value] of Object.entries(node.metadata.labels ?? {})) {
    if (label.startsWith(ROLE_LABEL_PREFIX) && label.length > ROLE_LABEL_PREFIX.length) roles.add(label.slice(ROLE_LABEL_PREFIX.length));
    else if (label === LEGACY_ROLE_LABEL && value !== '') roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function address(node: KubeObject, type: string): string {
  const addresses = recordAt(node, 'status')?.['addresses'];
  const found = Array.isArray(addresses) ? (addresses as Record<string, unknown>[]).find((a) => a?.['type'] === type) : undefined;
  return typeof found?.['address'] === 'string' ? found['address'] : '<none>';
}

function info(node: KubeObject, field: string): string {
  return stringAt(node, ['status', 'nodeInfo', field]) || '<unknown>';
}

export const nodeColumns = [
  nameColumn,
  column('Status', 'string', 'The status of the node', nodeStatus),
  column('Roles', 'string', 'The roles of the node', nodeRoles),
  ageColumn,
  column('Version', 'string', 'The kubelet version the node reports.', (node) => stringAt(node, ['status', 'nodeInfo', 'kubeletVersion']) ?? ''),
  column('Internal-IP', 'string', 'The first InternalIP address of the node.', (node) => address(node, 'InternalIP'), { priority: 1 }),
  column('External-IP', 'string', 'The first ExternalIP address of the node.', (node) => address(node, 'ExternalIP'), { priority: 1 }),
  column('OS-Image', 'string', 'The OS image the node reports.', (node) => info(node, 'osImage'), { priority: 1 }),
  column('Kernel-Version', 'string', 'The kernel version the node reports.', (node) => info(node, 'kernelVersion'), { priority: 1 }),
  column('Container-Runtime', 'string', 'The container runtime and version the node reports.', (node) => info(node, 'containerRuntimeVersion'), { priority: 1 }),
];

/** What nodes do beyond the generic built-in store. */
export const nodeBehaviour: Partial<ResourceDefinition> = {
  statusOnCreate: true,
  selectableFields: { 'spec.unschedulable': (node) => String(unschedulable(node)) },
  printerColumns: nodeColumns,
  strategy: builtinStrategy({
    decode: defaultNode,
    prepareForSubresourceUpdate(_subresource, obj, old) {
      keep(obj, old, 'spec');
    },
    validate: validateNode,
    validateUpdate: validateNodeUpdate,
  }),
};
