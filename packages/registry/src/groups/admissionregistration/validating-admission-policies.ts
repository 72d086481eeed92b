/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding:
 * kube's v1 defaults (failurePolicy Fail; matchPolicy Equivalent, empty namespace and object
 * selectors and rule scope `*` in matchConstraints/matchResources) and the validation kube's
 * API runs on them, expressions compiled as kube compiles stored policies (object, oldObject,
 * request, params and namespaceObject dyn; authorizer everywhere but in messageExpressions),
 * with kube 1.32's texts.
 */
import { AuthorizerType, compileRule, DynType, objectType, ResourceCheckType, type DeclField, type DeclType } from '@kapi/cel';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, isQualifiedName, type FieldError, type KubeObject } from '@kapi/machinery';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { withBehaviour, type ResourceOverride } from '../../builtin/override.js';
import { invalidGo } from '../apps/pod-controller.js';
import { validatingAdmissionPolicyBindingColumns, validatingAdmissionPolicyColumns } from './columns.js';

type Json = Record<string, unknown>;

const list = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Json[]) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** kube's SetDefaults_MatchResources and SetDefaults_NamedRuleWithOperations. */
function defaultMatchResources(match: Json | undefined): void {
  if (match === undefined) return;
  match['matchPolicy'] ??= 'Equivalent';
  match['namespaceSelector'] ??= {};
  match['objectSelector'] ??= {};
  for (const key of ['resourceRules', 'excludeResourceRules']) for (const rule of list(match[key])) rule['scope'] ??= '*';
}

function defaultPolicy(obj: KubeObject): void {
  const spec = recordAt(obj, 'spec');
  if (spec === undefined) return;
  spec['failurePolicy'] ??= 'Fail';
  defaultMatchResources(recordAt(spec, 'matchConstraints'));
}

function defaultBinding(obj: KubeObject): void {
  const spec = recordAt(obj, 'spec');
  if (spec === undefined) return;
  defaultMatchResources(recordAt(spec, 'matchResources'));
}

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** The compile environment of a policy's expressions; `variables` grows as they are checked. */
class Checker {
  private readonly fields = new Map<string, DeclField>();
  constructor(private readonly hasParams: boolean) {}

  addVariable(name: string): void {
    this.fields.set(name, { name, jsonName: name, type: DynType, required: false });
  }

  /** The field errors of `expression` (at `path`): it must compile and have one of the `returns` types. */
  check(path: string, expression: string, returns: readonly string[] | undefined, withAuthorizer = true): FieldError[] {
    const vars: Record<string, DeclType> = {
      ...(withAuthorizer ? { authorizer: AuthorizerType, 'authorizer.requestResource': ResourceCheckType } : {}),
      object: DynType, oldObject: DynType, request: DynType, namespaceObject: DynType,
      variables: objectType(new Map(this.fields)),
      ...(this.hasParams ? { params: DynType } : {}),
    };
    const result = compileRule(expression, { vars });
    if (!result.ok) return [fieldInvalid(path, expression, `compilation failed: ${result.errors.join('\n')}`)];
    const got = result.program.outputType;
    if (returns === undefined || returns.includes(got)) return [];
    const want = returns.length === 1 ? returns[0]! : `one of [${returns.join(' ')}]`;
    return [fieldInvalid(path, expression, `must evaluate to ${want} but got ${got}`)];
  }
}

function validateMatchResources(match: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const policy = match['matchPolicy'];
  if (policy !== undefined && policy !== 'Exact' && policy !== 'Equivalent') errs.push(fieldNotSupported(`${path}.matchPolicy`, policy, ['Equivalent', 'Exact']));
  return errs;
}

function validatePolicy(obj: KubeObject): FieldError[] {
  const spec = recordAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  const failurePolicy = spec['failurePolicy'];
  if (failurePolicy !== undefined && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') errs.push(fieldNotSupported('spec.failurePolicy', failurePolicy, ['Fail', 'Ignore']));
  const matchConstraints = recordAt(spec, 'matchConstraints');
  if (matchConstraints === undefined) errs.push(fieldRequired('spec.matchConstraints'));
  else errs.push(...validateMatchResources(matchConstraints, 'spec.matchConstraints'));
  const paramKind = recordAt(spec, 'paramKind');
  const checker = new Checker(paramKind !== undefined);
  list(spec['matchConditions']).forEach((condition, i) => {
    const path = `spec.matchConditions[${i}]`;
    const expression = str(condition['expression']);
    if (expression.trim() === '') errs.push(fieldRequired(`${path}.expression`));
    else errs.push(...checker.check(`${path}.expression`, expression, ['bool']));
  });
  list(spec['variables']).forEach((variable, i) => {
    const path = `spec.variables[${i}]`;
    const name = str(variable['name']);
    if (name === '') errs.push(fieldRequired(`${path}.name`, 'name is not specified'));
    else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) errs.push(fieldInvalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
    const expression = str(variable['expression']);
    if (expression.trim() === '') errs.push(fieldRequired(`${path}.expression`, 'expression is not specified'));
    else errs.push(...checker.check(`${path}.expression`, expression, undefined));
    if (name !== '') checker.addVariable(name);
  });
  const validations = list(spec['validations']);
  const annotations = list(spec['auditAnnotations']);
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(fieldRequired('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldRequired('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
  }
  validations.forEach((validation, i) => {
    const path = `spec.validations[${i}]`;
    const expression = str(validation['expression']);
    if (expression.trim() === '') errs.push(fieldRequired(`${path}.expression`, 'expression is not specified'));
    else errs.push(...checker.check(`${path}.expression`, expression, ['bool']));
    const message = validation['message'];
    if (typeof message === 'string' && message !== '' && message.trim() === '') errs.push(fieldInvalid(`${path}.message`, message, 'message must be non-empty if specified'));
    if (typeof message === 'string' && message.includes('\n')) errs.push(fieldInvalid(`${path}.message`, message, 'message must not contain line breaks'));
    const messageExpression = str(validation['messageExpression']);
    if (messageExpression !== '') errs.push(...checker.check(`${path}.messageExpression`, messageExpression, ['string'], false));
    const reason = validation['reason'];
    if (reason !== undefined && !['Forbidden', 'Invalid', 'RequestEntityTooLarge'].includes(str(reason))) errs.push(fieldNotSupported(`${path}.reason`, reason, ['Forbidden', 'Invalid', 'RequestEntityTooLarge']));
  });
  annotations.forEach((annotation, i) => {
    const path = `spec.auditAnnotations[${i}]`;
    const key = str(annotation['key']);
    if (key === '') errs.push(fieldRequired(`${path}.key`));
    else {
      const qualified = `${obj.metadata.name ?? ''}/${key}`;
      for (const problem of isQualifiedName(qualified)) errs.push(fieldInvalid(`${path}.key`, qualified, problem));
    }
    const valueExpression = str(annotation['valueExpression']);
    if (valueExpression.trim() === '') errs.push(fieldRequired(`${path}.valueExpression`, 'valueExpression is not specified'));
    else errs.push(...checker.check(`${path}.valueExpression`, valueExpression, ['string', 'null_type']));
  });
  return errs;
}

function validateBinding(obj: KubeObject): FieldError[] {
  const spec = recordAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  if (str(spec['policyName']) === '') errs.push(fieldRequired('spec.policyName'));
  const paramRef = recordAt(spec, 'paramRef');
  if (paramRef !== undefined) {
    const hasName = str(paramRef['name']) !== '';
    const hasSelector = paramRef['selector'] !== undefined && paramRef['selector'] !== null;
    if (hasName && hasSelector) {
      errs.push(fieldForbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
      errs.push(fieldForbidden('spec.paramRef.selector', 'name and selector are mutually exclusive'));
    }
    if (!hasName && !hasSelector) errs.push(fieldRequired('spec.paramRef', 'one of name or selector must be specified'));
    const action = paramRef['parameterNotFoundAction'];
    if (action === undefined) errs.push(fieldRequired('spec.paramRef.parameterNotFoundAction'));
    else if (action !== 'Allow' && action !== 'Deny') errs.push(fieldNotSupported('spec.paramRef.parameterNotFoundAction', action, ['Allow', 'Deny']));
  }
  const matchResources = recordAt(spec, 'matchResources');
  if (matchResources !== undefined) errs.push(...validateMatchResources(matchResources, 'spec.matchResources'));
  const actions = Array.isArray(spec['validationActions']) ? (spec['validationActions'] as unknown[]) : [];
  if (actions.length === 0) errs.push(fieldRequired('spec.validationActions', 'at least one validation action is required'));
  const seen = new Set<unknown>();
  actions.forEach((action, i) => {
    const path = `spec.validationActions[${i}]`;
    if (seen.has(action)) errs.push(fieldDuplicate(path, action));
    else if (!['Audit', 'Deny', 'Warn'].includes(str(action))) errs.push(fieldNotSupported(path, action, ['Audit', 'Deny', 'Warn']));
    seen.add(action);
  });
  const goList = `[]admissionregistration.ValidationAction{${actions.map((a) => JSON.stringify(a)).join(', ')}}`;
  if (seen.has('Deny') && seen.has('Warn')) errs.push(invalidGo('spec.validationActions', goList, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  return errs;
}

export const validatingAdmissionPolicyOverride: ResourceOverride = withBehaviour({
  strategy: builtinStrategy({ decode: defaultPolicy, validate: validatePolicy }),
  printerColumns: validatingAdmissionPolicyColumns,
});

export const validatingAdmissionPolicyBindingOverride: ResourceOverride = withBehaviour({
  strategy: builtinStrategy({ decode: defaultBinding, validate: validateBinding }),
  printerColumns: validatingAdmissionPolicyBindingColumns,
});
