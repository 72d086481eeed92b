/**
 * Compilation of the `x-kubernetes-validations` of one schema node (kube's cel.Compile): each
 * rule with `self` typed by the node and `oldSelf` declared (as an optional with
 * `optionalOldSelf`), its messageExpression likewise, its fieldPath normalized against the
 * node. The results keep kube's detail texts (`compilation failed: ...`, `cel expression must
 * evaluate to a bool`); the CRD check (crd-rules.ts) and the custom-resource validator
 * (rule-validator.ts) both read them. Pure.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { compileExpression, minSerializedSize, type DeclType, type RuleProgram } from './rule-engine.js';
import { parseRuleFieldPath } from './rule-field-path.js';

/** One entry of `x-kubernetes-validations` as written. */
export interface ValidationRule {
  readonly rule?: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/** A compilation problem: kube's apiservercel.Error (`Invalid` unless said otherwise). */
export interface RuleProblem {
  readonly type: 'Invalid' | 'Internal';
  readonly detail: string;
}

export interface CompiledRule {
  readonly source: ValidationRule;
  /** Undefined for an empty rule (nothing to run) or one that did not compile (`error`). */
  readonly program?: RuleProgram;
  readonly error?: RuleProblem;
  /** The rule refers to `oldSelf`: it runs only when there is an old value (or with optionalOldSelf). */
  readonly usesOldSelf: boolean;
  /** The estimated worst-case cost of one evaluation of the rule. */
  readonly maxCost: number;
  /** The most times the rule could run in one object of the largest request (kube's MaxCardinality). */
  readonly maxCardinality: number;
  readonly messageProgram?: RuleProgram;
  readonly messageError?: RuleProblem;
  readonly messageMaxCost: number;
  /** The fieldPath normalized (`kv.a`, `[key]`), '' when none or invalid. */
  readonly fieldPath: string;
}

/** kube's celconfig.MaxRequestSizeBytes: the request size that bounds how often a rule can run. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** How many values of the given smallest JSON size fit in the largest request (one comma apart). */
export function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}

/** The rules of `schema`, as written (entries that are not objects are skipped, as decoding drops them). */
export function rulesOf(schema: JSONSchemaProps): readonly ValidationRule[] {
  const rules = (schema as { 'x-kubernetes-validations'?: unknown })['x-kubernetes-validations'];
  return Array.isArray(rules) ? (rules as ValidationRule[]) : [];
}

function compileOne(schema: JSONSchemaProps, rule: ValidationRule, type: DeclType, cardinality: number): CompiledRule {
  const empty: CompiledRule = { source: rule, usesOldSelf: false, maxCost: 0, maxCardinality: 0, messageMaxCost: 0, fieldPath: '' };
  const text = rule.rule ?? '';
  if (text.trim() === '') return empty;
  const oldSelf = rule.optionalOldSelf === true ? 'optional' : 'plain';
  const compiled = compileExpression(text, type, oldSelf);
  if (!compiled.ok) return { ...empty, error: { type: 'Invalid', detail: `compilation failed: ${compiled.error}` } };
  if (compiled.program.outputType !== 'bool') return { ...empty, error: { type: 'Invalid', detail: 'cel expression must evaluate to a bool' } };
  if (compiled.program.instantiationError !== undefined) return { ...empty, error: { type: 'Invalid', detail: `program instantiation failed: ${compiled.program.instantiationError}` } };
  const program = compiled.program;
  let result: CompiledRule = { ...empty, program, usesOldSelf: program.usesOldSelf, maxCost: program.maxCost, maxCardinality: cardinality };
  const messageExpression = rule.messageExpression ?? '';
  if (messageExpression !== '') {
    const message = compileExpression(messageExpression, type, oldSelf);
    // kube stops here without normalizing the fieldPath.
    if (!message.ok) return { ...result, messageError: { type: 'Invalid', detail: `messageExpression compilation failed: ${message.error}` } };
    if (message.program.outputType !== 'string') return { ...result, messageError: { type: 'Invalid', detail: 'messageExpression must evaluate to a string' } };
    result = { ...result, messageProgram: message.program, messageMaxCost: message.program.maxCost };
  }
  return withFieldPath(result, schema);
}

function withFieldPath(result: CompiledRule, schema: JSONSchemaProps): CompiledRule {
  const fieldPath = result.source.fieldPath ?? '';
  if (fieldPath === '') return result;
  const parsed = parseRuleFieldPath(fieldPath, schema);
  return 'path' in parsed ? { ...result, fieldPath: parsed.path } : result;
}

/**
 * Compiles the rules of `schema` (the node) for `self` of `type` (its declared type; for a
 * resource root, with apiVersion, kind and metadata). One result per rule, in order.
 */
export function compileRules(schema: JSONSchemaProps, rules: readonly ValidationRule[], type: DeclType): CompiledRule[] {
  const cardinality = maxCardinality(minSerializedSize(type));
  return rules.map((rule) => compileOne(schema, rule, type, cardinality));
}
