/**
 * kube's toleration helpers (pkg/util/tolerations) as admission plugins use them on v1 JSON.
 */
type Json = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Equal as Go's semantic DeepEqual sees two tolerations (an absent field equals its zero value). */
function sameToleration(a: Json, b: Json): boolean {
  return str(a['key']) === str(b['key']) && str(a['operator']) === str(b['operator']) && str(a['value']) === str(b['value'])
    && str(a['effect']) === str(b['effect']) && (a['tolerationSeconds'] ?? null) === (b['tolerationSeconds'] ?? null);
}

/** Whether `ss` tolerates every taint `t` tolerates. */
function isSuperset(ss: Json, t: Json): boolean {
  if (sameToleration(t, ss)) return true;
  // An empty key with Exists matches every key.
  if (str(t['key']) !== str(ss['key']) && (str(ss['key']) !== '' || ss['operator'] !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (str(t['effect']) !== str(ss['effect']) && str(ss['effect']) !== '') return false;
  if (ss['effect'] === 'NoExecute' && typeof ss['tolerationSeconds'] === 'number') {
    if (typeof t['tolerationSeconds'] !== 'number' || t['tolerationSeconds'] > ss['tolerationSeconds']) return false;
  }
  switch (str(ss['operator'])) {
    case 'Equal':
    case '':
      return t['operator'] === 'Equal' && str(t['value']) === str(ss['value']);
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * Both lists as one, without the tolerations another one covers (of two equal ones, the
 * first is kept), in order.
 */
export function mergeTolerations(first: readonly Json[], second: readonly Json[]): Json[] {
  const all = [...first, ...second];
  const merged: Json[] = [];
  all.forEach((t, i) => {
    if (merged.some((kept) => isSuperset(kept, t))) return;
    if (all.slice(i + 1).some((later) => !sameToleration(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}
