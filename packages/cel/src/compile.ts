/**
 * compileRule: parse and type-check one expression in a rule environment, estimate its cost,
 * and return a program that evaluates it against JSON values.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { DeclType } from './decl-type.js';
import { environmentFor, type BoundEnvironment, type RuleEnv } from './environment.js';
import { formatCompileError, formatErrorAt, evaluationMessage } from './errors.js';
import { syntaxIssues } from './syntax-check.js';
import { PER_CALL_LIMIT } from './limits.js';
import { LruCache, PROGRAM_CACHE_CAPACITY } from './program-cache.js';
import './library/index.js';
import { walk, type Node } from './ast.js';
import { validateAst } from './validate-ast.js';
import { widenHasMacros } from './presence.js';
import { resolveQualifiedNames } from './qualified-names.js';
import { useRe2ForMatches } from './library/regex.js';
import { compileRe2 } from './library/regex-cache.js';
import { estimateCost } from './cost-estimate.js';
import { COST_LIMIT_EXCEEDED, CostTracker, instrument, withTracker } from './runtime-cost.js';

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
   * Set when cel-go compiles the expression but refuses to make a program of it: a literal
   * pattern of find/findAll that RE2 refuses (kube: "program instantiation failed: <this>").
   * The program still evaluates, failing where that pattern is used.
   */
  readonly instantiationError?: string;
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

const programs = new LruCache<CompileResult>(PROGRAM_CACHE_CAPACITY);

/**
 * Compiles `expression` for the variables `env` declares, or returns the cached result of
 * compiling it before in the same environment. Never throws.
 */
export function compileRule(expression: string, env: RuleEnv, options: CompileOptions = {}): CompileResult {
  const bound = environmentFor(env);
  const key = `${bound.id}\u0000${options.expectedType ?? ''}\u0000${expression}`;
  const hit = programs.get(key);
  if (hit) return hit;
  const result = compileUncached(expression, bound, options);
  programs.set(key, result);
  return result;
}

/** Empties the compiled-program cache (tests). */
export function clearProgramCache(): void {
  programs.clear();
}

function compileUncached(expression: string, bound: BoundEnvironment, options: CompileOptions): CompileResult {
  // cel-go's grammar decides what parses (the engine accepts a little more, e.g. `f(a, )` or
  // reserved words as names), and its wording is what kube reports.
  const issues = syntaxIssues(expression);
  if (issues.length > 0) return { ok: false, errors: issues.map((i) => formatErrorAt(expression, i.offset, i.message)) };
  let parsed: Evaluator;
  try {
    parsed = bound.engine.parse(expression);
  } catch (err) {
    return { ok: false, errors: [formatCompileError(expression, err)] };
  }
  widenHasMacros(parsed.ast as Node);
  resolveQualifiedNames(parsed.ast as Node, bound.qualifiedNames);
  const checked = parsed.check();
  if (!checked.valid) return { ok: false, errors: [formatCompileError(expression, checked.error)] };
  useRe2ForMatches(parsed.ast as Node);
  const hasError = checkPresenceTests(expression, parsed.ast as Node, bound);
  if (hasError) return { ok: false, errors: [hasError] };
  const astIssues = validateAst(parsed.ast as Node);
  if (astIssues.length > 0) {
    return { ok: false, errors: astIssues.map((i) => formatCompileError(expression, { message: i.message, range: { start: i.offset, end: i.offset } })) };
  }
  const outputType = celGoTypeName(checked.type ?? 'dyn');
  if (options.expectedType && outputType !== options.expectedType && outputType !== 'dyn') {
    return { ok: false, errors: [`ERROR: <input>:1:1: expected type '${options.expectedType}' but found '${outputType}'`] };
  }
  const estimate = estimateCost(parsed.ast as Node, bound.variables);
  const estimatedCost: CostEstimate = estimate.cost;
  const forget = instrument(parsed.ast as Node, estimate.declOf);
  const program = new CompiledProgram(expression, outputType, estimatedCost, parsed, bound, forget, literalRegexError(parsed.ast as Node));
  return { ok: true, program, estimatedCost };
}

/**
 * The engine does not type-check the field selections inside has(); cel-go does ("undefined
 * field"). Each has() operand is checked on its own; cel-go reports its error at has()'s "(".
 */
function checkPresenceTests(expression: string, root: Node, bound: BoundEnvironment): string | undefined {
  let error: string | undefined;
  walk(root, (n) => {
    if (error || n.op !== 'call' || (n.args as unknown as [string])[0] !== 'has') return;
    const operand = (n.args as unknown as [string, Node[]])[1][0];
    if (!operand || (operand.op !== '.' && operand.op !== '.?')) return;
    let root: Node = operand;
    while (root.op === '.' || root.op === '.?' || root.op === '[]' || root.op === '[?]') root = (root.args as unknown as [Node])[0];
    // Only chains from a declared variable can be checked on their own (not comprehension variables).
    if (root.op !== 'id' || !bound.variables.has(root.args as string)) return;
    let free = false;
    walk(operand, (m) => { if (m.op === 'id' && !bound.variables.has(m.args as string)) free = true; });
    if (free) return;
    const text = expression.slice(operand.start, operand.end);
    const checked = bound.engine.check(text);
    if (checked.valid || !checked.error) return;
    const e = checked.error as { message: string; summary?: string; range?: { start: number } };
    // cel-go reports it at has()'s parenthesis
    error = formatCompileError(expression, { message: e.message, summary: e.summary, range: { start: expression.indexOf('(', n.start), end: 0 } });
  });
  return error;
}

/** kube's regex library compiles literal patterns of find and findAll when it builds the program. */
function literalRegexError(root: Node): string | undefined {
  let error: string | undefined;
  walk(root, (n) => {
    if (error || n.op !== 'rcall') return;
    const [name, , args] = n.args as unknown as [string, Node, Node[]];
    const a = args[0];
    if ((name !== 'find' && name !== 'findAll') || a?.op !== 'value' || typeof a.args !== 'string') return;
    try { compileRe2(a.args); } catch (err) { error = (err as Error).message; }
  });
  return error;
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
    private readonly forget: () => void,
    readonly instantiationError: string | undefined,
  ) {}

  evaluate(activation: Readonly<Record<string, unknown>>, options: EvaluateOptions = {}): EvalResult {
    const tracker = new CostTracker(options.costLimit ?? PER_CALL_LIMIT);
    try {
      const bound = this.bound.bind(activation);
      const value: unknown = withTracker(tracker, () => this.run(bound));
      if (tracker.exceeded) return { ok: false, error: COST_LIMIT_EXCEEDED, cost: tracker.cost, costExceeded: true };
      return { ok: true, value, cost: tracker.cost };
    } catch (err) {
      if (tracker.exceeded) return { ok: false, error: COST_LIMIT_EXCEEDED, cost: tracker.cost, costExceeded: true };
      return { ok: false, error: evaluationMessage(err), cost: tracker.cost, costExceeded: false };
    } finally {
      this.forget();
    }
  }
}

export type { DeclType, RuleEnv };
