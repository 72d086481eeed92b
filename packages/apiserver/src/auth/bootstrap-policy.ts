/**
 * Reconciles kube's bootstrap RBAC policy at start when RBAC is on (kube's
 * `rbac/bootstrap-roles` post-start hook): a missing role or binding is created; an existing
 * one whose `rbac.authorization.kubernetes.io/autoupdate` annotation is not "false" gets the
 * labels, annotations, rules (non-aggregated roles) and subjects it lacks. Safe when several
 * replicas race: AlreadyExists and Conflict mean another one did it.
 */
import { bootstrapPolicy } from '@kapi/catalog';
import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kapi/machinery';
import type { Registry, RequestContext } from '@kapi/registry';
import { RBAC_GROUP } from './rbac-policy.js';

const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';

type Obj = Record<string, unknown> & { metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } };

/** JSON with object keys sorted and empty lists dropped: equal for equal rules or subjects however they were stored. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

function missingFrom<T>(existing: readonly T[] | undefined, wanted: readonly T[] | undefined): T[] {
  const have = new Set((existing ?? []).map(canonical));
  return (wanted ?? []).filter((x) => !have.has(canonical(x)));
}

/** The existing object with what it lacks of `expected`, or undefined when nothing is missing. */
function reconciled(existing: Obj, expected: Obj, listField: 'rules' | 'subjects'): Obj | undefined {
  const labels = { ...(expected.metadata.labels ?? {}), ...(existing.metadata.labels ?? {}) };
  const annotations = { ...(expected.metadata.annotations ?? {}), ...(existing.metadata.annotations ?? {}) };
  const aggregated = existing['aggregationRule'] !== undefined && existing['aggregationRule'] !== null;
  const missing = listField === 'rules' && aggregated ? [] : missingFrom(existing[listField] as unknown[] | undefined, expected[listField] as unknown[] | undefined);
  const lacks = (have: Record<string, string> | undefined, want: Record<string, string> | undefined) => Object.keys(want ?? {}).some((key) => !Object.hasOwn(have ?? {}, key));
  const metadataSame = !lacks(existing.metadata.labels, expected.metadata.labels) && !lacks(existing.metadata.annotations, expected.metadata.annotations);
  if (missing.length === 0 && metadataSame) return undefined;
  return {
    ...existing,
    metadata: { ...existing.metadata, labels, annotations },
    [listField]: [...((existing[listField] as unknown[] | undefined) ?? []), ...missing],
  };
}

function withoutNulls(obj: Record<string, unknown>): Obj {
  const { creationTimestamp: _ignored, ...metadata } = obj['metadata'] as Record<string, unknown>;
  return { ...obj, metadata } as Obj;
}

/**
 * Creates or completes every object of the bootstrap policy. Throws the first storage error
 * other than AlreadyExists/Conflict (the caller retries).
 */
export async function reconcileBootstrapPolicy(registry: Pick<Registry, 'lookup'>): Promise<void> {
  const policy = bootstrapPolicy();
  const ctxFor = (namespace: string): RequestContext => ({ namespace, userAgent: 'kube-apiserver/v1.32.0' });
  const ensure = async (plural: string, kind: string, raw: Record<string, unknown>, listField: 'rules' | 'subjects'): Promise<void> => {
    const resource = registry.lookup(RBAC_GROUP, 'v1', plural);
    if (resource?.getter === undefined || resource.creater === undefined || resource.updater === undefined) throw new Error(`RBAC needs ${plural}.${RBAC_GROUP}/v1 to be served`);
    const expected = { apiVersion: `${RBAC_GROUP}/v1`, kind, ...withoutNulls(raw) } as Obj;
    const ctx = ctxFor(expected.metadata.namespace ?? '');
    let existing: KubeObject;
    try {
      existing = await resource.getter.get(ctx, expected.metadata.name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await resource.creater.create(ctx, expected, {});
      } catch (createErr) {
        if (!isAlreadyExists(createErr)) throw createErr;
      }
      return;
    }
    const current = existing as unknown as Obj;
    if (current.metadata.annotations?.[AUTOUPDATE] === 'false') return;
    const update = reconciled(current, expected, listField);
    if (update === undefined) return;
    try {
      await resource.updater.update(ctx, expected.metadata.name, update, {});
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  };
  await Promise.all(policy.clusterRoles.map((r) => ensure('clusterroles', 'ClusterRole', r, 'rules')));
  await Promise.all(policy.clusterRoleBindings.map((b) => ensure('clusterrolebindings', 'ClusterRoleBinding', b, 'subjects')));
  await Promise.all(Object.values(policy.namespaceRoles).flat().map((r) => ensure('roles', 'Role', r, 'rules')));
  await Promise.all(Object.values(policy.namespaceRoleBindings).flat().map((b) => ensure('rolebindings', 'RoleBinding', b, 'subjects')));
}
