/**
 * --runtime-config (kube's resourceconfig.MergeAPIResourceConfigs): which built-in group
 * versions and resources are served.
 *
 * - `api/all`, `api/ga`, `api/beta`, `api/alpha` = `true|false` (exactly; applied in that
 *   order) enable or disable every matching version;
 * - `<group>/<version>=<bool>` (empty = true) then overrides a whole version
 *   (`v1` or `/v1` is the core group);
 * - `<group>/<version>/<resource>=<bool>` last, one resource of a version.
 *
 * Keys of kube's groups that kapi does not serve are ignored; groups kube does not have,
 * malformed keys, `api/all=false` alone, unknown versions of a served group, bad booleans
 * and non-lowercase resources fail startup with kube's texts.
 *
 * Defaults: exactly kube 1.32's. Every version kapi has is on but the ones kube removed by
 * 1.32 (events.k8s.io/v1beta1, removed in 1.25, and coordination.k8s.io/v1beta1, removed in
 * 1.22): those are off (404, not in discovery) unless turned on here, by their key or by
 * `api/beta=true` / `api/all=true` (a kapi extension: kube 1.32 refuses their keys as not
 * registered); once on they answer with kube's deprecation warning.
 */
import type { ResourceDefinition } from '@kapi/registry';

export class RuntimeConfigError extends Error {}

const MATCHERS: readonly [string, (version: string) => boolean][] = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v\d+$/.test(v)],
  ['api/beta', (v) => /^v\d+beta\d+$/.test(v)],
  ['api/alpha', (v) => /^v\d+alpha\d+$/.test(v)],
];

/** The core group is `v1` (kube's help text) or `/v1`; `v1/<resource>` a core resource. */
function coreKey(key: string): string {
  return /^v\d+((alpha|beta)\d+)?(\/|$)/.test(key) ? `/${key}` : key;
}

/**
 * The API groups of kube-apiserver 1.32. Keys of these that kapi does not serve are accepted
 * and ignored (kube command lines start unchanged); other groups fail startup as in kube.
 */
const KUBE_GROUPS = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'imagepolicy.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** kube's APIEnablementOptions.Validate: only api/all=false, malformed keys, unknown groups. */
function validateRuntimeConfig(definitions: readonly ResourceDefinition[], overrides: Readonly<Record<string, string>>): void {
  const keys = Object.keys(overrides);
  if (overrides['api/all'] === 'false' && keys.length === 1) throw new RuntimeConfigError('invalid key with only api/all=false');
  const unknown: string[] = [];
  for (const key of keys) {
    if (MATCHERS.some(([flag]) => flag === key)) continue;
    const tokens = coreKey(key).split('/');
    if (tokens.length !== 2 && tokens.length !== 3) throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
    if (tokens[1] === '' || tokens[0]!.includes(':')) throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
    const group = tokens[0]!;
    if (!KUBE_GROUPS.has(group) && !definitions.some((d) => d.group === group)) unknown.push(group);
  }
  if (unknown.length > 0) throw new RuntimeConfigError(`unknown api groups ${unknown.join(',')}`);
}

/** The minor release kapi emulates: versions kube removed by then are off unless --runtime-config turns them on. */
const EMULATED_MINOR = 32;

/** A version kube no longer serves at the emulated release (its deprecation's removedRelease is not later). */
function removedUpstream(version: ResourceDefinition['versions'][number]): boolean {
  const removed = version.deprecated?.removedRelease;
  const minor = removed === undefined ? undefined : /^1\.(\d+)$/.exec(removed)?.[1];
  return minor !== undefined && Number(minor) <= EMULATED_MINOR;
}

/** Go's strconv.ParseBool. */
function parseGoBool(raw: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  return undefined;
}

/** What is served: per `group/version` on or off, and per `group/version/resource` overrides. */
export interface ResourceConfig {
  versionEnabled(group: string, version: string): boolean;
  resourceEnabled(group: string, version: string, resource: string): boolean;
}

/**
 * Resolves `overrides` against the definitions kapi has (their versions marked served are
 * the defaults). Throws RuntimeConfigError with kube's texts.
 */
export function resolveRuntimeConfig(definitions: readonly ResourceDefinition[], overrides: Readonly<Record<string, string>>): ResourceConfig {
  validateRuntimeConfig(definitions, overrides);
  const gvKey = (group: string, version: string) => `${group}/${version}`;
  const versions = new Map<string, boolean>();
  const groups = new Set<string>();
  for (const d of definitions) {
    groups.add(d.group);
    for (const v of d.versions) {
      const key = gvKey(d.group, v.name);
      versions.set(key, (versions.get(key) ?? false) || (v.served && !removedUpstream(v)));
    }
  }
  for (const [flag, matches] of MATCHERS) {
    const value = overrides[flag];
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value ${flag}=${value}`);
    for (const key of versions.keys()) if (matches(key.slice(key.lastIndexOf('/') + 1))) versions.set(key, value === 'true');
  }
  const versionPrefs: [string, boolean][] = [];
  const resourcePrefs: [string, boolean][] = [];
  for (const [key, value] of Object.entries(overrides)) {
    if (MATCHERS.some(([flag]) => flag === key)) continue;
    const tokens = coreKey(key).split('/');
    if (tokens.length < 2 || tokens.length > 3) continue;
    const [group, version] = [tokens[0]!, tokens[1]!];
    if (version === '' || group.includes('/')) throw new RuntimeConfigError(`invalid key ${key}`);
    if (!groups.has(group)) continue;
    if (!versions.has(gvKey(group, version))) throw new RuntimeConfigError(`group version ${group === '' ? version : gvKey(group, version)} that has not been registered`);
    const enabled = value === '' ? true : parseGoBool(value);
    if (enabled === undefined) {
      throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
    if (tokens.length === 2) versionPrefs.push([gvKey(group, version), enabled]);
    else {
      const resource = tokens[2]!;
      if (resource.toLowerCase() !== resource) {
        throw new RuntimeConfigError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
      }
      resourcePrefs.push([`${gvKey(group, version)}/${resource}`, enabled]);
    }
  }
  for (const [key, enabled] of versionPrefs) versions.set(key, enabled);
  // A whole-version preference replaces earlier per-resource ones (kube's EnableVersions/DisableVersions); resource preferences come last.
  const resources = new Map(resourcePrefs);
  return {
    versionEnabled: (group, version) => versions.get(gvKey(group, version)) ?? false,
    resourceEnabled(group, version, resource) {
      return resources.get(`${gvKey(group, version)}/${resource}`) ?? versions.get(gvKey(group, version)) ?? false;
    },
  };
}

/**
 * The definitions as served under `config`: versions that are off are not served (their
 * objects stay readable through the others; the storage version stays the storage form);
 * definitions with no version left are dropped.
 */
export function applyRuntimeConfig(definitions: readonly ResourceDefinition[], config: ResourceConfig): ResourceDefinition[] {
  const out: ResourceDefinition[] = [];
  for (const d of definitions) {
    const versions = d.versions.map((v) => {
      const served = config.resourceEnabled(d.group, v.name, d.plural);
      return served === v.served ? v : { ...v, served };
    });
    if (!versions.some((v) => v.served)) continue;
    out.push(versions.every((v, i) => v === d.versions[i]) ? d : { ...d, versions });
  }
  return out;
}
