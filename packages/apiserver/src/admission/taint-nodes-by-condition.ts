/**
 * kube's TaintNodesByCondition admission plugin (1.32): a Node created (not through a
 * subresource) gets the `node.kubernetes.io/not-ready:NoSchedule` taint unless it has a taint
 * with that key and effect already; the node lifecycle controller removes it once the kubelet
 * reports Ready. Mutating only; it never refuses.
 */
import type { AdmissionPlugin, ResourceDefinition } from '@kapi/registry';
import { NOT_READY_TAINT } from './default-toleration-seconds.js';

type Json = Record<string, unknown>;

const plugin: AdmissionPlugin = {
  name: 'TaintNodesByCondition',
  handles: (operation) => operation === 'CREATE',
  admit(a) {
    if (a.subresource !== '' || a.object === undefined) return;
    const node = a.object as Json;
    const spec = typeof node['spec'] === 'object' && node['spec'] !== null ? (node['spec'] as Json) : {};
    node['spec'] = spec;
    const taints = Array.isArray(spec['taints']) ? (spec['taints'] as Json[]) : [];
    if (taints.some((t) => t['key'] === NOT_READY_TAINT && t['effect'] === 'NoSchedule')) return;
    spec['taints'] = [...taints, { key: NOT_READY_TAINT, effect: 'NoSchedule' }];
  },
};

/** The plugin for nodes (undefined for any other resource). */
export function taintNodesByCondition(definition: ResourceDefinition): AdmissionPlugin | undefined {
  return definition.group === '' && definition.plural === 'nodes' ? plugin : undefined;
}
