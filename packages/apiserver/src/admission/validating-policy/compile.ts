/**
 * A policy's expressions compiled once (per policy generation): matchConditions,
 * variables, validations, their messageExpressions and auditAnnotations, in the variable
 * environment kube's ValidatingAdmissionPolicy plugin declares (`object`, `oldObject`,
 * `request`, `params` when the policy has a paramKind, `namespaceObject`, `variables`, and
 * `authorizer` with `authorizer.requestResource` everywhere but in messageExpressions).
 * Values are dyn at runtime, as kube compiles stored policies; an expression that does not
 * compile is kept with its error, which is reported when the policy is evaluated (kube's
 * "compilation error: ..."), never at compile time.
 */
import { AuthorizerType, compileRule, DynType, objectType, ResourceCheckType, type DeclField, type DeclType, type Program } from '@kapi/cel';
import type { PolicySpec } from './policy-types.js';

/** An expression and either its program or why it did not compile. */
export interface CompiledExpression {
  readonly expression: string;
  readonly program?: Program;
  readonly error?: string;
}

export interface CompiledValidation {
  readonly condition: CompiledExpression;
  readonly message: string;
  readonly reason: string;
  readonly messageExpression?: CompiledExpression;
}

export interface CompiledPolicy {
  readonly hasParams: boolean;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchConditions: readonly (CompiledExpression & { readonly name: string })[];
  /** In declaration order; each sees the ones before it. */
  readonly variables: readonly (CompiledExpression & { readonly name: string })[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly (CompiledExpression & { readonly key: string })[];
}

type ReturnType = 'bool' | 'string' | 'string-or-null' | 'any';

function variableField(name: string): DeclField {
  return { name, jsonName: name, type: DynType, required: false };
}

/** The declarations of one policy's environment; `variables` grows as variables compile. */
class PolicyEnvironment {
  private readonly variableFields = new Map<string, DeclField>();
  private variablesType: DeclType = objectType(this.variableFields);

  constructor(private readonly hasParams: boolean) {}

  addVariable(name: string): void {
    this.variableFields.set(name, variableField(name));
    this.variablesType = objectType(new Map(this.variableFields));
  }

  compile(expression: string, returns: ReturnType, withAuthorizer = true): CompiledExpression {
    const vars: Record<string, DeclType> = {
      ...(withAuthorizer ? { authorizer: AuthorizerType, 'authorizer.requestResource': ResourceCheckType } : {}),
      object: DynType,
      oldObject: DynType,
      request: DynType,
      namespaceObject: DynType,
      variables: this.variablesType,
      ...(this.hasParams ? { params: DynType } : {}),
    };
    const result = compileRule(expression, { vars });
    if (!result.ok) return { expression, error: `compilation failed: ${result.errors.join('\n')}` };
    const mismatch = returnTypeError(result.program.outputType, returns);
    if (mismatch !== undefined) return { expression, error: mismatch };
    return { expression, program: result.program };
  }
}

function returnTypeError(outputType: string, returns: ReturnType): string | undefined {
  switch (returns) {
    case 'any': return undefined;
    case 'bool': return outputType === 'bool' ? undefined : 'must evaluate to bool';
    case 'string': return outputType === 'string' ? undefined : 'must evaluate to string';
    case 'string-or-null': return outputType === 'string' || outputType === 'null_type' ? undefined : 'must evaluate to one of [string null_type]';
  }
}

/** Compiles every expression of `spec`. Never throws. */
export function compilePolicy(spec: PolicySpec): CompiledPolicy {
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const env = new PolicyEnvironment(hasParams);
  const variables = (spec.variables ?? []).map((v) => {
    const compiled = { name: v.name, ...env.compile(v.expression, 'any') };
    env.addVariable(v.name);
    return compiled;
  });
  return {
    hasParams,
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    variables,
    matchConditions: (spec.matchConditions ?? []).map((c) => ({ name: c.name, ...env.compile(c.expression, 'bool') })),
    validations: (spec.validations ?? []).map((v) => ({
      condition: env.compile(v.expression, 'bool'),
      message: v.message ?? '',
      reason: v.reason ?? '',
      ...(v.messageExpression ? { messageExpression: env.compile(v.messageExpression, 'string', false) } : {}),
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, ...env.compile(a.valueExpression, 'string-or-null') })),
  };
}
