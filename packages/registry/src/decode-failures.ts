/**
 * How each kind of write reports a body it cannot decode, in kube's words. Two problems are
 * reported this way: strict field validation (unknown or duplicate fields under
 * `fieldValidation=Strict`, unknown-fields.ts) and a value the kind's Go type cannot hold
 * (typed-body.ts). kube decodes the body of a POST or PUT, but the *result* of a patch:
 *
 * - POST, PUT: 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: <detail>` (for
 *   strict problems the detail is `strict decoding error: unknown field "a"`).
 * - JSON, merge and strategic merge patches: 422 against the patched object,
 *   ` "" is invalid: patch: Invalid value: "<patched object>": <detail>` (for a strategic
 *   merge patch the patch itself, printed as Go's %v of the decoded patch). kube converts a
 *   strategic merge patch's result from a map rather than from JSON, so its detail for a
 *   type mismatch differs (`cannot convert int64 to string`) and it wraps an out-of-range
 *   integer silently; kapi gives the JSON decoder's detail and refuses the value.
 * - apply: strict problems as a patch; an undecodable result 400
 *   `failed to convert new object (<ns>/<name>; <gvk>) to proper version: unable to convert unstructured object to <gvk>: <detail>`
 *   (kube answers that text with a 500; kapi with a 400, as for the other conversion
 *   failures of an apply).
 */
import { StatusError, badRequest } from '@kapi/machinery';
import { cannotBeHandled, type ExpectedKind } from './decode-body.js';
import type { StrictErrorFactory } from './unknown-fields.js';

export interface DecodeFailures {
  /** The Strict field-validation failure for `strict decoding error: ...`. */
  readonly strict: StrictErrorFactory;
  /** The failure for a value the kind's Go type cannot hold (`detail` is Go's decoder error). */
  readonly undecodable: (detail: string) => StatusError;
}

/** POST and PUT: both 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: <detail>`. */
export function requestBodyFailures(expected: ExpectedKind): DecodeFailures {
  const failure = (detail: string) => cannotBeHandled(expected, detail);
  return { strict: failure, undecodable: failure };
}

/** kube's 422 for a patch whose result does not decode; `rendered` is the patched object (or the patch) as kube prints it. */
export function patchResultError(rendered: string): StrictErrorFactory {
  return (detail) => {
    const message = `Invalid value: ${JSON.stringify(rendered)}: ${detail}`;
    return new StatusError({
      code: 422,
      reason: 'Invalid',
      message: ` "" is invalid: patch: ${message}`,
      details: { name: '', group: '', kind: '', causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] },
    });
  };
}

/** JSON, merge and strategic merge patches: both 422 against `rendered`. */
export function patchResultFailures(rendered: string): DecodeFailures {
  const failure = patchResultError(rendered);
  return { strict: failure, undecodable: failure };
}

/** The object an apply is about, as its conversion errors name it. */
export interface ApplyTarget {
  readonly namespace: string;
  readonly name: string;
  readonly expected: ExpectedKind;
}

/** `group/version, Kind=Kind` (core: `/v1, Kind=ConfigMap`), as Go prints a GroupVersionKind. */
export function goGroupVersionKind(expected: ExpectedKind): string {
  return `${expected.group}/${expected.version}, Kind=${expected.kind}`;
}

/** apply: strict problems 422 against the patched object (`rendered`), an undecodable result 400. */
export function applyFailures(rendered: string, target: ApplyTarget): DecodeFailures {
  const gvk = goGroupVersionKind(target.expected);
  return {
    strict: patchResultError(rendered),
    undecodable: (detail) =>
      badRequest(`failed to convert new object (${target.namespace}/${target.name}; ${gvk}) to proper version: unable to convert unstructured object to ${gvk}: ${detail}`),
  };
}
