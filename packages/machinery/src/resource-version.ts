/**
 * resourceVersion parsing and list/watch option validation, with kube's messages
 * (apiserver storage versioner; apimachinery meta/internalversion/validation).
 */
import { fieldForbidden, fieldInvalid, fieldNotSupported, formatFieldErrors } from './field-error.js';
import type { FieldError } from './status.js';
import { badRequest, invalid } from './status.js';

const MAX_UINT64 = 18446744073709551615n;

/**
 * Parses a resourceVersion: `""`, `"0"` and undefined are 0. Anything that is not an
 * unsigned 64-bit decimal throws a 400 BadRequest StatusError:
 * `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`.
 * Values above 2^53 lose precision (etcd revisions never get there).
 */
export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  let reason: string | undefined;
  if (!/^[0-9]+$/.test(rv)) reason = 'invalid syntax';
  else if (BigInt(rv) > MAX_UINT64) reason = 'value out of range';
  if (reason !== undefined) {
    const detail = formatFieldErrors([fieldInvalid('resourceVersion', rv, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${reason}`)]);
    throw badRequest(`invalid resource version: ${detail}`);
  }
  return Number(rv);
}

export interface ListOptionsToValidate {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  continue?: string;
  limit?: number;
  watch?: boolean;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  /** Whether the server serves WatchList (`sendInitialEvents` on watch). Default true (kube 1.32). */
  watchListEnabled?: boolean;
}

export const RESOURCE_VERSION_MATCH_EXACT = 'Exact';
export const RESOURCE_VERSION_MATCH_NOT_OLDER_THAN = 'NotOlderThan';

const LIST_OPTIONS_KIND = { group: 'meta.k8s.io', kind: 'ListOptions' };

function listErrors(opts: ListOptionsToValidate): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch ?? '';
  if (match !== '') {
    if ((opts.resourceVersion ?? '') === '') {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if ((opts.continue ?? '') !== '') {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    if (match !== RESOURCE_VERSION_MATCH_EXACT && match !== RESOURCE_VERSION_MATCH_NOT_OLDER_THAN) {
      errs.push(fieldNotSupported('resourceVersionMatch', match, [RESOURCE_VERSION_MATCH_EXACT, RESOURCE_VERSION_MATCH_NOT_OLDER_THAN, '']));
    }
    if (match === RESOURCE_VERSION_MATCH_EXACT && opts.resourceVersion === '0') {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) {
    errs.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  return errs;
}

function watchErrors(opts: ListOptionsToValidate): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch ?? '';
  if (opts.sendInitialEvents !== undefined) {
    if (match !== RESOURCE_VERSION_MATCH_NOT_OLDER_THAN) {
      errs.push(fieldForbidden('resourceVersionMatch', `sendInitialEvents requires setting resourceVersionMatch to ${RESOURCE_VERSION_MATCH_NOT_OLDER_THAN}`));
    }
    if (opts.watchListEnabled === false) {
      errs.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
    }
  }
  if (match !== '') {
    if (opts.sendInitialEvents === undefined) {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== RESOURCE_VERSION_MATCH_NOT_OLDER_THAN) {
      errs.push(fieldNotSupported('resourceVersionMatch', match, [RESOURCE_VERSION_MATCH_NOT_OLDER_THAN]));
    }
    if ((opts.continue ?? '') !== '') {
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  }
  return errs;
}

/**
 * Validates list/watch options as kube does before touching storage. Throws a 422 Invalid
 * StatusError (`ListOptions.meta.k8s.io "" is invalid: ...`) for option combinations kube
 * rejects, then, for lists, a 400 BadRequest `specifying resource version is not allowed
 * when using continue` when `continue` comes with a resourceVersion other than ""/"0".
 * Does not parse the resourceVersion itself (see parseResourceVersion).
 */
export function validateListOptions(opts: ListOptionsToValidate): void {
  const errs = opts.watch === true ? watchErrors(opts) : listErrors(opts);
  if (errs.length > 0) throw invalid(LIST_OPTIONS_KIND, '', errs);
  if (opts.watch !== true && (opts.continue ?? '') !== '') {
    const rv = opts.resourceVersion ?? '';
    if (rv !== '' && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
  }
}
