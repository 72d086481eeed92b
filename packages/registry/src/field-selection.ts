/**
 * Label and field selection for lists (kube's SelectionPredicate): which fields a resource
 * can be selected by, and the predicate the storage applies while paging.
 */
import type { FieldSelector, KubeObject, LabelSelector } from '@kapi/machinery';
import { badRequest } from '@kapi/machinery';
import type { Predicate } from '@kapi/storage';
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
      throw badRequest(`field label not supported: ${field}`);
    }
  }
}

/** The selectable fields of `obj` (absent values are ""). */
export function objectFields(definition: ResourceDefinition, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': typeof obj.metadata.name === 'string' ? obj.metadata.name : '',
    'metadata.namespace': definition.namespaced && typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '',
  };
  for (const [field, getter] of Object.entries(definition.selectableFields ?? {})) fields[field] = getter(obj) ?? '';
  return fields;
}

/** The storage predicate for the selectors; `everything` when neither restricts. */
export function selectionPredicate(
  definition: ResourceDefinition,
  labelSelector: LabelSelector | undefined,
  fieldSelector: FieldSelector | undefined,
): Predicate {
  const labelsEmpty = labelSelector === undefined || labelSelector.empty;
  const fieldsEmpty = fieldSelector === undefined || fieldSelector.empty;
  if (labelsEmpty && fieldsEmpty) return everything;
  return {
    empty: false,
    matches(obj: KubeObject): boolean {
      if (!labelsEmpty && !labelSelector.matches(obj.metadata.labels)) return false;
      return fieldsEmpty || fieldSelector.matches(objectFields(definition, obj));
    },
  };
}
