/**
 * Deprecated API versions (kube's k8s.io/apiserver/pkg/endpoints/deprecation): whether a
 * served version counts as deprecated for the Kubernetes version kapi emulates, the Warning
 * text a request to it gets, and the removed_release of apiserver_requested_deprecated_apis.
 */
import type { ResourceDefinition, VersionDefinition } from '@kapi/registry';
import { KUBE_MAJOR, KUBE_MINOR } from './version.js';

export interface Deprecation {
  /** The text of the `Warning: 299 - "<text>"` header. */
  readonly warning: string;
  /** `<major>.<minor>` or "". */
  readonly removedRelease: string;
}

function majorMinor(release: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(release ?? '');
  return m === null ? undefined : [Number(m[1]), Number(m[2])];
}

function formatGroupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * kube's IsDeprecated: a version deprecated in a release after the emulated one is not
 * deprecated yet. A version marked deprecated without a release (custom resources) is.
 */
export function isDeprecated(version: VersionDefinition, current: [number, number] = [Number(KUBE_MAJOR), Number(KUBE_MINOR)]): boolean {
  const deprecated = version.deprecated;
  if (deprecated === undefined) return false;
  const since = majorMinor(deprecated.deprecatedRelease);
  if (since === undefined) return true;
  return since[0] < current[0] || (since[0] === current[0] && since[1] <= current[1]);
}

/**
 * The deprecation of `version` of `definition`, or undefined when it is not deprecated. The
 * warning is the version's own text (a CRD's deprecationWarning), else kube's generated
 * `<gv> <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use <gv> <Kind>`, else (no
 * release known) the CRD default `<gv> <Kind> is deprecated`.
 */
export function deprecationOf(definition: ResourceDefinition, version: VersionDefinition): Deprecation | undefined {
  if (!isDeprecated(version)) return undefined;
  const deprecated = version.deprecated!;
  const removed = majorMinor(deprecated.removedRelease);
  const removedRelease = removed === undefined ? '' : `${removed[0]}.${removed[1]}`;
  if (deprecated.warning !== undefined) return { warning: deprecated.warning, removedRelease };
  const gvk = `${formatGroupVersion(definition.group, version.name)} ${definition.kind}`;
  const since = majorMinor(deprecated.deprecatedRelease);
  if (since === undefined) return { warning: `${gvk} is deprecated`, removedRelease };
  let warning = `${gvk} is deprecated in v${since[0]}.${since[1]}+`;
  if (removed !== undefined) warning += `, unavailable in v${removed[0]}.${removed[1]}+`;
  const replacement = deprecated.replacement;
  if (replacement !== undefined) warning += `; use ${formatGroupVersion(replacement.group, replacement.version)} ${replacement.kind}`;
  return { warning, removedRelease };
}
