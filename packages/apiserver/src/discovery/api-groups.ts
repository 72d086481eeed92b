/**
 * The served API surface grouped as discovery presents it: groups, their versions in
 * preference order, and per group-version the resources with the verbs their REST roles
 * support. Derived from the registry's resources; recomputed when they change.
 */
import type { RestResource } from '@kapi/registry';
import { builtinGroupOrder } from '@kapi/registry';
import { createHash } from 'node:crypto';

export interface GroupVersionResources {
  readonly group: string;
  readonly version: string;
  /** `v1` for core, `group/version` otherwise. */
  readonly groupVersion: string;
  readonly resources: readonly RestResource[];
}

export interface ApiGroup {
  readonly name: string;
  /** Preferred first (kube's version priority). */
  readonly versions: readonly GroupVersionResources[];
}

/** A REST role a later issue adds; discovery advertises `watch` only where it exists. */
interface MaybeWatchable {
  readonly watcher?: unknown;
}

/** The verbs a resource's roles support, sorted as kube lists them. */
export function resourceVerbs(resource: RestResource): string[] {
  const verbs: string[] = [];
  if (resource.creater) verbs.push('create');
  if (resource.deleter) verbs.push('delete');
  if (resource.collectionDeleter) verbs.push('deletecollection');
  if (resource.getter) verbs.push('get');
  if (resource.lister) verbs.push('list');
  if (resource.patcher) verbs.push('patch');
  if (resource.updater) verbs.push('update');
  if ((resource as MaybeWatchable).watcher !== undefined) verbs.push('watch');
  return verbs;
}

/** The kind of a subresource that is not its resource's: `scale` speaks autoscaling/v1 Scale (built-ins and custom resources alike). */
export function subresourceKind(name: string): { group: string; version: string; kind: string } | undefined {
  return name === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : undefined;
}

/** Each subresource with the verbs its roles serve (create, get, patch, update; a connecter's own), by name. */
export function subresourceVerbs(resource: RestResource): { name: string; verbs: string[]; kind?: { group: string; version: string; kind: string } }[] {
  const out: { name: string; verbs: string[]; kind?: { group: string; version: string; kind: string } }[] = [];
  for (const sub of resource.subresources?.values() ?? []) {
    const verbs: string[] = sub.connecter !== undefined ? [...sub.connecter.verbs] : [];
    if (sub.creater) verbs.push('create');
    if (sub.getter) verbs.push('get');
    if (sub.patcher) verbs.push('patch');
    if (sub.updater) verbs.push('update');
    verbs.sort();
    if (verbs.length > 0) out.push({ name: sub.name, verbs, ...(sub.kind !== undefined ? { kind: sub.kind } : {}) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** kube's storageVersionHash: base64 of the first 8 bytes of SHA-256 over `group/version/kind`. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

function parseKubeVersion(v: string): { major: number; stage: number; minor: number } | undefined {
  const m = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/.exec(v);
  if (m === null) return undefined;
  const stage = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return { major: Number(m[1]), stage, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/** kube's version priority: GA before beta before alpha, higher numbers first, then others by name. Negative: `a` first. */
export function compareKubeVersions(a: string, b: string): number {
  const va = parseKubeVersion(a);
  const vb = parseKubeVersion(b);
  if (va && vb) {
    if (va.stage !== vb.stage) return vb.stage - va.stage;
    if (va.major !== vb.major) return vb.major - va.major;
    return vb.minor - va.minor;
  }
  if (va) return -1;
  if (vb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const BUILTIN_ORDER = new Map(builtinGroupOrder.map((group, i) => [group, i]));

/**
 * kube's group order: the built-in groups by their priority (the order kube-apiserver 1.32
 * lists them in), then other groups (custom resources, whose APIServices all get the same
 * lower priority) by name.
 */
function compareGroups(a: string, b: string): number {
  const ia = BUILTIN_ORDER.get(a) ?? Number.MAX_SAFE_INTEGER;
  const ib = BUILTIN_ORDER.get(b) ?? Number.MAX_SAFE_INTEGER;
  if (ia !== ib) return ia - ib;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Groups the resources: the core group ("") first, then named groups in kube's order. */
export function groupResources(resources: readonly RestResource[]): ApiGroup[] {
  const byGroup = new Map<string, Map<string, RestResource[]>>();
  for (const resource of resources) {
    const group = resource.definition.group;
    let versions = byGroup.get(group);
    if (versions === undefined) byGroup.set(group, (versions = new Map()));
    let list = versions.get(resource.version);
    if (list === undefined) versions.set(resource.version, (list = []));
    list.push(resource);
  }
  const groups: ApiGroup[] = [];
  for (const name of [...byGroup.keys()].sort(compareGroups)) {
    const versions = byGroup.get(name)!;
    groups.push({
      name,
      versions: [...versions.keys()].sort(compareKubeVersions).map((version) => ({
        group: name,
        version,
        groupVersion: name === '' ? version : `${name}/${version}`,
        resources: [...versions.get(version)!].sort((a, b) => (a.definition.plural < b.definition.plural ? -1 : 1)),
      })),
    });
  }
  return groups;
}
