export type { DeclType, DeclField, DeclKind } from './decl-type.js';
export {
  BoolType, IntType, UintType, DoubleType, StringType, BytesType, DurationType, TimestampType, DynType, NullType,
  listType, mapType, objectType, stringType, optionalType, AuthorizerType, ResourceCheckType,
} from './decl-type.js';
export type { CelAuthorizer, AuthorizationCheck, AuthorizationDecision } from './library/authz.js';
export { Authorizer, ResourceCheck } from './library/authz.js';
export { Quantity } from './library/quantity.js';
export { IP, CIDR } from './library/ip.js';
export { escapePropertyName, unescapePropertyName } from './escaping.js';
export type { SchemaTypeOptions } from './schema-types.js';
export { declTypeFromSchema } from './schema-types.js';
export type { RuleEnv } from './environment.js';
export type { CompileOptions, CompileResult, CostEstimate, EvaluateOptions, EvalResult, Program } from './compile.js';
export { compileRule, clearProgramCache } from './compile.js';
export { toCelValue, CelObject, DynMap } from './values.js';
export {
  PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, CHECK_FREQUENCY, MAX_REQUEST_SIZE_BYTES, MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, costErrorMessage,
} from './limits.js';
export { maxCardinality, expressionCost } from './cardinality.js';
