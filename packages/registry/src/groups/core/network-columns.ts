/**
 * Cell formats kubectl users know from kube's printers for the networking kinds: label
 * selectors, load-balancer ingress lists and the "a,b,c + N more..." lists.
 */
import { recordAt } from '../../builtin/builtin-strategy.js';

export const NONE = '<none>';

/** A map selector as `k=v,k2=v2` (keys sorted), `<none>` when empty. */
export function formatLabels(selector: unknown): string {
  if (typeof selector !== 'object' || selector === null || Array.isArray(selector)) return NONE;
  const entries = Object.entries(selector as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? NONE : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

/** A metav1.LabelSelector as kube prints it (requirements sorted by key), `<none>` when it selects everything. */
export function formatLabelSelector(selector: unknown): string {
  if (typeof selector !== 'object' || selector === null || Array.isArray(selector)) return NONE;
  const sel = selector as Record<string, unknown>;
  const parts: [string, string][] = [];
  for (const [k, v] of Object.entries(recordAt(sel, 'matchLabels') ?? {})) parts.push([k, `${k}=${String(v)}`]);
  for (const expr of Array.isArray(sel['matchExpressions']) ? (sel['matchExpressions'] as Record<string, unknown>[]) : []) {
    const key = String(expr['key'] ?? '');
    const values = (Array.isArray(expr['values']) ? (expr['values'] as unknown[]).map(String) : []).sort();
    switch (expr['operator']) {
      case 'In': parts.push([key, `${key} in (${values.join(',')})`]); break;
      case 'NotIn': parts.push([key, `${key} notin (${values.join(',')})`]); break;
      case 'Exists': parts.push([key, key]); break;
      case 'DoesNotExist': parts.push([key, `!${key}`]); break;
    }
  }
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return parts.length === 0 ? NONE : parts.map(([, text]) => text).join(',');
}

/**
 * The load balancer's ingress points (IP, else hostname), sorted without repeats and joined.
 * kube's printer cuts them past 16 characters only when not wide, and the server always
 * prints wide, so server-side Tables carry them whole.
 */
export function loadBalancerIngress(status: unknown): string {
  const ingress = typeof status === 'object' && status !== null ? (status as Record<string, unknown>)['ingress'] : undefined;
  const out = new Set<string>();
  for (const entry of Array.isArray(ingress) ? (ingress as Record<string, unknown>[]) : []) {
    if (typeof entry['ip'] === 'string' && entry['ip'] !== '') out.add(entry['ip']);
    else if (typeof entry['hostname'] === 'string' && entry['hostname'] !== '') out.add(entry['hostname']);
  }
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
}

/** At most `max` items, then ` + N more...`; `empty` when there are none. */
export function listWithMore(items: readonly string[], max: number, empty: string): string {
  if (items.length === 0) return empty;
  const shown = items.slice(0, max).join(',');
  return items.length > max ? `${shown} + ${items.length - max} more...` : shown;
}
