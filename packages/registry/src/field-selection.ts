/**
 * Label and field selection for lists (kube's SelectionPredicate): which fields a resource
 * can be selected by, and the predicate the storage applies while paging.
 */
import type { FieldSelector, KubeObject, LabelSelector } from '@kapi/machinery';
import { badRequest } from '@kapi/machinery';
import type { IndexedMatch, Predicate } from '@kapi/storage';
import { everything } from '@kapi/storage';
import type { ResourceDefinition } from './definition.js';

const META_FIELDS = ['metadata.name', 'metadata.namespace'];

/**
 * Throws 400 BadRequest for a field the resource cannot be selected by: kinds with their own
 * selectable fields answer `field label not supported: <f>`, the others kube's generic
 * `"<f>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
export function checkFieldSelector(definition: ResourceDefinition, selector: FieldSelector | undefined): void {
  for (const requirement of selector?.requirements ?? []) {
    const field = requirement.field;
    if (META_FIELDS.includes(field)) continue;
    if (definition.selectableFields === undefined) {
      throw badRequest(`${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    if (!Object.prototype.hasOwnProperty.call(definition.selectableFields, field)) {
      throw badRequest(definition.unsupportedFieldLabel?.(field) ?? `field label not supported: ${field}`);
    }
  }
}

/** One `valueOf` per indexed field and definition (the cache groups watchers by the function's field). */
const indexGetters = new WeakMap<ResourceDefinition, Map<string, (obj: KubeObject) => string>>();

function indexGetter(definition: ResourceDefinition, field: string): ((obj: KubeObject) => string) | undefined {
  const getter = definition.selectableFields?.[field];
  if (getter === undefined) return undefined;
  let getters = indexGetters.get(definition);
  if (getters === undefined) indexGetters.set(definition, (getters = new Map()));
  let valueOf = getters.get(field);
  if (valueOf === undefined) getters.set(field, (valueOf = (obj) => getter(obj) ?? ''));
  return valueOf;
}

/** The index hint for the first `=` requirement on one of the definition's indexed fields. */
function indexedMatch(definition: ResourceDefinition, selector: FieldSelector): IndexedMatch | undefined {
  for (const field of definition.indexedFields ?? []) {
    const value = selector.exactMatch(field);
    const valueOf = value === undefined ? undefined : indexGetter(definition, field);
    if (value !== undefined && valueOf !== undefined) return { field, value, valueOf };
  }
  return undefined;
}

/**
 * The storage predicate for the selectors; `everything` when neither restricts. It reads only
 * the fields the selector names, and carries an index hint when the selector requires a value
 * of an indexed field.
 */
export function selectionPredicate(
  definition: ResourceDefinition,
  labelSelector: LabelSelector | undefined,
  fieldSelector: FieldSelector | undefined,
): Predicate {
  const labelsEmpty = labelSelector === undefined || labelSelector.empty;
  const fieldsEmpty = fieldSelector === undefined || fieldSelector.empty;
  if (labelsEmpty && fieldsEmpty) return everything;
  const index = fieldsEmpty ? undefined : indexedMatch(definition, fieldSelector);
  // The field requirements as direct tests (what `fieldSelector.matches` decides on the
  // object's named fields), so that testing an object — once per event and watcher — builds nothing.
  const checks = fieldsEmpty ? [] : fieldSelector.requirements.map((r) => ({ valueOf: fieldGetter(definition, r.field), value: r.value, equal: r.operator === '=' }));
  return {
    empty: false,
    matches(obj: KubeObject): boolean {
      if (!labelsEmpty && !labelSelector.matches(obj.metadata.labels)) return false;
      for (let i = 0; i < checks.length; i++) {
        const check = checks[i]!;
        if ((check.valueOf(obj) === check.value) !== check.equal) return false;
      }
      return true;
    },
    ...(index !== undefined ? { index } : {}),
  };
}

/** A function giving `field` of an object ("" when absent), as {@link fieldValue} does. */
function fieldGetter(definition: ResourceDefinition, field: string): (obj: KubeObject) => string {
  if (field === 'metadata.name') return (obj) => (typeof obj.metadata.name === 'string' ? obj.metadata.name : '');
  if (field === 'metadata.namespace') return definition.namespaced ? (obj) => (typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '') : () => '';
  return (obj) => fieldValue(definition, obj, field);
}

/** One selectable field of `obj` ("" when absent). */
function fieldValue(definition: ResourceDefinition, obj: KubeObject, field: string): string {
  if (field === 'metadata.name') return typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
  if (field === 'metadata.namespace') return definition.namespaced && typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
  return definition.selectableFields?.[field]?.(obj) ?? '';
}
