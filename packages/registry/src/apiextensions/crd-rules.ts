/**
 * The checks of a CRD's validation rules when the CRD is written (kube's
 * ValidateCustomResourceDefinitionOpenAPISchema, its x-kubernetes-validations part): each
 * rule's own fields (rule present, message and messageExpression non-empty and on one line,
 * a known reason, a fieldPath that leads somewhere), then — where the schema is structural
 * and nothing at or below the node is wrong — the rules compiled: compile errors, oldSelf
 * where old values cannot be matched (items of lists that are not map lists),
 * optionalOldSelf without oldSelf, and the estimated cost against the per-expression and
 * per-CRD budgets. Paths and texts are kube's
 * (`spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`).
 */
import type { FieldError, JSONSchemaProps } from '@kapi/machinery';
import { fieldForbidden, fieldInternalError, fieldInvalid, fieldNotSupported, fieldRequired, goQuote, isPlainObject } from '@kapi/machinery';
import { compileRules, rulesOf, type CompiledRule, type ValidationRule } from './rule-compile.js';
import { declTypeOf, propertyTypeOf, elementTypeOf, type DeclType } from './rule-engine.js';
import { parseRuleFieldPath } from './rule-field-path.js';

/** kube's StaticEstimatedCostLimit: the most one rule (times how often it can run) may cost. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** kube's StaticEstimatedCRDCostLimit: the most all rules of a schema may cost together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
const MAX_UINT64 = 2 ** 64 - 1;
const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

export interface RuleCheckOptions {
  /** Compile the rules (only when the schema is structural and its defaults valid). */
  readonly compile: boolean;
  /** Leave the per-expression cost limit unchecked (an update that keeps the version's schema). */
  readonly suppressPerExpressionCost?: boolean;
}

interface TypeInfo {
  readonly schema: JSONSchemaProps;
  readonly type: DeclType;
}

interface TotalCost {
  total: number;
  mostExpensive: { path: string; cost: number }[];
}

/** kube's CELSchemaContext: a node's declared type (derived from the parent's when it has one) and how often it can occur. */
class CelContext {
  private info: { value?: TypeInfo; error?: string } | undefined;

  constructor(
    readonly schema: JSONSchemaProps,
    readonly withinRuleScope: boolean,
    /** The most times the node can occur in one object; undefined: unbounded. */
    readonly maxCardinality: number | undefined,
    readonly totalCost: TotalCost,
    private readonly parent?: CelContext,
    private readonly fromParent?: (parent: TypeInfo) => TypeInfo | undefined,
  ) {}

  static root(schema: JSONSchemaProps): CelContext {
    return new CelContext(schema, rulesOf(schema).length > 0, 1, { total: 0, mostExpensive: [] });
  }

  typeInfo(): { value?: TypeInfo; error?: string } {
    if (!this.withinRuleScope) return {};
    this.info ??= this.computeTypeInfo();
    return this.info;
  }

  private computeTypeInfo(): { value?: TypeInfo; error?: string } {
    if (this.parent !== undefined) {
      const parentInfo = this.parent.typeInfo();
      if (parentInfo.error !== undefined) return parentInfo;
      if (parentInfo.value !== undefined && this.fromParent !== undefined) {
        const derived = this.fromParent(parentInfo.value);
        if (derived !== undefined) return { value: derived };
      }
    }
    const isRoot = this.parent === undefined || this.schema['x-kubernetes-embedded-resource'] === true;
    const type = declTypeOf(this.schema, isRoot);
    return type === undefined ? { error: 'unable to convert structural schema to CEL declarations' } : { value: { schema: this.schema, type } };
  }

  child(schema: JSONSchemaProps, fromParent: (parent: TypeInfo) => TypeInfo | undefined): CelContext {
    const within = this.withinRuleScope || rulesOf(schema).length > 0;
    const elements = maxElements(this.schema);
    const cardinality = this.maxCardinality === undefined || elements === undefined ? undefined : multiply(this.maxCardinality, elements);
    return new CelContext(schema, within, cardinality, this.totalCost, this, fromParent);
  }
}

/** How many values a child of `schema` may have: 1 for fields, maxProperties/maxItems for maps and lists (undefined: unbounded). */
function maxElements(schema: JSONSchemaProps): number | undefined {
  switch (schema.type) {
    case 'object':
      if (schema.additionalProperties !== undefined) return schema.maxProperties !== undefined ? Math.max(0, schema.maxProperties) : undefined;
      return 1;
    case 'array':
      return schema.maxItems !== undefined ? Math.max(0, schema.maxItems) : undefined;
    default:
      return 1;
  }
}

function multiply(a: number, b: number): number {
  if (a === 0) return 0;
  return a * b > MAX_UINT64 ? MAX_UINT64 : a * b;
}

/** kube's getCostErrorMessage: by how much `cost` exceeds `limit`. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

function observeCost(total: TotalCost, path: string, cost: number): void {
  total.total = Math.min(MAX_UINT64, total.total + cost);
  // Rules under 1% of the CRD limit are not named.
  if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
  total.mostExpensive.push({ path, cost });
  total.mostExpensive.sort((a, b) => b.cost - a.cost);
  if (total.mostExpensive.length > 4) total.mostExpensive.length = 4;
}

/** Go's %#v of the internal ValidationRule kube prints as the bad value of a compile error (pointers print as addresses). */
function goRule(rule: ValidationRule): string {
  const reason = rule.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : '(*apiextensions.FieldValueErrorReason)(0xc000000000)';
  const optional = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, ` +
    `MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(rule.fieldPath ?? '')}, OptionalOldSelf:${optional}}`
  );
}

function invalidRule(field: string, rule: ValidationRule, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${goRule(rule)}: ${detail}` };
}

const NEWLINES = /[\n\r]/;

/** The checks of each rule's own fields at `path` (kube's SchemaErrors for x-kubernetes-validations). */
function ruleFieldErrors(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  rulesOf(schema).forEach((rule, i) => {
    const at = (field: string) => `${path}.x-kubernetes-validations[${i}].${field}`;
    const text = (rule.rule ?? '').trim();
    const message = rule.message ?? '';
    if (text === '') errs.push(fieldRequired(at('rule'), 'rule is not specified'));
    else if (message !== '' && message.trim() === '') errs.push(fieldInvalid(at('message'), message, 'message must be non-empty if specified'));
    else if (NEWLINES.test(message.trim())) errs.push(fieldInvalid(at('message'), message, 'message must not contain line breaks'));
    else if (NEWLINES.test(text) && message.trim() === '') errs.push(fieldRequired(at('message'), 'message must be specified if rule contains line breaks'));
    const messageExpression = rule.messageExpression ?? '';
    if (messageExpression !== '' && messageExpression.trim() === '') errs.push(fieldRequired(at('messageExpression'), 'messageExpression must be non-empty if specified'));
    if (rule.reason !== undefined && !REASONS.includes(rule.reason)) errs.push(fieldNotSupported(at('reason'), rule.reason, REASONS));
    const fieldPath = rule.fieldPath ?? '';
    if (fieldPath !== '' && fieldPath.trim() === '') errs.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (NEWLINES.test(fieldPath)) errs.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath !== '' && 'error' in parseRuleFieldPath(fieldPath, schema)) errs.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  });
  return errs;
}

/** The CEL errors of the compiled rules at `path` (kube's CELErrors), observing their cost. */
function compiledRuleErrors(schema: JSONSchemaProps, path: string, context: CelContext, forbidOldSelf: string | undefined, options: RuleCheckOptions): FieldError[] {
  const base = `${path}.x-kubernetes-validations`;
  const info = context.typeInfo();
  if (info.error !== undefined) return [fieldInternalError(base, `internal error: failed to construct type information for x-kubernetes-validations rules: ${info.error}`)];
  if (info.value === undefined) return [fieldInternalError(base, 'internal error: failed to retrieve type information for x-kubernetes-validations')];
  const rules = rulesOf(schema);
  const compiled = compileRules(info.value.schema, rules, info.value.type);
  const errs: FieldError[] = [];
  compiled.forEach((result, i) => {
    const rule = rules[i]!;
    const at = (field: string) => `${base}[${i}].${field}`;
    const cost = expressionCost(result, context);
    if (options.suppressPerExpressionCost !== true && cost > STATIC_ESTIMATED_COST_LIMIT) {
      errs.push(fieldForbidden(at('rule'), costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    }
    observeCost(context.totalCost, at('rule'), cost);
    if (result.error !== undefined) errs.push(invalidRule(at('rule'), rule, result.error.detail));
    if (result.messageError !== undefined) {
      errs.push(invalidRule(at('messageExpression'), rule, result.messageError.detail));
    } else if (result.messageProgram !== undefined) {
      if (options.suppressPerExpressionCost !== true && result.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
        errs.push(fieldForbidden(at('messageExpression'), costErrorMessage('estimated messageExpression cost', result.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT)));
      }
      observeCost(context.totalCost, at('messageExpression'), result.messageMaxCost);
    }
    if (result.usesOldSelf) {
      if (forbidOldSelf !== undefined) {
        errs.push(fieldInvalid(at('rule'), rule.rule ?? '', `oldSelf cannot be used on the uncorrelatable portion of the schema within ${forbidOldSelf}`));
      }
    } else if (rule.optionalOldSelf !== undefined) {
      errs.push(fieldInvalid(at('optionalOldSelf'), rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}

/** kube's getExpressionCost: the rule's cost times how often its node can occur (bounded by the schema, else by the request size). */
function expressionCost(result: CompiledRule, context: CelContext): number {
  const cardinality = context.maxCardinality ?? result.maxCardinality;
  return multiply(result.maxCost, cardinality);
}

interface Found {
  readonly schema: FieldError[];
  readonly cel: FieldError[];
}

function propertyInfo(name: string): (parent: TypeInfo) => TypeInfo | undefined {
  return (parent) => {
    const schema = parent.schema.properties?.[name];
    if (schema === undefined) return undefined;
    const field = propertyTypeOf(parent.type, name);
    return field.type === undefined ? undefined : { schema, type: field.type };
  };
}

function elementInfo(of: (schema: JSONSchemaProps) => JSONSchemaProps | undefined): (parent: TypeInfo) => TypeInfo | undefined {
  return (parent) => {
    const schema = of(parent.schema);
    const type = elementTypeOf(parent.type);
    return schema === undefined || type === undefined ? undefined : { schema, type };
  };
}

function visit(schema: JSONSchemaProps, path: string, forbidOldSelf: string | undefined, context: CelContext | undefined, options: RuleCheckOptions): Found {
  const found: Found = { schema: [], cel: [] };
  const add = (more: Found) => {
    for (const e of more.schema) found.schema.push(e);
    for (const e of more.cel) found.cel.push(e);
  };
  const additional = schema.additionalProperties;
  if (isPlainObject(additional)) {
    add(visit(additional, `${path}.additionalProperties`, forbidOldSelf, context?.child(additional, elementInfo((s) => (isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined))), options));
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!isPlainObject(property)) continue;
    add(visit(property, `${path}.properties[${name}]`, forbidOldSelf, context?.child(property, propertyInfo(name)), options));
  }
  const nested = schema as JSONSchemaProps & { not?: JSONSchemaProps; oneOf?: JSONSchemaProps[]; anyOf?: JSONSchemaProps[] };
  if (isPlainObject(nested.not)) add(visit(nested.not, `${path}.not`, forbidOldSelf, undefined, options));
  for (const junctor of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = nested[junctor];
    if (Array.isArray(list)) list.forEach((entry, i) => isPlainObject(entry) && add(visit(entry, `${path}.${junctor}[${i}]`, forbidOldSelf, undefined, options)));
  }
  const items = schema.items as unknown;
  // Only items of map lists correlate with their old selves.
  const itemsForbid = forbidOldSelf ?? (schema['x-kubernetes-list-type'] !== 'map' ? path : undefined);
  if (isPlainObject(items)) {
    add(visit(items, `${path}.items`, itemsForbid, context?.child(items, elementInfo((s) => s.items)), options));
  } else if (Array.isArray(items)) {
    items.forEach((entry, i) => isPlainObject(entry) && add(visit(entry, `${path}.items[${i}]`, itemsForbid, context?.child(entry, () => undefined), options)));
  }
  if (rulesOf(schema).length > 0) {
    const fieldErrors = ruleFieldErrors(schema, path);
    for (const e of fieldErrors) found.schema.push(e);
    // Rules are compiled only where nothing at or below is wrong (their types would mislead).
    if (found.schema.length === 0 && context !== undefined && options.compile) {
      for (const e of compiledRuleErrors(schema, path, context, forbidOldSelf, options)) found.cel.push(e);
    }
  }
  return found;
}

/**
 * The rule errors of a version's openAPIV3Schema at `path` (e.g.
 * `spec.validation.openAPIV3Schema`): the rules' field errors, then the compiled rules'
 * errors, then the per-CRD cost total when exceeded.
 */
export function validateSchemaRules(schema: JSONSchemaProps, path: string, options: RuleCheckOptions): FieldError[] {
  const context = options.compile ? CelContext.root(schema) : undefined;
  const found = visit(schema, path, undefined, context, options);
  const errs = [...found.schema, ...found.cel];
  if (context !== undefined && context.totalCost.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const expensive of context.totalCost.mostExpensive) {
      errs.push(fieldForbidden(expensive.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    }
    errs.push(fieldForbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', context.totalCost.total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return errs;
}
