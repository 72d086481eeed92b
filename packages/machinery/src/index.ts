// @kapi/machinery — pure API machinery (no I/O). Explicit named exports only.

export type { OwnerReference, ObjectMeta, KubeObject, ListMeta, KubeList } from './object.js';
export { isPlainObject, deepCopy } from './object.js';
export { SLICE_MS, STEP_MS, nextSlice, shouldYield, yieldIfBusy, yieldBeforeLongStep, runSteps, runStepsSliced } from './time-slice.js';
export type { Steps } from './time-slice.js';

export type {
  StatusReason,
  StatusCause,
  StatusDetails,
  Status,
  GroupResource,
  GroupKind,
  FieldError,
  SuccessStatus,
} from './status.js';
export {
  formatGroupResource,
  StatusError,
  isStatusError,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isBadRequest,
  isExpired,
  OPTIMISTIC_LOCK_ERROR_MSG,
  notFound,
  alreadyExists,
  generateNameConflict,
  conflict,
  optimisticLockConflict,
  invalid,
  badRequest,
  methodNotAllowed,
  notAcceptable,
  unsupportedMediaType,
  requestEntityTooLarge,
  expired,
  internalError,
  timeout,
  tooLargeResourceVersion,
  serverTimeout,
  serviceUnavailable,
  successStatus,
  tooManyRequests,
  forbidden,
} from './status.js';

export type { JSONSchemaProps } from './schema.js';

export {
  formatBadValue,
  goQuote,
  fieldInvalid,
  fieldRequired,
  fieldForbidden,
  fieldNotSupported,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  fieldDuplicate,
  fieldNotFound,
  fieldInternalError,
  formatFieldError,
  formatFieldErrors,
  appendErrors,
} from './field-error.js';

export type { NameValidator } from './validation.js';
export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1035Label,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSSubdomain,
  nameIsDNSLabel,
  nameIsDNS1035Label,
  regexError,
  maxLenError,
  emptyError,
  byteLength,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  DNS1035_LABEL_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
} from './validation.js';

export type { ObjectMetaValidationOptions } from './object-meta-validation.js';
export {
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateLabels,
  validateAnnotations,
  validateOwnerReferences,
  validateFinalizers,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  FIELD_IMMUTABLE_ERROR_MSG,
} from './object-meta-validation.js';

export type {
  LabelOperator,
  LabelRequirement,
  LabelSelector,
  LabelSelectorObject,
  LabelSelectorRequirementObject,
} from './labels.js';
export {
  parseLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  everythingLabels,
  nothingLabels,
} from './labels.js';

export type { FieldRequirement, FieldSelector } from './fields.js';
export {
  parseFieldSelector,
  fieldSelectorFromSet,
  everythingFields,
  escapeFieldValue,
  unescapeFieldValue,
} from './fields.js';

export type { SchemaDefinitions, ExtraSchemaKeywords } from './schema-resolve.js';
export { resolveSchema, refName } from './schema-resolve.js';
export type { SchemaValidationOptions } from './schema-validation.js';
export { validateAgainstSchema, jsonTypeName } from './schema-validation.js';
export { translateRe2, Re2Error } from './re2.js';
export type { TypedDecodeOptions } from './typed-decode.js';
export { typedDecodeError, nonFiniteNumberError, isInt64, goNumberText, GO_TYPE_KEYWORD, DECODE_AS_KEYWORD, WELL_KNOWN_TYPES } from './typed-decode.js';
export type { GoTimeLayout } from './go-time.js';
export { goTimeParseError, goTimeQuote, GO_TIME_LAYOUTS } from './go-time.js';
export { base64ErrorOffset, base64DecodedLength } from './go-base64.js';
export { quantityParseError, QUANTITY_FORMAT_ERROR, QUANTITY_NUMERIC_ERROR, QUANTITY_SUFFIX_ERROR } from './quantity.js';
export type { PruneOptions } from './schema-pruning.js';
export { pruneUnknownFields } from './schema-pruning.js';
export type { DefaultingOptions } from './schema-defaulting.js';
export { applyDefaults } from './schema-defaulting.js';

export type { DecodedContinue } from './continue-token.js';
export { encodeContinue, decodeContinue } from './continue-token.js';
export { goJsonSyntaxError, goQuoteByte } from './go-json-syntax.js';
export { goMapJson } from './go-json-values.js';
export { GoYamlError, goYamlMarshal, goYamlMarshalSliced } from './go-yaml.js';
export {
  parseQuantity,
  formatQuantity,
  addQuantities,
  subtractQuantities,
  compareQuantities,
  quantityOf,
  quantityValue,
  quantityMilliValue,
  ZERO_QUANTITY,
  MAX_MILLI_VALUE,
  type Quantity,
  type QuantityFormat,
} from './quantity-math.js';

export type { ListOptionsToValidate } from './resource-version.js';
export {
  parseResourceVersion,
  validateListOptions,
  RESOURCE_VERSION_MATCH_EXACT,
  RESOURCE_VERSION_MATCH_NOT_OLDER_THAN,
} from './resource-version.js';

export { generateName, newUID, nowRFC3339 } from './names.js';

export type { GroupVersion, GroupVersionKind } from './gvk.js';
export { parseApiVersion, formatApiVersion } from './gvk.js';

export type { Envelope, DecodedObject, ListFraming, ProtobufKind, MessageCodec, FieldCodec } from './protobuf/index.js';
export {
  PROTOBUF_MAGIC,
  ProtobufDecodeError,
  encodeEnvelope,
  decodeEnvelope,
  encodeObjectRaw,
  encodeObjectGo,
  encodeObjectGoDecoded,
  envelopeObject,
  encodeList,
  frameList,
  encodeWatchFrame,
  decodeObject,
  decodeEnveloped,
  decodeList,
  decodeWatchFrames,
  hasProtobuf,
  hasProtobufList,
  protobufKind,
  protobufKinds,
  protobufMessageOf,
  goTypedView,
  omitEmptyGoCollections,
  withResourceVersion,
  noteStoredEncoding,
  takeStoredAnswer,
  dropStoredAnswer,
} from './protobuf/index.js';

export type { TableColumnDefinition, PrinterColumn, IncludeObject, TableVersion, TableRow, Table, TableOptions } from './table/index.js';
export {
  column,
  nameColumn,
  ageColumn,
  defaultColumns,
  countOf,
  buildTable,
  partialObjectMetadata,
  humanDuration,
  timestampSince,
} from './table/index.js';

export * as managedFields from './managed-fields/index.js';
export type { FieldManagerScope, ApplyOutcome, Atom } from './managed-fields/index.js';
export { FieldSet, schemaAtom, trackUpdate, trackUpdateSliced, applyConfiguration, applyConfigurationSliced, managerFromUserAgent, LAST_APPLIED_ANNOTATION } from './managed-fields/index.js';

export {
  applyJsonPatch,
  decodeJsonPatch,
  patchNotApplicable,
  applyMergePatch,
  strategicMergePatch,
  strategicMergePatchSliced,
  StrategicMergeError,
  findDuplicateFields,
  jsonStringEnd,
  goFormatValue,
  goFormatNumber,
  goTypeName,
} from './patch/index.js';

export type { PprofFrame, PprofSample, PprofProfile } from './pprof/index.js';
export { emptyPprof, pprofDelta, encodePprof, encodePprofProto, decodePprof } from './pprof/index.js';
