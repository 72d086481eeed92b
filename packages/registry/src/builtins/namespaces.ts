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
import type { FieldError, JSONSchemaProps, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldInvalid, isQualifiedName, nameColumn } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import { CORE_V1, META_V1, array, goType, kindSchema, listSchema, ref, string } from '../schemas/schema-builders.js';
import { ALL_VERBS, builtinStrategy, recordAt, stringAt } from './builtin-strategy.js';

export const FINALIZER_KUBERNETES = 'kubernetes';
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

const gvk = { group: '', version: 'v1', kind: 'Namespace' };

const namespaceCondition: JSONSchemaProps = {
  description: 'One observed condition of a namespace.',
  type: 'object',
  properties: {
    lastTransitionTime: ref(`${META_V1}Time`, 'When the condition last changed status.'),
    message: string('Human-readable details.'),
    reason: string('A machine-readable reason for the last transition.'),
    status: goType('v1.ConditionStatus', string('"True", "False" or "Unknown".')),
    type: goType('v1.NamespaceConditionType', string('The condition type, e.g. NamespaceDeletionDiscoveryFailure.')),
  },
};

const namespaceSpec: JSONSchemaProps = {
  description: 'The desired state of a namespace.',
  type: 'object',
  properties: {
    finalizers: array(goType('v1.FinalizerName', string('')), 'Values that must be cleared before the namespace is removed from storage.', {
      'x-kubernetes-list-type': 'atomic',
    }),
  },
};

const namespaceStatus: JSONSchemaProps = {
  description: 'The observed state of a namespace.',
  type: 'object',
  properties: {
    conditions: array(ref(`${CORE_V1}NamespaceCondition`), 'The latest observations of the namespace state.', {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    phase: goType('v1.NamespacePhase', string('The lifecycle phase: "Active" or "Terminating".', { enum: ['Active', 'Terminating'] })),
  },
};

export const namespaceSchema = kindSchema(gvk, 'A scope for names; most objects live in exactly one namespace.', {
  spec: ref(`${CORE_V1}NamespaceSpec`, 'The desired state of the namespace.'),
  status: ref(`${CORE_V1}NamespaceStatus`, 'The observed state of the namespace.'),
});

export const namespaceDefinitions: Record<string, JSONSchemaProps> = {
  [`${CORE_V1}Namespace`]: namespaceSchema,
  [`${CORE_V1}NamespaceSpec`]: namespaceSpec,
  [`${CORE_V1}NamespaceStatus`]: namespaceStatus,
  [`${CORE_V1}NamespaceCondition`]: namespaceCondition,
  [`${CORE_V1}NamespaceList`]: listSchema(gvk, `${CORE_V1}Namespace`, 'A list of namespaces.', 'The namespaces.'),
};

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

export const namespaces: ResourceDefinition = {
  group: '',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  versions: [{ name: 'v1', served: true, storage: true, schema: namespaceSchema }],
  verbs: [...ALL_VERBS],
  omitEmptyCollections: true,
  returnDeletedObject: true,
  hasStatus: true,
  nameValidation: 'DNS1123Label',
  selectableFields: { 'status.phase': (obj) => stringAt(obj, ['status', 'phase']) },
  allowUnconditionalUpdate: true,
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
