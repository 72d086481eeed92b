/**
 * Query parameters: kube's parameter names with valid and garbage values (and a few unknown
 * names), encoded by hand so odd bytes and repeated names reach the server as generated.
 */
import fc from 'fast-check';
import { text } from './values.js';

const garbage = fc.oneof(
  fc.constantFrom('', 'abc', '-1', '0', '1', 'true', 'false', 'TRUE', 'yes', '1e3', '0x10', '99999999999999999999', '-99999999999999999999', ' 1', '1 ', 'null', '[]', '%', '%zz', '%00', '\u00e9', 'a'.repeat(5000)),
  text,
);

/** A continue token: kube's base64 JSON with valid, stale, absurd or malformed parts, or junk. */
const continueToken = fc.oneof(
  fc.record({ v: fc.constantFrom('meta.k8s.io/v1', 'v2', ''), rv: fc.oneof(fc.nat(200), fc.constantFrom(-1, 0, 2 ** 53, 1e29, 2 ** 63)), start: fc.constantFrom('t1', '', '../x', 'fuzz-a/t1\u0000') }).map((t) => Buffer.from(JSON.stringify(t)).toString('base64')),
  fc.constantFrom('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0', 'eyJ', '!!!', 'bnVsbA==', 'W10='),
  garbage,
);

const valid: Record<string, fc.Arbitrary<string>> = {
  watch: fc.constantFrom('false', '0', 'true', '1'),
  allowWatchBookmarks: fc.constantFrom('true', 'false'),
  sendInitialEvents: fc.constantFrom('true', 'false'),
  resourceVersion: fc.oneof({ arbitrary: fc.constantFrom('', '0', '1'), weight: 3 }, { arbitrary: fc.nat(50).map(String), weight: 3 }, { arbitrary: fc.constantFrom('99999999999', '18446744073709551616'), weight: 1 }),
  resourceVersionMatch: fc.constantFrom('NotOlderThan', 'Exact', ''),
  limit: fc.constantFrom('1', '2', '500', '0'),
  continue: continueToken,
  labelSelector: fc.constantFrom('a=b', 'a in (x,y)', '!a', 'a,b!=c', 'example.com/x=y', 'a notin ()', '=', 'a==b=c', '!!a', 'a in (', `a in (${'x,'.repeat(500)}y)`),
  fieldSelector: fc.constantFrom('metadata.name=t1', 'metadata.namespace!=x', 'type=Warning', 'involvedObject.kind=Pod', 'spec.color=red', 'status.phase=Active', 'x=y', 'metadata.name==', 'metadata.name'),
  timeoutSeconds: fc.constantFrom('1', '0', '2'),
  dryRun: fc.constantFrom('All', 'all', 'None', ''),
  fieldManager: fc.constantFrom('fuzzer', 'kubectl', '', 'x'.repeat(200), 'a\u0000b', 'é'),
  fieldValidation: fc.constantFrom('Strict', 'Warn', 'Ignore', 'strict', 'Bogus'),
  force: fc.constantFrom('true', 'false'),
  pretty: fc.constantFrom('true', 'false', '1'),
  propagationPolicy: fc.constantFrom('Foreground', 'Background', 'Orphan', 'Bogus'),
  gracePeriodSeconds: fc.constantFrom('0', '30', '-1', '1'),
  orphanDependents: fc.constantFrom('true', 'false'),
  timeout: fc.constantFrom('1s', '1ns', '10m', 'x', '-1s'),
  includeUninitialized: fc.constant('true'),
  export: fc.constant('true'),
  exact: fc.constant('true'),
  fuzzUnknown: fc.constant('1'),
};

const names = Object.keys(valid);

/** One parameter: a known name with a valid or garbage value (resourceVersion only valid-looking numbers often). */
const param = fc.constantFrom(...names).chain((name) => fc.tuple(fc.constant(name), fc.oneof({ arbitrary: valid[name]!, weight: 3 }, { arbitrary: garbage, weight: 1 })));

export const queryParams = fc.array(param, { maxLength: 4 });

/** Percent-encodes a value the way a careless client might: mostly proper, sometimes raw. */
export function encodeQuery(params: readonly (readonly [string, string])[], raw: boolean): string {
  if (params.length === 0) return '';
  const enc = (s: string) => (raw ? s.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)).replace(/#/g, '%23') : encodeURIComponent(s));
  return `?${params.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`;
}

/** True when the request asks for a watch (`watch` present with a value kube treats as true, or a /watch/ path). */
export function asksForWatch(path: string): boolean {
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  if (/^\/apis?\/([^/]+\/)?[^/]+\/watch\//.test(path) || /^\/apis\/[^/]+\/[^/]+\/watch\//.test(path)) return true;
  for (const part of query.split('&')) {
    const [k, v = ''] = part.split('=');
    if (k === 'watch') return !['false', '0', 'f'].includes(decodeSafe(v).toLowerCase());
  }
  return false;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The value of query parameter `name` (first occurrence), decoded. */
export function queryValue(path: string, name: string): string | undefined {
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    if (decodeSafe(k) === name) return decodeSafe(eq < 0 ? '' : part.slice(eq + 1));
  }
  return undefined;
}
