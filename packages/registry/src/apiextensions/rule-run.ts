/**
 * One schema node's rules run on one value (kube's validateExpressions): which rules run
 * (transition rules only with an old value, unless optionalOldSelf), the cost budget they
 * share, and kube's field errors for each outcome — a failed rule names the node's type
 * (`spec: Invalid value: "object": min must be <= max`, or `failed rule: <rule>` without a
 * message), its reason picks the error type, its fieldPath the field; a messageExpression
 * that fails or yields nothing usable falls back to the message. On update a failure of a
 * non-transition rule on an unchanged value is ratcheted: a warning instead of an error.
 */
import type { FieldError } from '@kapi/machinery';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldRequired } from '@kapi/machinery';
import type { JSONSchemaProps } from '@kapi/machinery';
import type { CompiledRule, ValidationRule } from './rule-compile.js';
import type { RuleVariables } from './rule-engine.js';
import { joinFieldPath } from './rule-field-path.js';

/** kube's celconfig.RuntimeCELCostBudget: what all rules together may spend on one object. */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** kube's celconfig.PerCallLimit: what one evaluation may spend. */
export const PER_CALL_COST_LIMIT = 1_000_000;

export interface RuleNode {
  /** The node's schema (its `type` names values in errors; list/map types guide correlation). */
  readonly schema: JSONSchemaProps;
  readonly rules: readonly CompiledRule[];
  /** Why the node's rules could not be compiled at all (kube: `rule compiler initialization error`). */
  readonly initError?: string;
  /** The node is a resource root (apiVersion, kind, metadata are declared for `self`). */
  readonly isResourceRoot: boolean;
  readonly properties?: ReadonlyMap<string, RuleNode>;
  readonly items?: RuleNode;
  readonly additionalProperties?: RuleNode;
  readonly allOf?: readonly RuleNode[];
}

export interface RuleValidationResult {
  readonly errors: FieldError[];
  /** Ratcheted failures, as `<field>: <message>`. */
  readonly warnings: string[];
}

/** The state of one object's validation: what is left of the cost budget (negative: stop), what was found. */
export interface RuleRun {
  budget: number;
  readonly result: RuleValidationResult;
}

/** kube's celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
const COST_LIMIT_ERROR = 'operation cancelled: actual cost limit exceeded';
const ROOT = '<nil>';

/** The rule as errors quote it: its message if it has one, else the rule (both trimmed). */
function ruleText(rule: ValidationRule): string {
  return (rule.message ?? '') !== '' ? rule.message!.trim() : (rule.rule ?? '').trim();
}

function messageOrDefault(rule: ValidationRule): string {
  return (rule.message ?? '') === '' ? `failed rule: ${ruleText(rule)}` : rule.message!.trim();
}

/** The error of a failed rule by its `reason` (FieldValueInvalid when none or unknown). */
function errorForReason(path: string, typeName: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldForbidden(path, detail);
    case 'FieldValueRequired':
      return fieldRequired(path, detail);
    case 'FieldValueDuplicate':
      return fieldDuplicate(path, typeName);
    default:
      return fieldInvalid(path, typeName, detail);
  }
}

/** How the node's type names every value in its errors (`"object"`, `"string"`; "" for int-or-string). */
function typeNameOf(node: RuleNode): string {
  return node.schema.type ?? '';
}

type MessageOutcome = { readonly message: string } | { readonly fallback: true } | { readonly stop: FieldError };

/** kube's evalMessageExpression: the trimmed message, a fallback to the rule's message, or an error that stops validation. */
function evaluateMessage(compiled: CompiledRule, variables: RuleVariables, path: string, typeName: string, run: RuleRun): MessageOutcome {
  const source = compiled.source.messageExpression ?? '';
  const outcome = compiled.messageProgram!.evaluate(variables, PER_CALL_COST_LIMIT);
  if (outcome.cost > run.budget) {
    run.budget = -1;
    return { stop: fieldInvalid(path, typeName, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run') };
  }
  if (!outcome.ok && outcome.costExceeded) {
    run.budget = -1;
    return { stop: fieldInvalid(path, typeName, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(source)}`) };
  }
  run.budget -= outcome.cost;
  if (!outcome.ok || typeof outcome.value !== 'string') return { fallback: true };
  const message = outcome.value.trim();
  if (Buffer.byteLength(message) > MAX_MESSAGE_EXPRESSION_BYTES || message.includes('\n') || message === '') return { fallback: true };
  return { message };
}

/**
 * Runs `node`'s rules on `value` (at field path `path`; `old` is the correlated old value,
 * undefined on create or when none correlates). Appends to `run.result`; sets `run.budget`
 * negative when validation must stop.
 */
export function runNodeRules(node: RuleNode, fieldPath: string, value: unknown, old: unknown, ratchet: () => boolean, run: RuleRun): void {
  const { errors, warnings } = run.result;
  // kube's root path is nil, printed `<nil>` (a rule's fieldPath below it prints alone).
  const path = fieldPath === '' ? ROOT : fieldPath;
  const typeName = typeNameOf(node);
  if (node.initError !== undefined) {
    errors.push(fieldInvalid(path, typeName, `rule compiler initialization error: ${node.initError}`));
    return;
  }
  if (node.rules.length === 0) return;
  if (run.budget <= 0) {
    errors.push(fieldInvalid(path, typeName, OUT_OF_BUDGET));
    run.budget = -1;
    return;
  }
  // kube declares oldSelf for the node's rules only when one of them is a transition rule.
  const anyTransition = node.rules.some((r) => r.usesOldSelf);
  const plain: RuleVariables = anyTransition && old !== undefined ? { self: value, oldSelf: old } : { self: value };
  const optional: RuleVariables = old !== undefined ? { self: value, oldSelf: old } : { self: value };
  for (const compiled of node.rules) {
    const rule = compiled.source;
    if (compiled.error !== undefined) {
      errors.push(fieldInvalid(path, typeName, `rule compile error: ${compiled.error.detail}`));
      continue;
    }
    if (compiled.program === undefined) continue;
    const optionalOldSelf = rule.optionalOldSelf === true;
    if (compiled.usesOldSelf && old === undefined && !optionalOldSelf) continue;
    const outcome = compiled.program.evaluate(optionalOldSelf ? optional : plain, PER_CALL_COST_LIMIT);
    if (outcome.cost > run.budget) {
      errors.push(fieldInvalid(path, typeName, OUT_OF_BUDGET));
      run.budget = -1;
      return;
    }
    run.budget -= outcome.cost;
    if (!outcome.ok) {
      if (outcome.costExceeded) {
        errors.push(fieldInvalid(path, typeName, `'${COST_LIMIT_ERROR}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`));
        run.budget = -1;
        return;
      }
      if (outcome.error.startsWith('no such overload')) {
        errors.push(fieldInvalid(path, typeName, `'${outcome.error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`));
      } else {
        errors.push(fieldInvalid(path, typeName, `${outcome.error} evaluating rule: ${ruleText(rule)}`));
      }
      continue;
    }
    if (outcome.value === true) continue;
    const errorPath = compiled.fieldPath === '' ? path : joinFieldPath(fieldPath, compiled.fieldPath);
    const report = (err: FieldError) => {
      if (!compiled.usesOldSelf && ratchet()) warnings.push(`${err.field}: ${err.message}`);
      else errors.push(err);
    };
    if (compiled.messageProgram === undefined) {
      report(errorForReason(errorPath, typeName, messageOrDefault(rule), rule.reason));
      continue;
    }
    // kube evaluates the messageExpression with the plain variables, also for optionalOldSelf rules.
    const message = evaluateMessage(compiled, plain, errorPath, typeName, run);
    if ('stop' in message) {
      report(message.stop);
      return;
    }
    report(errorForReason(errorPath, typeName, 'message' in message ? message.message : messageOrDefault(rule), rule.reason));
  }
}
