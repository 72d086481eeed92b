/**
 * What the control-plane scenarios read back: pods, their phases and nodes, and small
 * manifests. Every check returns either the value it waited for or a string saying what it
 * saw, for `eventually`.
 */
import { stringify } from 'yaml';
import type { Kubectl } from '../harness/kubectl.js';

/**
 * Objects as one multi-document YAML stream for `kubectl apply -f -`. Not a `kind: List`:
 * kubectl validates a List against /openapi/v2, which kapi does not serve.
 */
export function yamlStream(objects: readonly unknown[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

export interface Pod {
  metadata: { name: string; namespace: string; deletionTimestamp?: string; ownerReferences?: { kind: string; name: string }[]; labels?: Record<string, string> };
  spec: { nodeName?: string; containers: { name: string; image: string }[] };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

export interface List<T> {
  items: T[];
}

/** Pods of `namespace` matching `selector` (a label selector), excluding terminating ones. */
export async function livePods(kubectl: Kubectl, namespace: string, selector: string): Promise<Pod[]> {
  const list = await kubectl.json<List<Pod>>(['get', 'pods', '-n', namespace, '-l', selector]);
  return list.items.filter((p) => p.metadata.deletionTimestamp === undefined);
}

export function running(pods: readonly Pod[]): Pod[] {
  return pods.filter((p) => p.status.phase === 'Running' && p.spec.nodeName !== undefined);
}

export function ready(pod: Pod): boolean {
  return pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Pods per node name. */
export function spread(pods: readonly Pod[]): Map<string, number> {
  const byNode = new Map<string, number>();
  for (const p of pods) byNode.set(p.spec.nodeName ?? '', (byNode.get(p.spec.nodeName ?? '') ?? 0) + 1);
  return byNode;
}

export function summary(pods: readonly Pod[]): string {
  const phases = new Map<string, number>();
  for (const p of pods) {
    const key = `${p.status.phase ?? 'none'}${p.spec.nodeName ? '' : '/unscheduled'}`;
    phases.set(key, (phases.get(key) ?? 0) + 1);
  }
  return `${pods.length} pods: ${[...phases].map(([k, v]) => `${k}=${v}`).join(' ')}`;
}

/** Waits until exactly `count` live pods match and all are Running (and Ready) on a node. */
export async function allRunning(kubectl: Kubectl, namespace: string, selector: string, count: number, extra?: (pods: Pod[]) => string | undefined): Promise<Pod[] | string> {
  const pods = await livePods(kubectl, namespace, selector);
  const up = running(pods).filter(ready);
  if (pods.length !== count || up.length !== count) return `want ${count} Running+Ready, have ${summary(pods)} (${up.length} ready)`;
  const why = extra?.(pods);
  return why ?? pods;
}

export function deployment(name: string, namespace: string, replicas: number, image: string, extra: { labels?: Record<string, string> } = {}): Record<string, unknown> {
  const labels = { app: name, ...extra.labels };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image }], terminationGracePeriodSeconds: 0 } },
    },
  };
}
