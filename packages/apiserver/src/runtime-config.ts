/**
 * --runtime-config (kube's resourceconfig.MergeAPIResourceConfigs): which built-in group
 * versions and resources are served.
 *
 * - `api/all`, `api/ga`, `api/beta`, `api/alpha` = `true|false` (exactly; applied in that
 *   order) enable or disable every matching version;
 * - `<group>/<version>=<bool>` (empty = true) then overrides a whole version
 *   (`v1`, `api/v1` or `/v1` is the core group);
 * - `<group>/<version>/<resource>=<bool>` last, one resource of a version.
 *
 * Keys of groups kapi does not serve are ignored (as kube ignores unregistered groups);
 * unknown versions of a served group, bad booleans and non-lowercase resources fail startup
 * with kube's texts.
 *
 * Defaults: every version kapi serves is on. kube turns on by default GA versions and the
 * betas that predate 1.24 (KEP-3136); kapi's betas (events.k8s.io/v1beta1 and
 * coordination.k8s.io/v1beta1, both pre-1.24) are served, deprecated, although kube 1.32
 * itself no longer has them (removed in 1.25 and 1.22): they answer with kube's deprecation
 * warning and can be turned off here.
 */
import type { ResourceDefinition } from '@kapi/registry';

export class RuntimeConfigError extends Error {}

const MATCHERS: readonly [string, (version: string) => boolean][] = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v\d+$/.test(v)],
  ['api/beta', (v) => /^v\d+beta\d+$/.test(v)],
  ['api/alpha', (v) => /^v\d+alpha\d+$/.test(v)],
];

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
  const gvKey = (group: string, version: string) => `${group}/${version}`;
  const versions = new Map<string, boolean>();
  const groups = new Set<string>();
  for (const d of definitions) {
    groups.add(d.group);
    for (const v of d.versions) {
      const key = gvKey(d.group, v.name);
      versions.set(key, (versions.get(key) ?? false) || v.served);
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
    // The core group: `v1`, `v1/<resource>` (kube's help text), `api/v1` or `/v1`.
    const core = /^v\d+((alpha|beta)\d+)?(\/|$)/.test(key) ? `/${key}` : key.startsWith('api/v') ? key.slice(3) : key;
    const tokens = core.split('/');
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
