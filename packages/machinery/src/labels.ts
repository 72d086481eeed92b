/**
 * Label selectors (apimachinery labels/selector.go): parsing the string form with kube's
 * grammar and error texts, building selectors from metav1.LabelSelector objects, and
 * matching. Selectors are immutable.
 */
import { badRequest } from './status.js';
import {
  newRequirement,
  requirementMatches,
  requirementString,
  RequirementError,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.js';
import { parseRequirements } from './label-selector-parser.js';

export type { LabelOperator, LabelRequirement } from './label-requirement.js';

export interface LabelSelector {
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The value the selector requires for `key` (`k=v`, `k==v` or `k in (v)`), if any. */
  exactMatch(key: string): string | undefined;
  /** kube's canonical form: requirements sorted by key, `k in (a,b)`, `!k`, ... */
  toString(): string;
}

class RequirementSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  constructor(requirements: LabelRequirement[]) {
    this.requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }
  exactMatch(key: string): string | undefined {
    const r = this.requirements.find((req) => req.key === key);
    if (r === undefined) return undefined;
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

const nothing: LabelSelector = Object.freeze({
  empty: false,
  requirements: [],
  matches: () => false,
  exactMatch: () => undefined,
  toString: () => '',
});

/** Matches every object. */
export const everythingLabels: LabelSelector = new RequirementSelector([]);
/** Matches no object (a nil metav1.LabelSelector). */
export const nothingLabels: LabelSelector = nothing;

/**
 * Parses a label selector string (`a=b,c in (d,e),!f,g>3`). The empty string selects
 * everything. Throws a 400 BadRequest StatusError carrying kube's parse error text.
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return new RequirementSelector(parseRequirements(text));
  } catch (err) {
    if (err instanceof RequirementError) throw badRequest(err.message);
    throw err;
  }
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[];
}

/** metav1.LabelSelector as it appears in objects (e.g. a Deployment's `spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

const expressionOperators: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a metav1.LabelSelector as kube's LabelSelectorAsSelector does: null/undefined
 * selects nothing, an empty selector selects everything. Throws a 400 BadRequest
 * StatusError for an invalid key, value or operator.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return nothing;
  const labels = Object.entries(sel.matchLabels ?? {});
  const expressions = sel.matchExpressions ?? [];
  if (labels.length + expressions.length === 0) return everythingLabels;
  try {
    const requirements: LabelRequirement[] = labels.map(([k, v]) => newRequirement(k, '=', [v]));
    for (const expr of expressions) {
      const op = expressionOperators[expr.operator];
      if (op === undefined) throw new RequirementError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      requirements.push(newRequirement(expr.key, op, [...(expr.values ?? [])]));
    }
    return new RequirementSelector(requirements);
  } catch (err) {
    if (err instanceof RequirementError) throw badRequest(err.message);
    throw err;
  }
}

/** A selector matching exactly the given labels (kube's SelectorFromSet). */
export function labelSelectorFromSet(set: Readonly<Record<string, string>>): LabelSelector {
  return new RequirementSelector(Object.entries(set).map(([key, value]) => ({ key, operator: '=', values: [value] })));
}
