// Patch engines: JSON patch (RFC 6902) with kube's limits, JSON merge patch (RFC 7386),
// strategic merge patch driven by the schema, and duplicate-key detection for strict decoding.
export { applyJsonPatch, decodeJsonPatch, patchNotApplicable, MAX_JSON_PATCH_COPY_BYTES } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export {
  strategicMergePatch,
  strategicMergePatchSliced,
  StrategicMergeError,
  ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST,
  ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
  ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER,
  ERR_NO_LIST_OF_LISTS,
} from './strategic-merge.js';
export { findDuplicateFields, jsonStringEnd, MAX_STRICT_ERRORS } from './json-duplicates.js';
export { goFormatValue, goFormatNumber, goTypeName } from './go-format.js';
