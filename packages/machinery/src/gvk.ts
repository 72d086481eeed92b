/** Group/version helpers. `apiVersion` is `version` for the core group and `group/version` otherwise. */

export interface GroupVersion {
  group: string;
  version: string;
}

export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

/**
 * Splits an apiVersion as kube's ParseGroupVersion does: `""` → empty group and version,
 * `v1` → core group, `apps/v1` → group `apps`. Returns undefined for more than one `/`.
 */
export function parseApiVersion(apiVersion: string): GroupVersion | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** `v1` for the core group, `apps/v1` otherwise. */
export function formatApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}
