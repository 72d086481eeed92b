// Server-side apply and managed fields: field sets, FieldsV1, the ownership engine and
// kube's manager bookkeeping, driven by structural schemas.
export type { JsonValue } from './json-value.js';
export { compareJson, compareStrings, equalJson, goJson } from './json-value.js';
export type { PathElement, Path } from './path-element.js';
export { fieldElement, keyElement, valueElement, indexElement, pathString, parsePathElement, comparePathElements } from './path-element.js';
export { FieldSet } from './field-set.js';
export type { Atom, ListAtom, MapAtom } from './schema-type.js';
export { schemaAtom, UNTYPED, DEDUCED } from './schema-type.js';
export type { Comparison } from './typed.js';
export { toFieldSet, compareValues, mergeValues, removeItems, validateForApply } from './typed.js';
export type { VersionedSet, ManagerSets, Conflict, UpdaterOptions, ApplyResult } from './updater.js';
export { ApplyConflictError, updateManagerSteps, applyConfigSteps } from './updater.js';
export type { ManagedFieldsEntry, Managed, ManagerInfo } from './managed-fields.js';
export {
  managerIdentifier,
  printManager,
  decodeManagedFields,
  encodeManagedFields,
  capUpdateManagers,
  isResetManagedFields,
  MAX_UPDATE_MANAGERS,
  ANCIENT_CHANGES_MANAGER,
} from './managed-fields.js';
export type { FieldManagerScope, ApplyOutcome } from './field-manager.js';
export { trackUpdate, trackUpdateSliced, applyConfiguration, applyConfigurationSliced, applyConflictError, managerFromUserAgent, LAST_APPLIED_ANNOTATION } from './field-manager.js';
