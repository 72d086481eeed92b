/**
 * kube's CEL limits (k8s.io/apiserver/pkg/apis/cel/config.go and
 * k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go), kube 1.32.
 */

/** The most cost one evaluation of one expression may spend at runtime. */
export const PER_CALL_LIMIT = 1_000_000;
/** The runtime cost all CRD validation rules of one object may spend together. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** How often (in cost units) cel-go checks for cancellation; kept for parity. */
export const CHECK_FREQUENCY = 100;
/** The largest request body the apiserver accepts; bounds unbounded lists, maps and strings. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
/** The longest string a messageExpression may produce (kube: 5 KiB). */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;
/** The most estimated cost one CRD validation rule may have. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The most estimated cost all rules of one CRD version may have together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/**
 * kube's wording when an estimated cost is over its limit (apiextensions validation's
 * getCostErrorMessage): costName is e.g. "estimated rule cost" or "estimated messageExpression cost".
 */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
