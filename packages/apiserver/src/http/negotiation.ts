/**
 * Media-type negotiation as kube-apiserver does it: which encoding a response uses (Accept,
 * with q-values, wildcards and ordered fallbacks), which conversion it asks for (`as=Table`,
 * `as=PartialObjectMetadata[List]` with `g=meta.k8s.io;v=v1|v1beta1`), and how a request body
 * is decoded (Content-Type, parameters such as charset ignored).
 */
import { notAcceptable, StatusError, unsupportedMediaType } from '@kapi/machinery';

/** Text encodings: non-resource endpoints (discovery, version, OpenAPI) and body parsing. */
export type OutputFormat = 'json' | 'yaml';
/** Every encoding a resource response can have. */
export type Encoding = OutputFormat | 'protobuf';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

export const MEDIA_TYPES: Readonly<Record<Encoding, string>> = { json: JSON_MEDIA_TYPE, yaml: YAML_MEDIA_TYPE, protobuf: PROTOBUF_MEDIA_TYPE };

/** kube's serializers in its order (the first is the default for an empty Accept or Content-Type). */
const ENCODINGS: readonly Encoding[] = ['json', 'yaml', 'protobuf'];
/** Encodings with a watch (stream) serializer. */
const STREAM_ENCODINGS: ReadonlySet<Encoding> = new Set(['json', 'protobuf']);

export const SERVED_MEDIA_TYPES = [JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE] as const;

export interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
}

/**
 * Parses an Accept header into media ranges sorted as kube's goautoneg sorts them: higher q
 * first, then concrete types before wildcards; ties keep header order. Malformed entries and
 * q=0 are skipped.
 */
export function parseAccept(header: string): readonly MediaRange[] {
  // Clients send the same few headers on every request: parse each once.
  if (header.length > 256) return parseAcceptUncached(header);
  let parsed = parsedAccept.get(header);
  if (parsed === undefined) {
    parsed = Object.freeze(parseAcceptUncached(header));
    if (parsedAccept.size >= PARSED_ACCEPT_LIMIT) parsedAccept.clear();
    parsedAccept.set(header, parsed);
  }
  return parsed;
}

const PARSED_ACCEPT_LIMIT = 256;
const parsedAccept = new Map<string, readonly MediaRange[]>();

function parseAcceptUncached(header: string): MediaRange[] {
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
  const rank = (r: MediaRange) => (r.type === '*' ? 2 : r.subtype === '*' ? 1 : 0);
  return ranges
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.q - a.r.q || rank(a.r) - rank(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

function formatFor(range: MediaRange): OutputFormat | undefined {
  const { type, subtype } = range;
  if (type === '*' && subtype === '*') return 'json';
  if (type !== 'application') return undefined;
  if (subtype === '*' || subtype === 'json') return 'json';
  if (subtype === 'yaml') return 'yaml';
  return undefined;
}

export function notAcceptableError(accepted: readonly string[] = SERVED_MEDIA_TYPES): Error {
  return notAcceptable(`only the following media types are accepted: ${accepted.join(', ')}`);
}

/**
 * The text encoding of a non-resource response (discovery, version, OpenAPI): JSON when the
 * Accept header is absent or empty. Throws 406 NotAcceptable when nothing listed can be served.
 */
export function negotiateOutput(accept: string | undefined): OutputFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  if (accept === JSON_MEDIA_TYPE) return 'json';
  for (const range of parseAccept(accept)) {
    const format = formatFor(range);
    if (format !== undefined) return format;
  }
  throw notAcceptableError();
}

/** A conversion the client asked for with `as`, `g` and `v`. */
export interface ConversionTarget {
  readonly kind: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  readonly version: 'v1' | 'v1beta1';
}

/** The negotiated representation of a resource response. */
export interface NegotiatedMedia {
  readonly encoding: Encoding;
  readonly target?: ConversionTarget;
}

export interface ResourceCapabilities {
  /** The resource's kinds have protobuf messages (built-ins yes; custom resources no, as in kube). */
  readonly protobuf: boolean;
  /**
   * Served by a go-restful route in kube (built-in kinds; custom resources have a plain
   * handler): an Accept header none of whose types the route produces is refused by
   * go-restful itself, with its own 406 text, before kube's negotiation runs.
   */
  readonly goRestful?: boolean;
}

/** go-restful's 406 for an Accept header a route does not produce (as kube turns it into a Status). */
export function routeNotAcceptable(produced: readonly string[]): StatusError {
  return new StatusError({ code: 406, reason: 'NotAcceptable', message: `406: Not Acceptable\n\nAvailable representations: ${produced.join(', ')}`, details: {} });
}

/** go-restful's 415 for a Content-Type a route does not consume. */
export function routeUnsupportedMediaType(): StatusError {
  return new StatusError({ code: 415, reason: 'UnsupportedMediaType', message: '415: Unsupported Media Type', details: {} });
}

function typeMatches(range: MediaRange, mediaType: string): boolean {
  const [type, subtype] = mediaType.split('/') as [string, string];
  return (range.type === type && (range.subtype === subtype || range.subtype === '*')) || (range.type === '*' && range.subtype === '*');
}

/**
 * kube's acceptMediaTypeOptions + the resource endpoint's restrictions for one clause and
 * one serializer: undefined when the clause's parameters rule the serializer out (an unknown
 * conversion, Table as protobuf, a stream other than watch or on a serializer without one).
 */
function acceptClause(range: MediaRange, encoding: Encoding): NegotiatedMedia | undefined {
  const { as, g, v, stream } = range.params;
  if (stream !== undefined && stream !== '' && (stream !== 'watch' || !STREAM_ENCODINGS.has(encoding))) return undefined;
  if (as === undefined && g === undefined && v === undefined) return { encoding };
  if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) return undefined;
  switch (as) {
    case 'Table':
      return encoding === 'protobuf' ? undefined : { encoding, target: { kind: 'Table', version: v } };
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return { encoding, target: { kind: as, version: v } };
    default:
      return undefined;
  }
}

/**
 * The representation of a resource response: the first Accept clause (in goautoneg order)
 * that one of kube's serializers (JSON, YAML, protobuf — in that order for wildcards)
 * accepts with its parameters. An absent Accept means JSON. Throws 406 NotAcceptable
 * `only the following media types are accepted: application/json, application/yaml,
 * application/vnd.kubernetes.protobuf` when no clause fits.
 */
export function negotiateResourceMedia(accept: string | undefined, capabilities: ResourceCapabilities): NegotiatedMedia {
  const encodings = capabilities.protobuf ? ENCODINGS : ENCODINGS.filter((e) => e !== 'protobuf');
  if (accept === undefined || accept.trim() === '' || accept === JSON_MEDIA_TYPE) return { encoding: 'json' };
  for (const range of parseAccept(accept)) {
    for (const encoding of encodings) {
      if (!typeMatches(range, MEDIA_TYPES[encoding])) continue;
      const accepted = acceptClause(range, encoding);
      if (accepted !== undefined) return accepted;
    }
  }
  const produced = encodings.map((e) => MEDIA_TYPES[e]);
  if (capabilities.goRestful === true && !parseAccept(accept).some((range) => produced.some((type) => typeMatches(range, type) || (range.type === type.split('/')[0] && range.subtype === '*')))) {
    throw routeNotAcceptable(produced);
  }
  throw notAcceptableError(produced);
}

/**
 * The media type list of kube's 406 for a watch whose negotiated serializer cannot stream
 * (YAML): `application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch`.
 */
export function streamMediaTypes(capabilities: ResourceCapabilities): string[] {
  return [...STREAM_ENCODINGS].filter((e) => capabilities.protobuf || e !== 'protobuf').map((e) => `${MEDIA_TYPES[e]};stream=watch`);
}

/** Whether an encoding can carry a watch stream. */
export function canStream(encoding: Encoding): boolean {
  return STREAM_ENCODINGS.has(encoding);
}

/**
 * The encoding of an error response, never throwing: JSON when nothing fits. Resource
 * requests may get a protobuf Status (as kube answers protobuf clients); other paths answer
 * in JSON or YAML.
 */
export function outputForErrors(accept: string | undefined, resourceRequest = false): Encoding {
  try {
    return negotiateResourceMedia(accept, { protobuf: resourceRequest }).encoding;
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
 * Content-Type is absent, else by its media type (parameters such as charset ignored).
 * Throws 415 listing the accepted types otherwise (protobuf only where the resource has it).
 */
export function negotiateInput(contentType: string | undefined, capabilities: ResourceCapabilities = { protobuf: false }): Encoding {
  const base = baseMediaType(contentType);
  if (base === '' || base === JSON_MEDIA_TYPE) return 'json';
  if (base === YAML_MEDIA_TYPE) return 'yaml';
  if (base === PROTOBUF_MEDIA_TYPE && capabilities.protobuf) return 'protobuf';
  throw unsupportedBody(capabilities.protobuf ? SERVED_MEDIA_TYPES : [JSON_MEDIA_TYPE, YAML_MEDIA_TYPE]);
}
