/**
 * The validation rules of one CRD version, compiled once and run on every write of its
 * custom resources (kube's cel.Validator). The tree follows the schema: a node for each
 * schema node that has rules or leads to one (properties, items, additionalProperties,
 * allOf), each with its compiled rules. Running it walks the object and the old object
 * together: every rule runs on each value at its node (list items and map values
 * included); transition rules (`oldSelf`) only where an old value correlates (object
 * fields, map entries, items of map-type lists by key), unless `optionalOldSelf`. One cost
 * budget per object. Errors and their texts are kube's (rule-errors.ts).
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { isPlainObject } from '@kapi/machinery';
import { compileRules, rulesOf, type CompiledRule } from './rule-compile.js';
import { CorrelatedObject } from './correlated-object.js';
import { mapListOf } from './map-list.js';
import { declTypeOf, elementTypeOf, propertyTypeOf, type DeclType } from './rule-engine.js';
import { RUNTIME_COST_BUDGET, runNodeRules, type RuleNode, type RuleRun, type RuleValidationResult } from './rule-run.js';

export type { RuleNode, RuleValidationResult };

function hasRules(schema: JSONSchemaProps | undefined): boolean {
  if (schema === undefined) return false;
  if (rulesOf(schema).length > 0) return true;
  if (hasRules(schema.items)) return true;
  if (isPlainObject(schema.additionalProperties) && hasRules(schema.additionalProperties)) return true;
  return Object.values(schema.properties ?? {}).some((p) => hasRules(p));
}

function additional(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

/**
 * kube's validator(): the rules of `validation` (the node itself, or one of its allOf
 * entries) compiled for `node` of declared type `type`, and the nodes below. Undefined
 * when nothing below has rules.
 */
function buildNode(validation: JSONSchemaProps, node: JSONSchemaProps, isResourceRoot: boolean, type: DeclType | undefined): RuleNode | undefined {
  const rules = rulesOf(validation);
  let compiled: CompiledRule[] = [];
  let initError: string | undefined;
  if (rules.length > 0) {
    if (type === undefined) initError = 'failed to convert to declType for CEL validation rules';
    else compiled = compileRules({ ...node, 'x-kubernetes-validations': rules } as JSONSchemaProps, rules, type);
  }
  const elem = elementTypeOf(type);
  const items = validation.items !== undefined && node.items !== undefined ? buildNode(validation.items, node.items, node.items['x-kubernetes-embedded-resource'] === true, elem) : undefined;
  let properties: Map<string, RuleNode> | undefined;
  for (const [name, validationProperty] of Object.entries(validation.properties ?? {})) {
    const nodeProperty = node.properties?.[name];
    if (nodeProperty === undefined || !Object.prototype.hasOwnProperty.call(node.properties, name)) continue;
    const embedded = nodeProperty['x-kubernetes-embedded-resource'] === true;
    const field = propertyTypeOf(type, name);
    let fieldType: DeclType | undefined;
    if (field.escapable) {
      // Fields without a declared type are left out of rule validation entirely.
      if (type === undefined || field.type === undefined) continue;
      fieldType = field.type;
    } else {
      fieldType = declTypeOf(nodeProperty, embedded);
      if (fieldType === undefined) continue;
    }
    const child = buildNode(validationProperty, nodeProperty, embedded, fieldType);
    if (child !== undefined) (properties ??= new Map()).set(name, child);
  }
  const validationAdditional = additional(validation);
  const nodeAdditional = additional(node);
  const additionalNode =
    validationAdditional !== undefined && nodeAdditional !== undefined
      ? buildNode(validationAdditional, nodeAdditional, nodeAdditional['x-kubernetes-embedded-resource'] === true, elem)
      : undefined;
  const allOf = (validation.allOf ?? []).flatMap((entry) => {
    const built = isPlainObject(entry) ? buildNode(entry, node, isResourceRoot, type) : undefined;
    return built === undefined ? [] : [built];
  });
  if (compiled.length === 0 && initError === undefined && items === undefined && additionalNode === undefined && properties === undefined && allOf.length === 0) {
    return undefined;
  }
  return {
    schema: node,
    rules: compiled,
    ...(initError !== undefined ? { initError } : {}),
    isResourceRoot,
    ...(properties !== undefined ? { properties } : {}),
    ...(items !== undefined ? { items } : {}),
    ...(additionalNode !== undefined ? { additionalProperties: additionalNode } : {}),
    ...(allOf.length > 0 ? { allOf } : {}),
  };
}

/**
 * The compiled rules of a version's schema (its openAPIV3Schema as written; or of any
 * schema node, `isResourceRoot` false unless it is an embedded resource), or undefined
 * when it has none.
 */
export function compileValidator(schema: JSONSchemaProps | undefined, isResourceRoot = true): RuleNode | undefined {
  if (schema === undefined || !hasRules(schema)) return undefined;
  return buildNode(schema, schema, isResourceRoot, declTypeOf(schema, isResourceRoot));
}

/** Where ratcheting stands at a node: its own correlation, or the nearest ancestor's when it has none. */
interface Ratchet {
  readonly current?: CorrelatedObject;
  readonly nearestParent?: CorrelatedObject;
}

function ratchetKey(r: Ratchet, field: string): Ratchet {
  if (r.current === undefined) return r;
  // apiVersion and kind are the same on both sides after conversion: changes to them cannot ratchet.
  if (r.nearestParent === undefined && (field === 'apiVersion' || field === 'kind')) return {};
  const next = r.current.key(field);
  return next === undefined ? { nearestParent: r.current } : { current: next, nearestParent: r.current };
}

function ratchetIndex(r: Ratchet, i: number): Ratchet {
  if (r.current === undefined) return r;
  const next = r.current.index(i);
  return next === undefined ? { nearestParent: r.current } : { current: next, nearestParent: r.current };
}

export interface RuleValidationOptions {
  /** The stored object (update): transition rules run, ratcheting applies when `ratchet`. */
  readonly old?: unknown;
  /** The field path of the validated value (default '': the object's root). */
  readonly path?: string;
  /** Let failures on unchanged values through as warnings (kube's CRDValidationRatcheting; not for status writes). */
  readonly ratchet?: boolean;
}

/**
 * Runs the rules of `validator` on `obj` (and `options.old`). Never throws: every problem,
 * including an exceeded cost budget, is a field error.
 */
export function validateRules(validator: RuleNode, obj: unknown, options: RuleValidationOptions = {}): RuleValidationResult {
  const result: RuleValidationResult = { errors: [], warnings: [] };
  const run: RuleRun = { budget: RUNTIME_COST_BUDGET, result };
  const ratchet: Ratchet = options.ratchet === true && options.old !== undefined ? { current: new CorrelatedObject(obj, options.old, validator.schema) } : {};
  visit(validator, options.path ?? '', obj, options.old, ratchet, run);
  return result;
}

/** kube's validate(): the node's rules, its allOf entries, then the values below. Stops once the budget is spent. */
function visit(node: RuleNode, path: string, value: unknown, old: unknown, ratchet: Ratchet, run: RuleRun): void {
  if (value === null || value === undefined) return;
  const oldValue = old === null ? undefined : old;
  runNodeRules(node, path, value, oldValue, () => shouldRatchet(ratchet), run);
  if (run.budget < 0) return;
  for (const entry of node.allOf ?? []) {
    // allOf rules are not ratcheted (as schema ratcheting leaves allOf out).
    visit(entry, path, value, oldValue, ratchet.nearestParent !== undefined ? { nearestParent: ratchet.nearestParent } : {}, run);
    if (run.budget < 0) return;
  }
  if (Array.isArray(value)) visitItems(node, path, value, Array.isArray(oldValue) ? oldValue : undefined, ratchet, run);
  else if (isPlainObject(value)) visitFields(node, path, value, isPlainObject(oldValue) ? oldValue : undefined, ratchet, run);
}

function shouldRatchet(r: Ratchet): boolean {
  if (r.current !== undefined) return r.current.deepEqual();
  return r.nearestParent?.deepEqual() ?? false;
}

function visitItems(node: RuleNode, path: string, value: unknown[], old: unknown[] | undefined, ratchet: Ratchet, run: RuleRun): void {
  if (node.items === undefined) return;
  const oldItems = mapListOf(node.schema, old);
  for (let i = 0; i < value.length; i++) {
    visit(node.items, `${path}[${i}]`, value[i], oldItems.get(value[i]), ratchetIndex(ratchet, i), run);
    if (run.budget < 0) return;
  }
}

function visitFields(node: RuleNode, path: string, value: Record<string, unknown>, old: Record<string, unknown> | undefined, ratchet: Ratchet, run: RuleRun): void {
  // Every map type kube knows (granular, atomic) correlates its entries.
  const mapType = node.schema['x-kubernetes-map-type'];
  const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic';
  const oldOf = (key: string) => (correlatable && old !== undefined && Object.prototype.hasOwnProperty.call(old, key) ? old[key] : undefined);
  if (node.additionalProperties !== undefined) {
    for (const [key, child] of Object.entries(value)) {
      visit(node.additionalProperties, `${path}[${key}]`, child, oldOf(key), ratchetKey(ratchet, key), run);
      if (run.budget < 0) return;
    }
  }
  if (node.properties !== undefined) {
    for (const [key, child] of Object.entries(value)) {
      const sub = node.properties.get(key);
      if (sub === undefined) continue;
      visit(sub, path === '' ? key : `${path}.${key}`, child, oldOf(key), ratchetKey(ratchet, key), run);
      if (run.budget < 0) return;
    }
  }
}
