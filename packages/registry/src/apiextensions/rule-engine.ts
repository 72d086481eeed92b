/**
 * The one place CRD validation rules meet the CEL engine (`@kapi/cel`): a schema node's
 * declared type, the compilation of a rule or messageExpression with `self` (and `oldSelf`,
 * plain or optional) declared, and the evaluation of a compiled expression against JSON
 * values with a cost limit. Everything else about rules (where they sit, what their errors
 * say, the budgets) is kube's apiextensions logic and lives beside this file.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import type { DeclType, EvalResult } from '@kapi/cel';
import { compileRule, declTypeFromSchema, escapePropertyName } from '@kapi/cel';

export type { DeclType };

/** How a rule's environment declares `oldSelf`: with self's type, or as an optional of it (`optionalOldSelf: true`). */
export type OldSelfDeclaration = 'plain' | 'optional';

/** The values a compiled expression sees. `oldSelf` absent: unbound (plain) or `optional.none()` (optional). */
export interface RuleVariables {
  readonly self: unknown;
  readonly oldSelf?: unknown;
}

/** The engine's outcome of one evaluation: a value, or an error (with `costExceeded` when the limit stopped it). */
export type RuleEvaluation = EvalResult;

/** A compiled rule or messageExpression. Immutable; shared by every request. */
export interface RuleProgram {
  /** The expression's type as cel-go names it (`bool`, `string`, `dyn`…). */
  readonly outputType: string;
  /** The estimated worst-case cost of one evaluation. */
  readonly maxCost: number;
  /** The expression refers to `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
  /** Why kube would refuse to instantiate the program (a literal find/findAll regex RE2 refuses). */
  readonly instantiationError?: string;
  /** Evaluates; never throws (errors and an exceeded `costLimit` come back as `ok: false`). */
  evaluate(variables: RuleVariables, costLimit: number): RuleEvaluation;
}

export type RuleCompilation = { readonly ok: true; readonly program: RuleProgram } | { readonly ok: false; readonly error: string };

/** The declared CEL type of a schema node (kube's SchemaDeclType), or undefined when kube gives it none. */
export function declTypeOf(schema: JSONSchemaProps | undefined, isResourceRoot: boolean): DeclType | undefined {
  return declTypeFromSchema(schema, { isResourceRoot });
}

/** The type of property `name` in an object type: undefined when the name cannot be escaped or the field has no type. */
export function propertyTypeOf(type: DeclType | undefined, name: string): { escapable: boolean; type: DeclType | undefined } {
  const escaped = escapePropertyName(name);
  if (escaped === undefined) return { escapable: false, type: undefined };
  return { escapable: true, type: type?.fields?.get(escaped)?.type };
}

/** The item type of a list or the value type of a map. */
export function elementTypeOf(type: DeclType | undefined): DeclType | undefined {
  return type?.elem;
}

/** The smallest JSON size of a value of `type` (the cost estimator's cardinality bound). */
export function minSerializedSize(type: DeclType): number {
  return type.minSerializedSize;
}

/** Whether `expression` can only compile with `oldSelf` declared (it refers to the variable). */
function refersToOldSelf(expression: string, selfType: DeclType): boolean {
  // Only text that names oldSelf can refer to it; those compile again without it.
  if (!expression.includes('oldSelf')) return false;
  const without = compileRule(expression, { self: selfType });
  return !without.ok && without.errors.some((e) => e.includes("undeclared reference to 'oldSelf'"));
}

/** Compiles `expression` with `self` of `selfType` and `oldSelf` declared as `oldSelf` says. Never throws. */
export function compileExpression(expression: string, selfType: DeclType, oldSelf: OldSelfDeclaration): RuleCompilation {
  const compiled = compileRule(expression, { self: selfType, oldSelf: true, ...(oldSelf === 'optional' ? { optionalOldSelf: true } : {}) });
  if (!compiled.ok) return { ok: false, error: compiled.errors.join('\n') };
  const program = compiled.program;
  return {
    ok: true,
    program: {
      outputType: program.outputType,
      maxCost: compiled.estimatedCost.max,
      usesOldSelf: refersToOldSelf(expression, selfType),
      ...(program.instantiationError !== undefined ? { instantiationError: program.instantiationError } : {}),
      evaluate(variables, costLimit) {
        const activation: Record<string, unknown> = { self: variables.self };
        if ('oldSelf' in variables) activation['oldSelf'] = variables.oldSelf;
        return program.evaluate(activation, { costLimit });
      },
    },
  };
}
