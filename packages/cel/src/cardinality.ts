/**
 * How many times a rule may run for one object (kube's MaxCardinality in apiextensions
 * validation): the product of maxItems/maxProperties of the lists and maps above the rule's
 * schema node, or, when any of them is unbounded, as many values of the node's smallest
 * serialized size as fit in a request. A CRD rule's cost counts against the limits multiplied
 * by this.
 */
import type { DeclType } from './decl-type.js';
import { MAX_REQUEST_SIZE_BYTES } from './limits.js';

/**
 * `bounds`: maxItems/maxProperties of each list or map schema on the path from the root to the
 * rule's node, outermost first (undefined where unset). `self`: the node's declared type.
 */
export function maxCardinality(bounds: readonly (number | undefined)[], self: DeclType | undefined): number {
  let product = 1;
  for (const b of bounds) {
    if (b === undefined) return Math.floor(MAX_REQUEST_SIZE_BYTES / ((self?.minSerializedSize ?? 0) + 1));
    product *= Math.max(0, b);
  }
  return product;
}

/** kube's getExpressionCost: a rule's estimated cost times its cardinality, saturating. */
export function expressionCost(maxCost: number, cardinality: number): number {
  if (maxCost === 0) return 0;
  const c = maxCost * cardinality;
  return c >= 2 ** 64 - 1 ? 2 ** 64 - 1 : c;
}
