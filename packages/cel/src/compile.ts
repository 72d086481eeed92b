/**
 * compileRule: parse and type-check one expression in a rule environment, estimate its cost,
 * and return a program that evaluates it against JSON values.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { DeclType } from './decl-type.js';
import { environmentFor, type BoundEnvironment, type RuleEnv } from './environment.js';
import { formatCompileError, evaluationMessage } from './errors.js';
import { PER_CALL_LIMIT } from './limits.js';
import './library/index.js';
import type { Node } from './ast.js';
import { validateAst } from './validate-ast.js';
import { estimateCost } from './cost-estimate.js';

export interface CompileOptions {
  /** The CEL type the expression must have (`bool` for rules, `string` for messageExpression). */
  readonly expectedType?: string;
}

/** The estimated cost of one evaluation, in cel-go's cost units. */
export interface CostEstimate {
  readonly min: number;
  readonly max: number;
}

export interface EvaluateOptions {
  /** Stop and fail once the evaluation has spent more than this; default PER_CALL_LIMIT. */
  readonly costLimit?: number;
}

export type EvalResult =
  | { readonly ok: true; readonly value: unknown; readonly cost: number }
  | { readonly ok: false; readonly error: string; readonly cost: number; readonly costExceeded: boolean };

/** A compiled expression. Immutable; may be evaluated concurrently from many requests. */
export interface Program {
  readonly expression: string;
  /** The expression's CEL type as cel-go names it (`bool`, `string`, `list(int)`…). */
  readonly outputType: string;
  readonly estimatedCost: CostEstimate;
  /**
   * Evaluates against JSON values for the declared variables (absent ones are unbound).
   * Never throws: evaluation errors and exceeded cost limits come back as `ok: false`.
   */
  evaluate(activation: Readonly<Record<string, unknown>>, options?: EvaluateOptions): EvalResult;
}

export type CompileResult =
  | { readonly ok: true; readonly program: Program; readonly estimatedCost: CostEstimate }
  | { readonly ok: false; readonly errors: readonly string[] };

type Evaluator = ReturnType<Environment['parse']>;

/** Compiles `expression` for the variables `env` declares. Never throws. */
export function compileRule(expression: string, env: RuleEnv, options: CompileOptions = {}): CompileResult {
  const bound = environmentFor(env);
  let parsed: Evaluator;
  try {
    parsed = bound.engine.parse(expression);
  } catch (err) {
    return { ok: false, errors: [formatCompileError(expression, err)] };
  }
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, errors: [formatCompileError(expression, checked.error)] };
  const issues = validateAst(parsed.ast as Node);
  if (issues.length > 0) {
    return { ok: false, errors: issues.map((i) => formatCompileError(expression, { message: i.message, range: { start: i.offset, end: i.offset } })) };
  }
  const outputType = celGoTypeName(checked.type ?? 'dyn');
  if (options.expectedType && outputType !== options.expectedType && outputType !== 'dyn') {
    return { ok: false, errors: [`ERROR: <input>:1:1: expected type '${options.expectedType}' but found '${outputType}'`] };
  }
  const estimatedCost: CostEstimate = estimateCost(parsed.ast as Node, bound.variables);
  const program = new CompiledProgram(expression, outputType, estimatedCost, parsed, bound);
  return { ok: true, program, estimatedCost };
}

/** The engine writes `list<int>`, cel-go `list(int)`. */
function celGoTypeName(t: string): string {
  return t.replace(/</g, '(').replace(/>/g, ')').replace(/^list$/, 'list(dyn)').replace(/^map$/, 'map(dyn, dyn)');
}

class CompiledProgram implements Program {
  constructor(
    readonly expression: string,
    readonly outputType: string,
    readonly estimatedCost: CostEstimate,
    private readonly run: Evaluator,
    private readonly bound: BoundEnvironment,
  ) {}

  evaluate(activation: Readonly<Record<string, unknown>>, options: EvaluateOptions = {}): EvalResult {
    void (options.costLimit ?? PER_CALL_LIMIT);
    try {
      const value: unknown = this.run(this.bound.bind(activation));
      return { ok: true, value, cost: 0 };
    } catch (err) {
      return { ok: false, error: evaluationMessage(err), cost: 0, costExceeded: false };
    }
  }
}

export type { DeclType, RuleEnv };
