/**
 * The `customresourcedefinitions` resource (apiextensions.k8s.io/v1, cluster-scoped, with a
 * `status` subresource). Its strategy applies kube's v1 defaults (listKind, singular,
 * conversion None), starts the status over on create (the storage version stored), marks a
 * CRD Terminating with the cleanup finalizer on its first DELETE (the CRD controller removes
 * the finalizer once every custom resource is gone) and validates as crd-validation.ts describes.
 */
import type { KubeObject } from '@kapi/machinery';
import { isPlainObject, nowRFC3339 } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import { dropNulls } from '../drop-nulls.js';
import { ALL_VERBS } from '../builtin/builtin-strategy.js';
import { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER, type CustomResourceDefinition } from './crd-types.js';
import { crdSchema } from './crd-schema.js';
import { validateApiApproval, validateCrd, validateCrdRules, validateCrdUpdate, validateNames, validateStoredVersions } from './crd-validation.js';
import { crdFromV1beta1 } from './crd-v1beta1.js';

/** kube's v1 defaults: listKind = <kind>List, singular = lowercased kind, conversion strategy None; printer-column priority 0 left out. */
export function defaultCrd(obj: KubeObject): void {
  const crd = obj as CustomResourceDefinition;
  const spec = crd.spec;
  if (!isPlainObject(spec)) return;
  const names = spec.names;
  if (isPlainObject(names) && typeof names.kind === 'string' && names.kind !== '') {
    if (names.listKind === undefined || names.listKind === '') names.listKind = `${names.kind}List`;
    if (names.singular === undefined || names.singular === '') names.singular = names.kind.toLowerCase();
  }
  if (spec.conversion === undefined) spec.conversion = { strategy: 'None' };
  for (const version of Array.isArray(spec.versions) ? spec.versions : []) {
    if (!isPlainObject(version)) continue;
    for (const col of Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns : []) {
      // priority is an omitempty int32 in kube's Go type: 0 (the default) is never written, so
      // a second field manager applying the same CRD finds nothing of its own there (issue 23).
      if (isPlainObject(col) && col.priority === 0) delete col.priority;
    }
  }
}

function addCleanupFinalizer(obj: KubeObject): void {
  const finalizers: unknown = obj.metadata.finalizers ?? [];
  // Finalizers that are not a list are the body's error, for validation to report (not a 500 here).
  if (!Array.isArray(finalizers)) return;
  if (!finalizers.includes(CLEANUP_FINALIZER)) obj.metadata.finalizers = [...(finalizers as string[]), CLEANUP_FINALIZER];
}

/**
 * kube's PrepareForCreate: the status starts over, holding only the storage version as
 * stored (conditions and accepted names are the CRD controller's to write).
 */
function initialStatus(obj: KubeObject): void {
  const crd = obj as CustomResourceDefinition;
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  const storage = versions.filter((v) => isPlainObject(v) && v.storage === true && typeof v.name === 'string').map((v) => v.name!);
  (obj as Record<string, unknown>)['status'] = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage };
}

/**
 * kube's CRD REST Delete on the first DELETE: the cleanup finalizer (the CRD controller
 * removes it once every custom resource is gone) and the Terminating condition.
 */
function markTerminating(obj: KubeObject): void {
  addCleanupFinalizer(obj);
  const status = (isPlainObject(obj['status']) ? obj['status'] : {}) as Record<string, unknown>;
  const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []) as Record<string, unknown>[];
  const terminating = {
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: nowRFC3339(),
    reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  };
  const existing = conditions.findIndex((c) => c['type'] === 'Terminating');
  if (existing < 0) conditions.push(terminating);
  else if (conditions[existing]!['status'] !== 'True') conditions[existing] = terminating;
  else conditions[existing] = { ...terminating, lastTransitionTime: conditions[existing]!['lastTransitionTime'] };
  status['conditions'] = conditions;
  obj['status'] = status;
}

export const customResourceDefinitions: ResourceDefinition = {
  group: APIEXTENSIONS_GROUP,
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  // kube-apiserver's key prefix, so either server reads the CRDs the other stored.
  storagePrefix: 'apiextensions.k8s.io/customresourcedefinitions',
  storedVersionReaders: { 'apiextensions.k8s.io/v1beta1': crdFromV1beta1 },
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  namespaced: false,
  versions: [{ name: 'v1', served: true, storage: true, schema: crdSchema }],
  verbs: [...ALL_VERBS],
  hasStatus: true,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'] }],
  managesGeneration: true,
  allowUnconditionalUpdate: true,
  // A built-in of kube-apiserver: discovery leaves its own group and version out of responseKind.
  responseKindGroupVersion: 'omitOwn',
  strategy: {
    decode(obj) {
      dropNulls(obj);
      defaultCrd(obj);
    },
    prepareForCreate: initialStatus,
    markForDeletion: markTerminating,
    validate: validateCrd,
    validateCreate: (obj) => validateApiApproval(obj as CustomResourceDefinition),
    validateUpdate: (obj, old) => [...validateCrdUpdate(obj, old), ...validateApiApproval(obj as CustomResourceDefinition, old as CustomResourceDefinition)],
    // The rules are checked last: kube's messages about them follow the others.
    validateLast: (obj, old, _earlier, context) => (context.subresource === '' ? validateCrdRules(obj as CustomResourceDefinition, old as CustomResourceDefinition | undefined) : []),
    validateSubresourceUpdate(_subresource, obj) {
      const crd = obj as CustomResourceDefinition;
      return [...validateNames(crd.status?.acceptedNames ?? {}, 'status.acceptedNames'), ...validateStoredVersions(crd)];
    },
  },
};
