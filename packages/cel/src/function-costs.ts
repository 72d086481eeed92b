/**
 * The cost of each function call, estimated (from sizes) and actual (from values): cel-go's
 * built-in estimates (checker/cost.go, interpreter/runtimecost.go) and kube's library
 * estimator (k8s.io/apiserver/pkg/cel/library/cost.go) as of kube 1.32. Anything not listed
 * costs 1.
 */
import type { Node } from './ast.js';
import {
  REGEX_STRING_LENGTH_COST_FACTOR as REGEX, STRING_TRAVERSAL_COST_FACTOR as STR, UNKNOWN_SIZE, add, byFactor, fixed,
  multiply, union, type Range,
} from './cost-model.js';

export interface ArgInfo {
  readonly node: Node;
  readonly typeName: string | undefined;
  readonly size: Range;
  /** The size of one element of a list value. */
  elementSize(): Range;
}

export interface CallEstimate {
  readonly cost: Range;
  readonly resultSize?: Range;
}

/** Size the format library's validate() assumes for a format's regex (cel.MaxNameFormatRegexSize). */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;
const AUTHZ_CHECK_COST = 350000;
const NOMINAL = new Set([
  'serviceAccount', 'path', 'group', 'resource', 'subresource', 'namespace', 'name', 'allowed', 'reason', 'error', 'errored',
  'masked', 'prefixLength', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast',
  'format.named', 'sign', 'asInteger', 'isInteger', 'asApproximateFloat', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub',
  'getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery',
]);

const isStringy = (t: string | undefined): boolean => t === 'string' || t === 'bytes';

export function estimateFunctionCost(name: string, target: ArgInfo | undefined, args: readonly ArgInfo[], _resultType: string | undefined): CallEstimate {
  if (name === 'check') return { cost: fixed(AUTHZ_CHECK_COST) };
  if (NOMINAL.has(name)) return { cost: fixed(1) };
  switch (name) {
    case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
      if (target) {
        if (target.typeName?.startsWith('list<') || target.typeName === 'list') {
          const elem = target.typeName.slice(5, -1);
          let elCost = fixed(1);
          if (isStringy(elem)) elCost = add(elCost, byFactor(target.elementSize(), STR));
          return { cost: multiply(target.size, elCost) };
        }
        return { cost: byFactor(target.size, STR) };
      }
      break;
    case 'url':
      if (args.length === 1) return { cost: byFactor(args[0]!.size, STR) };
      break;
    case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
      if (target) return { cost: byFactor(target.size, STR), resultSize: target.size };
      break;
    case 'replace':
      if (target && args.length >= 2) return { cost: byFactor(target.size, 2 * STR), resultSize: replaceSize(target.size, args[0]!.size, args[1]!.size) };
      break;
    case 'split':
      if (target) {
        let max = target.size.max;
        const limit = args[1]?.node;
        if (limit?.op === 'value' && typeof limit.args === 'bigint') max = Number(limit.args);
        return { cost: byFactor(target.size, 2 * STR), resultSize: { min: 0, max } };
      }
      break;
    case 'join':
      if (target) {
        let sz = multiply(target.size, target.elementSize());
        if (args.length > 0) {
          const seps = { min: Math.max(0, target.size.min - 1), max: Math.max(0, target.size.max - 1) };
          sz = add(sz, multiply(args[0]!.size, seps));
        }
        return { cost: byFactor(sz, STR), resultSize: sz };
      }
      break;
    case 'find': case 'findAll':
      if (target && args.length >= 1) {
        const strCost = byFactor(add(target.size, fixed(1)), STR);
        const regexCost = byFactor(args[0]!.size, REGEX);
        return { cost: multiply(strCost, regexCost), resultSize: { min: 0, max: target.size.max } };
      }
      break;
    case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity':
      if (args.length >= 1) return { cost: byFactor(args[0]!.size, STR) };
      break;
    case 'ip':
      if (target) return { cost: fixed(1) };
      if (args.length >= 1) return { cost: byFactor(args[0]!.size, STR) };
      break;
    case 'sets.contains': case 'sets.equivalent': case 'sets.intersects':
      if (args.length === 2) return { cost: add(multiply(args[0]!.size, args[1]!.size), fixed(1)) };
      break;
    case 'containsIP': case 'containsCIDR':
      if (target && args.length >= 1) {
        const sz = { min: 4, max: 16 };
        let c = byFactor(add(sz, sz), STR);
        if (name === 'containsCIDR') c = add(add(c, byFactor(sz, STR)), fixed(1));
        if (args[0]!.typeName === 'string') c = add(c, byFactor(args[0]!.size, STR));
        return { cost: c };
      }
      break;
    case 'validate':
      if (target) return { cost: byFactor(byFactor(args[0]!.size, STR), MAX_NAME_FORMAT_REGEX_SIZE * REGEX) };
      break;
    // cel-go built-ins
    case 'startsWith': case 'endsWith':
      if (target && args.length === 1) return { cost: byFactor(args[0]!.size, STR) };
      break;
    case 'contains':
      if (target && args.length === 1 && target.typeName === 'string') return { cost: multiply(byFactor(target.size, STR), byFactor(args[0]!.size, STR)) };
      break;
    case 'matches':
      if (target && args.length === 1) {
        const strCost = byFactor(add(target.size, fixed(1)), STR);
        return { cost: multiply(strCost, byFactor(args[0]!.size, REGEX)) };
      }
      if (!target && args.length === 2) {
        const strCost = byFactor(add(args[0]!.size, fixed(1)), STR);
        return { cost: multiply(strCost, byFactor(args[1]!.size, REGEX)) };
      }
      break;
    case 'string': case 'bytes':
      if (!target && args.length === 1 && isStringy(args[0]!.typeName)) {
        const sz = args[0]!.size;
        return { cost: byFactor(sz, STR), resultSize: name === 'bytes' ? { min: sz.min, max: sz.max * 4 } : { min: Math.floor(sz.min / 4), max: sz.max } };
      }
      break;
  }
  return { cost: fixed(1) };
}

function replaceSize(sz: Range, toReplace: Range, replaceWith: Range): Range {
  let countMax: number;
  let retainedMax = 0;
  if (toReplace.min === 0) { countMax = sz.max + 1; retainedMax = sz.max; }
  else if (replaceWith.max <= toReplace.min) { countMax = 0; retainedMax = sz.max; }
  else countMax = Math.ceil(sz.max / toReplace.min);
  let countMin: number;
  let retainedMin = 0;
  if (toReplace.max === 0) { countMin = sz.min + 1; retainedMin = sz.min; }
  else if (toReplace.max <= replaceWith.min) { countMin = 0; retainedMin = sz.min; }
  else countMin = Math.ceil(sz.min / toReplace.max);
  return add(multiply({ min: countMin, max: countMax }, replaceWith), { min: retainedMin, max: retainedMax });
}

const SURROGATES = /[\uD800-\uDFFF]/;

/** The size cel-go gives a runtime value: string length in code points, bytes, list items, map entries; else 1. */
export function actualSize(v: unknown): number {
  if (typeof v === 'string') {
    if (!SURROGATES.test(v)) return v.length;
    let n = 0;
    for (let i = 0; i < v.length; i++) { const c = v.charCodeAt(i); if (c < 0xdc00 || c > 0xdfff) n++; }
    return n;
  }
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return 1;
}

/** Computes one call's actual cost from its operands (receiver first) and result. */
export type ActualCost = (a0: unknown, a1: unknown, result: unknown) => number;

const ceil = Math.ceil;
const one: ActualCost = () => 1;

/** The actual-cost function for calls of `name` (kube's CallCost, cel-go's runtime costs); 1 when not listed. */
export function actualCostOf(name: string, member: boolean): ActualCost {
  if (name === 'check') return () => AUTHZ_CHECK_COST;
  if (NOMINAL.has(name)) return one;
  switch (name) {
    case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
      return (a0) => traversalCost(a0);
    case 'url': case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
    case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity':
      return (a0) => ceil(actualSize(a0) * STR);
    case 'ip':
      return member ? one : (a0) => ceil(actualSize(a0) * STR);
    case 'ip.isCanonical': case 'replace': case 'split':
      return (a0) => ceil(actualSize(a0) * 2 * STR);
    case 'join': return (_a0, _a1, result) => ceil(actualSize(result) * 2 * STR);
    case 'find': case 'findAll':
      return (a0, a1) => ceil((1 + actualSize(a0)) * STR) * ceil(actualSize(a1) * REGEX);
    case 'validate':
      return (_a0, a1) => ceil((1 + actualSize(a1)) * STR) * ceil(MAX_NAME_FORMAT_REGEX_SIZE * REGEX);
    case 'sets.contains': case 'sets.equivalent': case 'sets.intersects':
      return (a0, a1) => actualSize(a0) * actualSize(a1) + 1;
    case 'startsWith': case 'endsWith': return (_a0, a1) => ceil(actualSize(a1) * STR);
    case 'contains':
      return (a0, a1) => (typeof a0 === 'string' ? ceil(actualSize(a0) * STR) * ceil(actualSize(a1) * STR) : 1);
    case 'matches':
      return (a0, a1) => ceil((1 + actualSize(a0)) * STR) * ceil(actualSize(a1) * REGEX);
    case 'string': case 'bytes':
      return (a0) => (typeof a0 === 'string' || a0 instanceof Uint8Array ? ceil(actualSize(a0) * STR) : 1);
  }
  return one;
}

/** kube's traversalCost: the cost of walking a value as a tree. */
export function traversalCost(v: unknown): number {
  if (typeof v === 'string') return Math.floor(v.length * STR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STR);
  if (Array.isArray(v)) { let c = 0; for (const x of v) c += traversalCost(x); return c; }
  if (v instanceof Map) { let c = 0; for (const [k, x] of v) c += traversalCost(k) + traversalCost(x); return c; }
  return 1;
}

export { UNKNOWN_SIZE, union };
