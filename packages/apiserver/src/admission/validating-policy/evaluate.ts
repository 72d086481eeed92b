/**
 * One evaluation of a compiled policy for one binding and one param (kube's
 * validator.Validate): matchConditions first (a false one skips the policy, an error follows
 * failurePolicy), then every validation with its message, then the audit annotations.
 * Variables are evaluated lazily, at most once per activation, when an expression reads
 * them. Decisions carry kube's messages; the dispatcher turns them into denials, warnings
 * and audit annotations by the binding's validationActions.
 */
import { RUNTIME_CEL_COST_BUDGET, PER_CALL_LIMIT } from '@kapi/cel';
import type { CompiledExpression, CompiledPolicy } from './compile.js';

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: 'admit' | 'deny' | 'error';
  readonly message: string;
  /** A StatusReason; "" when not a deny by a validation. */
  readonly reason: string;
  /** How long the validation's expression took (0 for a decision no expression made). */
  readonly elapsedSeconds: number;
}

export type AuditAnnotationResult =
  | { readonly key: string; readonly action: 'publish'; readonly value: string }
  | { readonly key: string; readonly action: 'exclude' }
  | { readonly key: string; readonly action: 'error'; readonly error: string };

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

/** The values an expression sees (JSON; null where kube's are null). */
export interface PolicyInput {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly params: unknown;
  readonly namespaceObject: unknown;
  /** The `authorizer` value (checks as the requesting user). */
  readonly authorizer?: unknown;
  /** The `authorizer.requestResource` value: a resource check of the request's own resource. */
  readonly requestResource?: unknown;
}

/** kube's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** A failure that ends an evaluation pass (kube's ForInput error). */
class PassError extends Error {}

/** One activation: the inputs plus the lazily evaluated `variables`; tracks the cost spent. */
class Activation {
  readonly values: Record<string, unknown>;
  private variableCost = 0;

  constructor(policy: CompiledPolicy, input: PolicyInput) {
    const variables: Record<string, unknown> = {};
    const { requestResource, ...values } = input;
    this.values = { ...values, variables };
    if (!policy.hasParams) delete this.values.params;
    if (input.authorizer === undefined) delete this.values.authorizer;
    if (requestResource !== undefined) this.values['authorizer.requestResource'] = requestResource;
    for (const variable of policy.variables) {
      let done: { value: unknown } | { error: string } | undefined;
      Object.defineProperty(variables, variable.name, {
        enumerable: true,
        get: () => {
          done ??= this.evaluateVariable(variable);
          if ('error' in done) throw new Error(done.error);
          return done.value;
        },
      });
    }
  }

  private evaluateVariable(variable: CompiledExpression & { readonly name: string }): { value: unknown } | { error: string } {
    if (variable.program === undefined) return { error: `composited variable "${variable.name}" fails to compile: ${variable.error ?? ''}` };
    const out = variable.program.evaluate(this.values, { costLimit: PER_CALL_LIMIT });
    this.variableCost += out.cost;
    if (!out.ok) return { error: `composited variable "${variable.name}" fails to evaluate: ${out.error}` };
    return { value: out.value };
  }

  /**
   * Evaluates `compiled` within `budget`: the value, or the error kube reports for it.
   * Throws PassError when the budget is spent.
   */
  evaluate(compiled: CompiledExpression, budget: { remaining: number }): { value: unknown } | { error: string } {
    if (compiled.program === undefined) return { error: `compilation error: ${compiled.error ?? ''}` };
    const out = compiled.program.evaluate(this.values, { costLimit: PER_CALL_LIMIT });
    const cost = out.cost + this.variableCost;
    this.variableCost = 0;
    if (cost > budget.remaining) throw new PassError(OUT_OF_BUDGET);
    budget.remaining -= cost;
    if (!out.ok) return { error: `expression '${compiled.expression}' resulted in error: ${out.error}` };
    return { value: out.value };
  }
}

function errorDecision(policy: CompiledPolicy, message: string, elapsedSeconds = 0): PolicyDecision {
  return { action: policy.failurePolicy === 'Ignore' ? 'admit' : 'deny', evaluation: 'error', message, reason: '', elapsedSeconds };
}

/** Evaluates the policy's matchConditions: matched, not matched, or the error to report. */
function matchConditions(policy: CompiledPolicy, input: PolicyInput): boolean | { error: string } {
  if (policy.matchConditions.length === 0) return true;
  const activation = new Activation(policy, input);
  const budget = { remaining: RUNTIME_CEL_COST_BUDGET };
  const errors: string[] = [];
  try {
    for (const condition of policy.matchConditions) {
      const result = activation.evaluate(condition, budget);
      if ('error' in result) errors.push(result.error);
      else if (result.value === false) return false;
    }
  } catch (err) {
    if (err instanceof PassError) return policy.failurePolicy === 'Ignore' ? false : { error: err.message };
    throw err;
  }
  if (errors.length === 0) return true;
  if (policy.failurePolicy === 'Ignore') return false;
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}

function denyMessage(validation: CompiledPolicy['validations'][number], messageResult: { value: unknown } | { error: string } | undefined): string {
  let message = '';
  if (messageResult !== undefined && 'value' in messageResult && typeof messageResult.value === 'string') {
    message = messageResult.value.trim();
    if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
  }
  if (message === '' && validation.message !== '') message = validation.message.trim();
  if (message === '') message = `failed expression: ${validation.condition.expression.trim()}`;
  return message;
}

/** Runs the validations (and their messages) of a policy whose matchConditions passed. */
function validations(policy: CompiledPolicy, input: PolicyInput): PolicyDecision[] {
  const activation = new Activation(policy, input);
  const budget = { remaining: RUNTIME_CEL_COST_BUDGET };
  const results: ({ value: unknown } | { error: string })[] = [];
  const elapsed: number[] = [];
  try {
    for (const validation of policy.validations) {
      const start = performance.now();
      results.push(activation.evaluate(validation.condition, budget));
      elapsed.push((performance.now() - start) / 1000);
    }
  } catch (err) {
    if (err instanceof PassError) return [errorDecision(policy, err.message)];
    throw err;
  }
  // messageExpressions run in an activation of their own, on what the validations left of the budget.
  const messages = new Activation(policy, input);
  let messageBudgetSpent = false;
  return policy.validations.map((validation, i): PolicyDecision => {
    const result = results[i]!;
    const elapsedSeconds = elapsed[i]!;
    if ('error' in result) return errorDecision(policy, result.error, elapsedSeconds);
    if (result.value === true) return { action: 'admit', evaluation: 'admit', message: '', reason: '', elapsedSeconds };
    let messageResult: { value: unknown } | { error: string } | undefined;
    if (validation.messageExpression !== undefined && !messageBudgetSpent) {
      try {
        messageResult = messages.evaluate(validation.messageExpression, budget);
      } catch (err) {
        if (!(err instanceof PassError)) throw err;
        messageBudgetSpent = true;
        return errorDecision(policy, `failed messageExpression: ${err.message}`, elapsedSeconds);
      }
    }
    return { action: 'deny', evaluation: 'deny', message: denyMessage(validation, messageResult), reason: validation.reason || 'Invalid', elapsedSeconds };
  });
}

function auditAnnotations(policy: CompiledPolicy, input: PolicyInput): AuditAnnotationResult[] | PolicyDecision {
  if (policy.auditAnnotations.length === 0) return [];
  const activation = new Activation(policy, input);
  const budget = { remaining: RUNTIME_CEL_COST_BUDGET };
  const onError = policy.failurePolicy === 'Ignore' ? 'exclude' : 'error';
  const out: AuditAnnotationResult[] = [];
  try {
    for (const annotation of policy.auditAnnotations) {
      const result = activation.evaluate(annotation, budget);
      const key = annotation.key;
      if ('error' in result) out.push(onError === 'exclude' ? { key, action: 'exclude' } : { key, action: 'error', error: result.error });
      else if (result.value === null || result.value === undefined) out.push({ key, action: 'exclude' });
      else if (typeof result.value === 'string') {
        const value = result.value.trim();
        out.push(value === '' ? { key, action: 'exclude' } : { key, action: 'publish', value });
      } else {
        out.push({ key, action: 'error', error: `valueExpression '${annotation.expression}' resulted in unsupported return type: ${typeName(result.value)}. Return type must be either string or null.` });
      }
    }
  } catch (err) {
    if (err instanceof PassError) return errorDecision(policy, err.message);
    throw err;
  }
  return out;
}

function typeName(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return typeof v;
}

/** kube's Validate for one binding and param. Never throws for an expression's failure. */
export function validatePolicy(policy: CompiledPolicy, input: PolicyInput): ValidateResult {
  const matched = matchConditions(policy, input);
  if (matched === false) return { decisions: [], auditAnnotations: [] };
  if (matched !== true) return { decisions: [errorDecision(policy, matched.error)], auditAnnotations: [] };
  const decisions = validations(policy, input);
  const annotations = auditAnnotations(policy, input);
  if (!Array.isArray(annotations)) return { decisions: [annotations], auditAnnotations: [] };
  return { decisions, auditAnnotations: annotations };
}
