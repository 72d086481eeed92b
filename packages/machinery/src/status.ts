/**
 * API errors as kube-apiserver reports them: every failure becomes a `Status` object with
 * the code, reason, message and details clients match on. The wire strings live here and
 * nowhere else; callers build errors through the constructors below.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  /** kube 1.32: a list met stored values it cannot read (AllowUnsafeMalformedObjectDeletion). */
  | 'StorageReadError'
  | '';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string; resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/**
 * `details` as Go encodes metav1.StatusDetails: every field is omitempty, so empty strings,
 * an empty cause list and a zero retry delay are left out (the object itself stays, `{}`).
 */
export function compactDetails(details: StatusDetails): StatusDetails {
  return {
    ...(details.name ? { name: details.name } : {}),
    ...(details.group ? { group: details.group } : {}),
    ...(details.kind ? { kind: details.kind } : {}),
    ...(details.uid ? { uid: details.uid } : {}),
    ...(details.causes !== undefined && details.causes.length > 0 ? { causes: details.causes } : {}),
    ...(details.retryAfterSeconds ? { retryAfterSeconds: details.retryAfterSeconds } : {}),
  };
}

/** A group and plural resource, printed as kube prints `qualifiedResource`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function formatGroupResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** An error that carries the `Status` to send. Thrown anywhere; rendered once at the HTTP edge. */
export class StatusError extends Error {
  readonly status: Status;
  /** Extra response headers (for example Retry-After). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'> & { metadata?: Status['metadata'] }, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? 'unknown error');
    this.name = 'StatusError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: status.metadata ?? {},
      status: 'Failure',
      ...(status.message !== undefined ? { message: status.message } : {}),
      ...(status.reason !== undefined ? { reason: status.reason } : {}),
      ...(status.details !== undefined ? { details: compactDetails(status.details) } : {}),
      code: status.code,
    };
    this.headers = headers;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

function reasonOf(err: unknown): StatusReason | undefined {
  return isStatusError(err) ? err.reason : undefined;
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound';
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict';
export const isInvalid = (err: unknown): boolean => reasonOf(err) === 'Invalid';
export const isBadRequest = (err: unknown): boolean => reasonOf(err) === 'BadRequest';
export const isExpired = (err: unknown): boolean => reasonOf(err) === 'Expired' || reasonOf(err) === 'Gone';

export const OPTIMISTIC_LOCK_ERROR_MSG =
  'the object has been modified; please apply your changes to the latest version and try again';

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 404,
    reason: 'NotFound',
    message: `${formatGroupResource(gr)} "${name}" not found`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    message: `${formatGroupResource(gr)} "${name}" already exists`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}

/** The 409 for a generateName collision; clients retry after the given seconds. */
export function generateNameConflict(gr: GroupResource, name: string, retryAfterSeconds = 1): StatusError {
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    message: `${formatGroupResource(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    details: { name, group: gr.group, kind: gr.resource, retryAfterSeconds },
  });
}

export function conflict(gr: GroupResource, name: string, detail: string): StatusError {
  return new StatusError({
    code: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${formatGroupResource(gr)} "${name}": ${detail}`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}

/** The optimistic-concurrency 409 clients retry on. */
export function optimisticLockConflict(gr: GroupResource, name: string): StatusError {
  return conflict(gr, name, OPTIMISTIC_LOCK_ERROR_MSG);
}

export interface GroupKind {
  group: string;
  kind: string;
}

/** A field-level failure, as kube's field.Error. `type` is the cause reason on the wire. */
export interface FieldError {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueTypeInvalid'
    | 'FieldValueNotFound'
    | 'InternalError';
  field: string;
  /** The message after the field path, e.g. `Invalid value: "x": must be ...`. */
  message: string;
}

/**
 * 422 Invalid. `details.kind` holds the Kind (not the resource). One error prints without
 * brackets; several print as a bracketed, comma-joined list, as kube does.
 */
export function invalid(gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  const qualifiedKind = gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
  const parts = dedupe(errors.map((e) => `${e.field}: ${e.message}`));
  const tail = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    message: `${qualifiedKind} "${name}" is invalid: ${tail}`,
    details: {
      name,
      group: gk.group,
      kind: gk.kind,
      causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
    },
  });
}

function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}

export function badRequest(message: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message });
}

export function methodNotAllowed(verb: string, gr: GroupResource): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: `${verb} is not supported on resources of kind "${formatGroupResource(gr)}"`,
    details: { group: gr.group, kind: gr.resource },
  });
}

export function notAcceptable(message: string): StatusError {
  return new StatusError({ code: 406, reason: 'NotAcceptable', message });
}

export function unsupportedMediaType(message: string): StatusError {
  return new StatusError({ code: 415, reason: 'UnsupportedMediaType', message });
}

export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError({ code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: ${message}` });
}

export function expired(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Expired', message });
}

export function internalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    message: `Internal error occurred: ${text}`,
    details: { causes: [{ message: text }] },
  });
}

/** 504 Timeout: `Timeout: <msg>`. */
export function timeout(message: string, retryAfterSeconds?: number): StatusError {
  return new StatusError({
    code: 504,
    reason: 'Timeout',
    message: `Timeout: ${message}`,
    ...(retryAfterSeconds !== undefined ? { details: { retryAfterSeconds } } : {}),
  });
}

/** 504 for a resourceVersion the server has not reached yet; client-go retries it. */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(
    {
      code: 504,
      reason: 'Timeout',
      message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
    },
    { 'Retry-After': '1' },
  );
}

/** 500 ServerTimeout: the operation could not be completed at this time. */
export function serverTimeout(gr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 500,
    reason: 'ServerTimeout',
    message: `The ${operation} operation against ${formatGroupResource(gr)} could not be completed at this time, please try again.`,
    details: { name: operation, group: gr.group, kind: gr.resource, retryAfterSeconds },
  });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message });
}

/** A success Status has no `code` on the wire (kube leaves it 0, omitted). */
export type SuccessStatus = Omit<Status, 'code'>;

/** A `Status` with status Success, as DELETE returns for resources that do not return the object. */
export function successStatus(details?: StatusDetails): SuccessStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    ...(details !== undefined ? { details: compactDetails(details) } : {}),
  };
}

/**
 * 429 TooManyRequests with Retry-After, the message as given (kube's NewTooManyRequests, which
 * its cacher answers while a cache initializes: `storage is (re)initializing`).
 */
export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(
    {
      code: 429,
      reason: 'TooManyRequests',
      message,
      details: { retryAfterSeconds },
    },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/** 403 Forbidden: `<resource> "<name>" is forbidden: <msg>`. */
export function forbidden(gr: GroupResource, name: string, message: string): StatusError {
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    message: `${formatGroupResource(gr)} "${name}" is forbidden: ${message}`,
    details: { name, group: gr.group, kind: gr.resource },
  });
}
