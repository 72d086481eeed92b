/**
 * Media-type negotiation: which encoding a response uses (Accept) and how a request body is
 * decoded (Content-Type). JSON and YAML are served; protobuf and Table are later issues, so
 * an Accept list that also names JSON (or `*\/*`) gets JSON.
 */
import { notAcceptable, unsupportedMediaType } from '@kapi/machinery';

export type OutputFormat = 'json' | 'yaml';

export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
}

export const SERVED_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;

/** Parses an Accept header into media ranges, highest q first (stable for ties). Malformed entries are skipped. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [typePart, ...paramParts] = part.split(';');
    const full = (typePart ?? '').trim().toLowerCase();
    const slash = full.indexOf('/');
    if (slash <= 0 || slash === full.length - 1) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? n : 0;
      } else params[key] = value;
    }
    if (q <= 0) continue;
    ranges.push({ type: full.slice(0, slash), subtype: full.slice(slash + 1), params, q });
  }
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(({ r }) => r);
}

function formatFor(range: MediaRange): OutputFormat | undefined {
  const { type, subtype } = range;
  if (type === '*' && subtype === '*') return 'json';
  if (type !== 'application') return undefined;
  if (subtype === '*' || subtype === 'json') return 'json';
  if (subtype === 'yaml') return 'yaml';
  return undefined;
}

const NOT_ACCEPTABLE_MESSAGE = `only the following media types are accepted: ${SERVED_MEDIA_TYPES.join(', ')}`;

/**
 * The response encoding for an Accept header: JSON when absent or empty. Throws 406
 * NotAcceptable (`only the following media types are accepted: ...`) when nothing listed can
 * be served.
 */
export function negotiateOutput(accept: string | undefined): OutputFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  if (accept === 'application/json') return 'json';
  for (const range of parseAccept(accept)) {
    const format = formatFor(range);
    if (format !== undefined) return format;
  }
  throw notAcceptable(NOT_ACCEPTABLE_MESSAGE);
}

/** Like negotiateOutput, but never throws (used to encode errors): JSON when nothing fits. */
export function outputForErrors(accept: string | undefined): OutputFormat {
  try {
    return negotiateOutput(accept);
  } catch {
    return 'json';
  }
}

/** The media type without parameters, lower-cased (`application/json; charset=utf-8` → `application/json`). */
export function baseMediaType(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** kube's 415 text for a body in a format outside `accepted`. */
export function unsupportedBody(accepted: readonly string[]): Error {
  return unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/**
 * The decoder for an object body (create, update, delete options): JSON when the
 * Content-Type is absent or JSON, YAML for `application/yaml`. Throws 415 otherwise
 * (protobuf included, until it is supported).
 */
export function negotiateInput(contentType: string | undefined): OutputFormat {
  const base = baseMediaType(contentType);
  if (base === '' || base === 'application/json') return 'json';
  if (base === 'application/yaml') return 'yaml';
  throw unsupportedBody(SERVED_MEDIA_TYPES);
}
