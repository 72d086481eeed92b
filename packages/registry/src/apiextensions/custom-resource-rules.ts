/**
 * The `x-kubernetes-validations` step of custom-resource writes (kube's customResourceStrategy):
 * run last, on create, update and every subresource write, with the rules of the version
 * being written — compiled once per version, on its first write, and kept for the CRD's
 * life. Skipped with kube's error when an earlier error makes the object unfit for rules
 * (a missing, mistyped or oversized value). Updates through the main resource (and scale)
 * ratchet: a non-transition rule failing on an unchanged value is a warning; status writes
 * do not (as in kube 1.32).
 */
import type { FieldError, JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { fieldInvalid } from '@kapi/machinery';
import type { LastValidationContext } from '../definition.js';
import { compileValidator, validateRules, type RuleNode } from './rule-validator.js';

/** Error types after which kube does not run the rules (kube's hasBlockingErr). */
const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/** kube's error for rules skipped: no field (printed `<nil>`), no value (printed `"null"`). */
const RULES_NOT_CHECKED = fieldInvalid('<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation');

export type RulesValidation = (obj: KubeObject, old: KubeObject | undefined, earlier: readonly FieldError[], context: LastValidationContext) => FieldError[];

/**
 * The rules step for a CRD whose versions have the given schemas (as written); `storage` is
 * the version whose schema applies to a write in a version the CRD does not list.
 */
export function rulesValidation(schemaByVersion: ReadonlyMap<string | undefined, JSONSchemaProps | undefined>, storage: string | undefined): RulesValidation {
  const compiled = new Map<string | undefined, RuleNode | undefined>();
  const validatorFor = (version: string | undefined): RuleNode | undefined => {
    const key = schemaByVersion.has(version) ? version : storage;
    if (!compiled.has(key)) compiled.set(key, compileValidator(schemaByVersion.get(key)));
    return compiled.get(key);
  };
  return (obj, old, earlier, context) => {
    const validator = validatorFor(context.version);
    if (validator === undefined) return [];
    if (earlier.some((e) => BLOCKING.has(e.type))) return [RULES_NOT_CHECKED];
    const result = validateRules(validator, obj, { ...(old !== undefined ? { old } : {}), ratchet: old !== undefined && context.subresource !== 'status' });
    for (const warning of result.warnings) context.warn?.(warning);
    return result.errors;
  };
}
