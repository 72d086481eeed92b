/**
 * Builders for `FieldError` (status.ts) that print the message exactly as kube's
 * field.Error does: `<Type text>[: <bad value>][: <detail>]`. Pure functions, no throwing.
 */
import type { FieldError } from './status.js';

/**
 * Prints a bad value as kube does: strings quoted Go-style (%q), numbers and booleans bare,
 * null/undefined as `null`, anything else as JSON.
 */
export function formatBadValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** Go's strconv.Quote for the common cases: printable text kept, control characters escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

function withDetail(body: string, detail: string | undefined): string {
  return detail ? `${body}: ${detail}` : body;
}

/** `Invalid value: <value>: <detail>` (FieldValueInvalid). */
export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: withDetail(`Invalid value: ${formatBadValue(value)}`, detail) };
}

/** `Required value[: <detail>]` (FieldValueRequired). */
export function fieldRequired(field: string, detail?: string): FieldError {
  return { type: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

/** `Forbidden[: <detail>]` (FieldValueForbidden). */
export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

/** `Unsupported value: <value>[: supported values: "a", "b"]` (FieldValueNotSupported). */
export function fieldNotSupported(field: string, value: unknown, valid: readonly string[]): FieldError {
  const detail = valid.length > 0 ? `supported values: ${valid.map((v) => goQuote(v)).join(', ')}` : undefined;
  return { type: 'FieldValueNotSupported', field, message: withDetail(`Unsupported value: ${formatBadValue(value)}`, detail) };
}

/**
 * `Too long: may not be more than <n> bytes` (FieldValueTooLong, kube 1.32's field.TooLong);
 * the value is never printed (also what 1.32's custom-resource schema validation prints for
 * `maxLength`). Pass `detail` to replace the default text.
 */
export function fieldTooLong(field: string, maxLength: number, detail?: string): FieldError {
  return { type: 'FieldValueTooLong', field, message: withDetail('Too long', detail ?? `may not be more than ${maxLength} bytes`) };
}

/** `Too many: <actual>: must have at most <max> items` (FieldValueTooMany; 1.32 says `items` for 1 too). */
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
  const body = actual >= 0 ? `Too many: ${actual}` : 'Too many';
  return { type: 'FieldValueTooMany', field, message: withDetail(body, detail) };
}

/** `Invalid value: <value>: <detail>` with cause type FieldValueTypeInvalid. */
export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, message: withDetail(`Invalid value: ${formatBadValue(value)}`, detail) };
}

/** `Duplicate value: <value>` (FieldValueDuplicate). */
export function fieldDuplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, message: `Duplicate value: ${formatBadValue(value)}` };
}

/** `Not found: <value>` (FieldValueNotFound). */
export function fieldNotFound(field: string, value: unknown): FieldError {
  return { type: 'FieldValueNotFound', field, message: `Not found: ${formatBadValue(value)}` };
}

/** `Internal error: <detail>` (InternalError). */
export function fieldInternalError(field: string, detail: string): FieldError {
  return { type: 'InternalError', field, message: withDetail('Internal error', detail) };
}

/** `<field>: <message>` — how one field error prints inside a larger message. */
export function formatFieldError(err: FieldError): string {
  return `${err.field}: ${err.message}`;
}

/**
 * Several errors as kube's aggregate prints them: one error alone, several as
 * `[a, b]`, duplicates removed.
 */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  const parts = [...new Set(errors.map(formatFieldError))];
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}

/**
 * Appends `more` to `errs` in a loop. Error lists grow with the body (one per bad label or
 * key), and `errs.push(...more)` passes each as an argument: past ~100,000 of them the call
 * overflows the stack.
 */
export function appendErrors<T>(errs: T[], more: readonly T[] | undefined): void {
  if (more !== undefined) for (const e of more) errs.push(e);
}
