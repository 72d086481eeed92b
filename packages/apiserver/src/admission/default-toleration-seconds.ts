/**
 * kube's DefaultTolerationSeconds admission plugin (1.32): every pod created or updated
 * (not its subresources) tolerates the `node.kubernetes.io/not-ready` and
 * `node.kubernetes.io/unreachable` NoExecute taints for a while — 300 s unless
 * --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds say
 * otherwise — unless it already tolerates them (a toleration with that key or no key, and
 * effect NoExecute or none). Mutating only; it never refuses.
 */
import type { AdmissionPlugin, ResourceDefinition } from '@kapi/registry';

export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
export const DEFAULT_TOLERATION_SECONDS = 300;

export interface DefaultTolerationSecondsOptions {
  /** --default-not-ready-toleration-seconds (300). */
  readonly notReadySeconds?: number;
  /** --default-unreachable-toleration-seconds (300). */
  readonly unreachableSeconds?: number;
}

type Json = Record<string, unknown>;

const tolerates = (tolerations: readonly Json[], key: string) =>
  tolerations.some((t) => (t['key'] === key || t['key'] === undefined || t['key'] === '') && (t['effect'] === 'NoExecute' || t['effect'] === undefined || t['effect'] === ''));

/** The plugin for pods (undefined for any other resource). */
export function defaultTolerationSeconds(options: DefaultTolerationSecondsOptions = {}): (definition: ResourceDefinition) => AdmissionPlugin | undefined {
  const notReady = options.notReadySeconds ?? DEFAULT_TOLERATION_SECONDS;
  const unreachable = options.unreachableSeconds ?? DEFAULT_TOLERATION_SECONDS;
  const plugin: AdmissionPlugin = {
    name: 'DefaultTolerationSeconds',
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    admit(a) {
      if (a.subresource !== '' || a.object === undefined) return;
      const spec = (a.object as Json)['spec'];
      if (typeof spec !== 'object' || spec === null) return;
      const podSpec = spec as Json;
      const tolerations = Array.isArray(podSpec['tolerations']) ? (podSpec['tolerations'] as Json[]).filter((t) => typeof t === 'object' && t !== null) : [];
      const added: Json[] = [];
      if (!tolerates(tolerations, NOT_READY_TAINT)) added.push({ key: NOT_READY_TAINT, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: notReady });
      if (!tolerates(tolerations, UNREACHABLE_TAINT)) added.push({ key: UNREACHABLE_TAINT, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: unreachable });
      if (added.length > 0) podSpec['tolerations'] = [...(Array.isArray(podSpec['tolerations']) ? podSpec['tolerations'] : []), ...added];
    },
  };
  return (definition) => (definition.group === '' && definition.plural === 'pods' ? plugin : undefined);
}
