/**
 * kube's ClusterRole aggregation controller (kube-controller-manager's
 * clusterrole-aggregation-controller; kapi runs it itself): a ClusterRole with an
 * `aggregationRule` is written with the rules of every other ClusterRole its selectors match,
 * taken in name order without duplicates. Runs after each change of the RBAC policy (batched);
 * a write that loses a race (Conflict) is redone on the next change. Deterministic, so
 * replicas that run it together agree. The authorizer does not wait for it: it resolves
 * aggregation itself (rbac-policy.ts).
 */
import { isConflict, isNotFound, labelSelectorFromObject, type LabelSelectorObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import type { TermController } from './controller.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A ClusterRole's rule as stored. */
export interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** A ClusterRole as stored (read-only, shared). */
export interface ClusterRoleObject {
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
  readonly rules?: readonly PolicyRule[] | null;
  readonly aggregationRule?: { readonly clusterRoleSelectors?: readonly LabelSelectorObject[] | null } | null;
}

/** Where the controller reads ClusterRoles from (the apiserver's RBAC informers). */
export interface ClusterRoleSource {
  clusterRoles(): Iterable<ClusterRoleObject>;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}


/** The rule as its Go struct encodes it (empty lists omitted), for comparisons. */
function canonical(rule: PolicyRule): string {
  const list = (v: readonly string[] | undefined) => (v !== undefined && v.length > 0 ? v : undefined);
  return JSON.stringify({ verbs: rule.verbs ?? [], apiGroups: list(rule.apiGroups), resources: list(rule.resources), resourceNames: list(rule.resourceNames), nonResourceURLs: list(rule.nonResourceURLs) });
}

/** Aggregates while it runs: at the start of a run, then after each change of the policy. */
export function clusterRoleAggregationController(registry: Pick<Registry, 'lookup'>, policy: ClusterRoleSource, onError: (err: unknown) => void): TermController {
  const resource = registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
  if (resource?.updater === undefined) throw new Error(`the aggregation controller needs clusterroles.${RBAC_GROUP}/v1`);
  const updater = resource.updater;
  let scheduled: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = true;

  const sync = async (): Promise<void> => {
    const roles = [...policy.clusterRoles()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    for (const role of roles) {
      const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
      if (role.aggregationRule === undefined || role.aggregationRule === null || stopped) continue;
      const parsed = selectors.map((s) => labelSelectorFromObject(s));
      const rules: PolicyRule[] = [];
      const seen = new Set<string>();
      for (const other of roles) {
        if (other.metadata.name === role.metadata.name || !parsed.some((selector) => selector.matches(other.metadata.labels))) continue;
        for (const rule of other.rules ?? []) {
          const key = canonical(rule);
          if (seen.has(key)) continue;
          seen.add(key);
          rules.push(rule);
        }
      }
      const current = (role.rules ?? []).map(canonical);
      if (current.length === rules.length && current.every((key, i) => key === canonical(rules[i]!))) continue;
      try {
        await updater.update({ namespace: '', userAgent: 'kube-controller-manager/v1.32.0 clusterrole-aggregation-controller' }, role.metadata.name, { ...role, apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', rules }, { fieldManager: 'clusterrole-aggregation-controller' });
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) onError(err);
      }
    }
  };
  const schedule = (): void => {
    if (stopped || scheduled !== undefined) return;
    scheduled = setTimeout(() => {
      scheduled = undefined;
      running = running.then(sync).catch(onError);
    }, 20);
  };
  return {
    synced: () => true,
    async run(signal) {
      if (signal.aborted) return;
      stopped = false;
      const unsubscribe = policy.onChange(schedule);
      schedule();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      stopped = true;
      unsubscribe();
      clearTimeout(scheduled);
      scheduled = undefined;
      await running;
    },
    stop: () => Promise.resolve(),
  };
}
