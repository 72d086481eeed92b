export type { DeclType, DeclField, DeclKind } from './decl-type.js';
export {
  BoolType, IntType, UintType, DoubleType, StringType, BytesType, DurationType, TimestampType, DynType, NullType,
  listType, mapType, objectType, stringType,
} from './decl-type.js';
export { escapePropertyName, unescapePropertyName } from './escaping.js';
export type { SchemaTypeOptions } from './schema-types.js';
export { declTypeFromSchema } from './schema-types.js';
export type { RuleEnv } from './environment.js';
export type { CompileOptions, CompileResult, CostEstimate, EvaluateOptions, EvalResult, Program } from './compile.js';
export { compileRule } from './compile.js';
export { toCelValue, CelObject } from './values.js';
export {
  PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, CHECK_FREQUENCY, MAX_REQUEST_SIZE_BYTES,
  STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, costErrorMessage,
} from './limits.js';
export { Authorizer, AuthorizerType, type AuthorizationCheck, type AuthorizationDecision, type CelAuthorizer } from './library/authz.js';
