/**
 * The arithmetic of cel-go's cost estimates: saturating ranges of uint64-like numbers, with
 * cel-go's cost factors (common/cost.go).
 */

export const MAX_COST = 2 ** 64 - 1; // math.MaxUint64, as a double
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
export const LIST_CREATE_BASE_COST = 10;
export const MAP_CREATE_BASE_COST = 30;
export const SELECT_AND_IDENT_COST = 1;

export interface Range {
  readonly min: number;
  readonly max: number;
}

export const fixed = (n: number): Range => ({ min: n, max: n });
export const UNKNOWN_SIZE: Range = { min: 0, max: MAX_COST };
export const ZERO: Range = fixed(0);

const sat = (x: number): number => (x >= MAX_COST || !Number.isFinite(x) ? MAX_COST : x);
const mulSat = (x: number, y: number): number => (x === 0 || y === 0 ? 0 : sat(x * y));

export const add = (a: Range, b: Range): Range => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
export const multiply = (a: Range, b: Range): Range => ({ min: mulSat(a.min, b.min), max: mulSat(a.max, b.max) });
export const union = (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });

/** cel-go's MultiplyByCostFactor: the product rounded up. */
export function byFactor(a: Range, factor: number): Range {
  const f = (x: number): number => (x > 0 && factor > 0 && x > MAX_COST / factor ? MAX_COST : sat(Math.ceil(x * factor)));
  return { min: f(a.min), max: f(a.max) };
}

export const sumRanges = (rs: readonly Range[]): Range => rs.reduce(add, ZERO);
