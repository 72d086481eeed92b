/**
 * --feature-gates as kube-apiserver 1.32 reads it, checked against kube's gate table
 * (@kapi/catalog featureGateTable, generated), then against what kapi implements.
 *
 * kube's rules, with its error texts: the flag is a list of `[component:]Gate=bool` pairs (the
 * component is `kube` or empty); a malformed pair, an unknown gate, a gate set against its lock
 * is an error. kapi's rule on top: a gate kapi implements is honoured; any other known gate may
 * only be set to its kube default (which changes nothing); anything else is a startup error, so
 * a cluster never silently runs without a feature it asked for.
 */
import { featureGateTable, type FeatureGateSpec } from '@kapi/catalog';

/** The gates kapi acts on (main.ts/bin.ts, flags.ts); any value is honoured. */
export const IMPLEMENTED_FEATURE_GATES: ReadonlySet<string> = new Set(['ConsistentListFromCache', 'AllowUnsafeMalformedObjectDeletion', 'RemoteRequestHeaderUID']);

const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

/** kube's aggregate of several errors: the message alone, or `[a, b]`. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

/** Go's strconv.ParseBool. */
function parseBool(raw: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  return undefined;
}

/** The featuregate's Set: `Gate=bool` pairs, later ones win. */
function parsePairs(value: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const s of value.split(',')) {
    if (s.length === 0) continue;
    const eq = s.indexOf('=');
    const key = (eq < 0 ? s : s.slice(0, eq)).trim();
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${key}`);
    const raw = s.slice(eq + 1).trim();
    const parsed = parseBool(raw);
    if (parsed === undefined) throw new FeatureGateError(`invalid value of ${key}=${raw}, err: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    out.delete(key);
    out.set(key, parsed);
  }
  return out;
}

/**
 * Resolves the --feature-gates occurrences (each raw value, in order) into the gates that differ
 * from nothing: every gate set explicitly, plus those AllAlpha/AllBeta set. Throws
 * FeatureGateError with kube's text, or kapi's when a gate it does not implement would change.
 */
export function resolveFeatureGates(occurrences: readonly string[]): Record<string, boolean> {
  return resolveFeatureGatesWithWarnings(occurrences).gates;
}

/**
 * resolveFeatureGates, plus the warnings kube-apiserver logs while setting them: one per gate set
 * explicitly (not through AllAlpha/AllBeta) whose stage is DEPRECATED or GA, in the order given.
 */
export function resolveFeatureGatesWithWarnings(occurrences: readonly string[]): { gates: Record<string, boolean>; warnings: string[] } {
  // The colon-separated multimap: `component:pairs`, no colon meaning the default component.
  const byComponent = new Map<string, string[]>();
  for (const occurrence of occurrences) {
    for (const pair of occurrence.split(',')) {
      if (pair.length === 0) continue;
      const colon = pair.indexOf(':');
      const component = colon < 0 ? '' : pair.slice(0, colon).trim();
      const value = (colon < 0 ? pair : pair.slice(colon + 1)).trim();
      byComponent.set(component, [...(byComponent.get(component) ?? []), value]);
    }
  }
  let kube: string[] = [];
  for (const [component, values] of byComponent) {
    if (component === '' && byComponent.has('kube')) throw new FeatureGateError('set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use');
    if (component !== '' && component !== 'kube') throw new FeatureGateError(`component not registered: ${component}`);
    kube = values;
  }
  const requested = parsePairs(kube.join(','));

  const known = new Map<string, FeatureGateSpec>(featureGateTable().gates.map((g) => [g.name, g]));
  const errors: string[] = [];
  const enabled: Record<string, boolean> = {};
  const warnings: string[] = [];
  for (const [name, value] of requested) {
    const spec = known.get(name);
    if (spec === undefined) {
      // kube stops at the first unknown gate.
      errors.push(`unrecognized feature gate: ${name}`);
      break;
    }
    if (spec.lockToDefault && spec.default !== value) errors.push(`cannot set feature gate ${name} to ${String(value)}, feature is locked to ${String(spec.default)}`);
    else if (spec.stage === 'PRE-ALPHA') errors.push(`cannot set feature gate ${name} to ${String(value)}, feature is PreAlpha at emulated version 1.32`);
    else {
      enabled[name] = value;
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${String(value)}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${String(value)}. It will be removed in a future release.`);
    }
  }
  if (errors.length > 0) throw new FeatureGateError(aggregate(errors));

  // AllAlpha/AllBeta set every gate of that stage not set explicitly.
  const bulk: Record<string, string> = {};
  for (const [special, stage] of [[ALL_ALPHA, 'ALPHA'], [ALL_BETA, 'BETA']] as const) {
    const value = enabled[special];
    if (value === undefined) continue;
    for (const spec of known.values()) {
      if (spec.stage !== stage || spec.name === ALL_ALPHA || spec.name === ALL_BETA || spec.name in enabled) continue;
      enabled[spec.name] = value;
      bulk[spec.name] = `${special}=${String(value)}`;
    }
  }

  // kapi's rule: a gate kapi does not implement may only keep its default.
  const explicit: string[] = [];
  const bulkBySpecial = new Map<string, string[]>();
  for (const [name, value] of Object.entries(enabled)) {
    const spec = known.get(name)!;
    if (name === ALL_ALPHA || name === ALL_BETA || IMPLEMENTED_FEATURE_GATES.has(name) || value === spec.default) continue;
    const via = bulk[name];
    if (via === undefined) explicit.push(`${name}=${String(value)} (kube-apiserver 1.32's default is ${String(spec.default)})`);
    else bulkBySpecial.set(via, [...(bulkBySpecial.get(via) ?? []), name]);
  }
  const kapiErrors: string[] = [];
  if (explicit.length > 0) kapiErrors.push(`--feature-gates: kapi does not implement ${explicit.length === 1 ? 'feature gate' : 'feature gates'} ${explicit.join(', ')}; only the default value is accepted`);
  for (const [via, names] of bulkBySpecial) {
    kapiErrors.push(`--feature-gates: ${via} changes feature gates kapi does not implement (${names.sort().join(', ')}); set each to its default explicitly or drop ${via.split('=')[0]!}`);
  }
  if (kapiErrors.length > 0) throw new FeatureGateError(kapiErrors.join('; '));
  return { gates: enabled, warnings };
}
