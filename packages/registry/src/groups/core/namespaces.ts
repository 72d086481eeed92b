/**
 * core/v1 Namespace: cluster-scoped, names are DNS-1123 labels, has status. On create the
 * server sets `status.phase: Active`, adds the `kubernetes` finalizer to `spec.finalizers`
 * and labels the namespace `kubernetes.io/metadata.name=<name>`; on update spec.finalizers
 * and status are kept from the stored object (they change only through /finalize and
 * /status in kube).
 *
 * Delete semantics (store-delete.ts): a DELETE marks the namespace Terminating; the
 * namespace controller (controllers/) deletes its contents and removes the `kubernetes`
 * finalizer through /finalize, which removes the namespace in the same write. The immortal
 * namespaces cannot be deleted (see namespace-lifecycle.ts).
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldInvalid, isQualifiedName, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../../definition.js';
import { builtinStrategy, recordAt, stringAt } from '../../builtin/builtin-strategy.js';

export const FINALIZER_KUBERNETES = 'kubernetes';
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function ensureSpec(obj: KubeObject): Record<string, unknown> {
  const spec = recordAt(obj, 'spec') ?? {};
  obj['spec'] = spec;
  return spec;
}

function setNameLabel(obj: KubeObject): void {
  const name = obj.metadata.name;
  if (typeof name !== 'string' || name === '') return;
  const labels = recordAt(obj.metadata, 'labels') ?? {};
  labels[NAMESPACE_NAME_LABEL] = name;
  obj.metadata.labels = labels as Record<string, string>;
}

/** Finalizer names: qualified names; a name without a "/" must be the standard `kubernetes`. */
function validateSpecFinalizers(obj: KubeObject): FieldError[] {
  const finalizers = recordAt(obj, 'spec')?.['finalizers'];
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  for (const finalizer of finalizers) {
    if (typeof finalizer !== 'string') continue;
    const messages = isQualifiedName(finalizer);
    for (const msg of messages) errs.push(fieldInvalid('spec.finalizers', finalizer, msg));
    if (messages.length === 0 && !finalizer.includes('/') && finalizer !== FINALIZER_KUBERNETES) {
      errs.push(fieldInvalid('spec.finalizers', finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  return errs;
}

/** kube's namespace status update rule: the phase must agree with deletionTimestamp. */
function validateStatusPhase(obj: KubeObject): FieldError[] {
  const phase = stringAt(obj, ['status', 'phase']) ?? '';
  if (obj.metadata.deletionTimestamp === undefined) {
    if (phase !== 'Active') return [fieldInvalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  } else if (phase !== 'Terminating') {
    return [fieldInvalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  }
  return [];
}

/** kubectl's NAME STATUS AGE. */
export const namespaceColumns = [
  nameColumn,
  column('Status', 'string', 'The status of the namespace', (obj) => stringAt(obj, ['status', 'phase']) ?? ''),
  ageColumn,
];

/** What namespaces do beyond the generic built-in store. */
export const namespaceBehaviour: Partial<ResourceDefinition> = {
  nameValidation: 'DNS1123Label',
  selectableFields: { 'status.phase': (obj) => stringAt(obj, ['status', 'phase']) },
  printerColumns: namespaceColumns,
  subresources: [
    { name: 'status', verbs: ['get', 'patch', 'update'] },
    { name: 'finalize', verbs: ['update'] },
  ],
  strategy: builtinStrategy({
    // kube's defaulting sets the name label, so the writer's managedFields own it.
    decode: setNameLabel,
    prepareForCreate(obj) {
      obj['status'] = { phase: 'Active' };
      const spec = ensureSpec(obj);
      const finalizers = Array.isArray(spec['finalizers']) ? (spec['finalizers'] as unknown[]) : [];
      if (!finalizers.includes(FINALIZER_KUBERNETES)) finalizers.push(FINALIZER_KUBERNETES);
      spec['finalizers'] = finalizers;
      setNameLabel(obj);
    },
    prepareForUpdate(obj, old) {
      const oldFinalizers = recordAt(old, 'spec')?.['finalizers'];
      const spec = ensureSpec(obj);
      if (oldFinalizers === undefined) delete spec['finalizers'];
      else spec['finalizers'] = oldFinalizers;
      if (Object.keys(spec).length === 0 && old['spec'] === undefined) delete obj['spec'];
      setNameLabel(obj);
    },
    validate: validateSpecFinalizers,
    prepareForSubresourceUpdate(subresource, obj, old) {
      // /status changes only status; /finalize only spec (the finalizers).
      const kept = subresource === 'status' ? 'spec' : 'status';
      if (old[kept] === undefined) delete obj[kept];
      else obj[kept] = structuredClone(old[kept]);
      setNameLabel(obj);
    },
    validateSubresourceUpdate(subresource, obj) {
      if (subresource === 'finalize') return validateSpecFinalizers(obj);
      return validateStatusPhase(obj);
    },
  }),
};
