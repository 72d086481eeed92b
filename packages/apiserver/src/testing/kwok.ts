/**
 * KWOK's side of a control plane on kapi, shared by the e2e control plane and kapi-bench's
 * density scenario: the fake node object kwok manages and the stages it plays.
 */
import { fileURLToPath } from 'node:url';

/** The annotation kwok selects its nodes by (`--manage-nodes-with-annotation-selector=<this>=fake`). */
export const kwokNodeAnnotation = 'kwok.x-k8s.io/node';

/** kwok v0.8.0's `kustomize/stage/fast` stages (node heartbeat with leases, pod ready/complete/delete), rendered: kwok's `--config`. */
export const kwokStagesFile = fileURLToPath(new URL('../../../../deploy/kwok/stages.yaml', import.meta.url));

/** The usual kwok node: labels of a Linux node, generous capacity, kwok's annotation. */
export function kwokNode(name: string): Record<string, unknown> {
  const resources = { cpu: '32', memory: '256Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', [kwokNodeAnnotation]: 'fake' },
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/role': 'agent',
        'node-role.kubernetes.io/agent': '',
        type: 'kwok',
      },
    },
    status: {
      allocatable: resources,
      capacity: resources,
      nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion: 'fake', kubeProxyVersion: 'fake', containerRuntimeVersion: '', kernelVersion: '', osImage: '', bootID: '', machineID: '', systemUUID: '' },
      phase: 'Running',
    },
  };
}

