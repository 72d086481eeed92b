/**
 * Writing responses: objects in the negotiated representation (JSON, YAML, protobuf, after a
 * Table/PartialObjectMetadata conversion), Status errors, plain text. Every response carries
 * a Content-Type; every JSON body the API writes carries kind and apiVersion (the callers
 * guarantee that for objects; errors are always full Status objects). Bodies of at least
 * 128 KiB are gzip-compressed when the client sends `Accept-Encoding: gzip` (kube's rule).
 */
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { GoYamlError, StatusError, goYamlMarshal, goYamlMarshalSliced, hasProtobuf, internalError, isStatusError, yieldBeforeLongStep } from '@kapi/machinery';
import { answerProtobufOf, listProtobuf, type BodyParts } from './encode-once.js';
import { MEDIA_TYPES, type Encoding, type OutputFormat } from './negotiation.js';
import { isList, transformResponse, type ResourceOutput } from './resource-output.js';
import { noteResponseObject } from '../audit/capture.js';

/** kube's defaultGzipThresholdBytes: smaller bodies are not worth compressing. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/**
 * JSON as it is; YAML as kube's (sigs.k8s.io/yaml: JSON → go-yaml v2 values → go-yaml v2's
 * emitter), byte for byte: see @kapi/machinery's goYamlMarshal. The value goes through JSON
 * first, so it is exactly what the JSON answer would hold.
 */
export function encode(value: unknown, format: OutputFormat): string {
  if (format === 'json') return JSON.stringify(value);
  return goYamlMarshal(JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * Formats a warning as an HTTP Warning header value: `299 - "<text>"` with quotes and
 * backslashes escaped. The text goes out as UTF-8 bytes, as Go writes it (Node writes a header
 * string as latin1 and throws on characters past U+00FF, which a warning that quotes a field
 * name from the request may hold); control characters, which Node refuses too, become spaces
 * (Go turns CR and LF into spaces as well).
 */
export function warningHeader(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is replaced
  const value = `299 - "${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');
  return Buffer.from(value, 'utf8').toString('latin1');
}

export interface WriteOptions {
  readonly warnings?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the Content-Type for the format (e.g. aggregated discovery). */
  readonly contentType?: string;
}

/** Whether `value` (a typed object, list or Status) has a protobuf encoding in kapi. */
function protobufEncodable(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false;
  return isList(value) ? hasProtobuf(apiVersion, kind.slice(0, -'List'.length)) : hasProtobuf(apiVersion, kind);
}

/**
 * The body bytes and Content-Type of `value` in `encoding`. A value protobuf cannot carry (a
 * kind without a message) falls back to JSON, as a client that accepts protobuf also
 * accepts JSON from kube's list of fallbacks.
 */
export function encodeBody(value: unknown, encoding: Encoding): { body: string | Buffer; contentType: string } {
  if (encoding === 'protobuf') {
    if (protobufEncodable(value)) return { body: isList(value) ? listProtobuf(value) : answerProtobufOf(value as object), contentType: MEDIA_TYPES.protobuf };
    return { body: JSON.stringify(value), contentType: MEDIA_TYPES.json };
  }
  return { body: encode(value, encoding), contentType: MEDIA_TYPES[encoding] };
}

/**
 * Writes `value` with the status code in the negotiated representation: an encoding, or a
 * resource output (encoding plus an optional conversion). No-op if the response was already sent.
 */
export function writeObject(res: ServerResponse, code: number, value: unknown, output: Encoding | ResourceOutput, options: WriteOptions = {}): void {
  if (res.headersSent || res.destroyed) return;
  noteResponseObject(res, value);
  const { encoding, transform } = typeof output === 'string' ? { encoding: output, transform: undefined } : output;
  const { body, contentType } = encodeBodyOrYamlError(transformResponse(value, transform), encoding);
  const answer = body instanceof GoYamlError ? yamlErrorAnswer(code, body) : { code, body, contentType };
  writeEncoded(res, answer.code, answer.body, encoding, { ...options, contentType: options.contentType ?? answer.contentType });
}

/** encodeBody, or the GoYamlError go-yaml fails with (then `body` is that error). */
function encodeBodyOrYamlError(value: unknown, encoding: Encoding): { body: string | Buffer | GoYamlError; contentType: string } {
  try {
    return encodeBody(value, encoding);
  } catch (err) {
    if (err instanceof GoYamlError) return { body: err, contentType: MEDIA_TYPES.yaml };
    throw err;
  }
}

/**
 * What kube-apiserver writes when YAML cannot carry its answer (sigs.k8s.io/yaml fails): the
 * error's Status instead, with its code (500) where the answer's was a success, the answer's
 * code otherwise (a 404 whose message go-yaml cannot write stays a 404).
 */
function yamlErrorAnswer(code: number, err: GoYamlError): { code: number; body: string; contentType: string } {
  return { code: code >= 200 && code < 400 ? err.code : code, body: goYamlMarshal(err.status), contentType: MEDIA_TYPES.yaml };
}

/** How deep isPlainJson looks before it gives up (and the value is copied through JSON). */
const PLAIN_JSON_DEPTH = 100;

/**
 * Whether `value` is made of plain objects, arrays, strings, finite numbers, booleans and
 * nulls only (with no toJSON): then the emitter writes it as it writes its JSON copy (it skips
 * undefined members and writes undefined items as null, as JSON does), and the copy, a
 * JSON.stringify and a JSON.parse of every string however long, can be skipped. A walk over
 * the tree's nodes, not over its text.
 */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth >= PLAIN_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  return Object.values(value).every((member) => isPlainJson(member, depth + 1));
}

/** `value` as JSON would carry it (what `encode` gives goYamlMarshal); a list item by item, in slices. */
async function jsonValueSliced(value: unknown): Promise<unknown> {
  const copy = (v: unknown): unknown => {
    const text = JSON.stringify(v);
    return text === undefined ? null : JSON.parse(text);
  };
  if (!isList(value)) return isPlainJson(value) ? value : copy(value);
  const { items, ...rest } = value;
  const head = copy(rest) as Record<string, unknown>;
  const plainItems: unknown[] = [];
  for (const item of items) {
    plainItems.push(copy(item));
    const later = yieldBeforeLongStep();
    if (later !== undefined) await later;
  }
  head['items'] = plainItems;
  return head;
}

/**
 * Writes `value` as YAML, the same bytes as writeObject's, encoded in slices of the event
 * loop (a list's JSON copy item by item, then the emitter in chunks), so that a large list or
 * object never holds the loop for the whole encoding. No-op if the response was already sent
 * (or is sent while it is being encoded: a timeout, a client gone).
 */
export async function writeYaml(res: ServerResponse, code: number, value: unknown, options: WriteOptions = {}): Promise<void> {
  if (res.headersSent || res.destroyed) return;
  noteResponseObject(res, value);
  let chunks: string[];
  try {
    chunks = await goYamlMarshalSliced(await jsonValueSliced(value));
  } catch (err) {
    if (!(err instanceof GoYamlError)) throw err;
    if (res.headersSent || res.destroyed) return;
    const answer = yamlErrorAnswer(code, err);
    writeEncoded(res, answer.code, answer.body, 'yaml', { ...options, contentType: options.contentType ?? MEDIA_TYPES.yaml });
    return;
  }
  if (res.headersSent || res.destroyed) return;
  let length = 0;
  for (const chunk of chunks) length += Buffer.byteLength(chunk);
  function* parts(): Generator<Buffer, void, undefined> {
    for (const chunk of chunks) yield Buffer.from(chunk);
  }
  writeEncoded(res, code, { parts: parts(), length }, 'yaml', { ...options, contentType: options.contentType ?? MEDIA_TYPES.yaml });
}

/** kube's negotiateContentEncoding: gzip when one comma-separated token of Accept-Encoding is exactly `gzip`. */
export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  return header.split(',').some((token) => token.trim() === 'gzip');
}

/**
 * Writes a body already encoded as `format` (one string or buffer, or parts written in
 * order). No-op if the response was already sent. Bodies
 * of GZIP_THRESHOLD_BYTES or more go out gzip-compressed (level 1, as kube) when the request
 * accepts gzip; headers are written at once either way.
 */
export function writeEncoded(res: ServerResponse, code: number, body: string | Buffer | BodyParts, format: Encoding, options: WriteOptions = {}): void {
  if (res.headersSent || res.destroyed) return;
  const parts = typeof body === 'string' || Buffer.isBuffer(body) ? undefined : body.parts;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : body.length;
  const headers: Record<string, string | string[]> = {
    'Content-Type': options.contentType ?? MEDIA_TYPES[format],
    'Cache-Control': 'no-cache, private',
    ...options.headers,
  };
  if (options.warnings !== undefined && options.warnings.length > 0) {
    headers['Warning'] = [...new Set(options.warnings)].map(warningHeader);
  }
  const gzip = length >= GZIP_THRESHOLD_BYTES && acceptsGzip(res.req?.headers['accept-encoding']);
  if (!gzip) {
    headers['Content-Length'] = String(length);
    res.writeHead(code, headers);
    if (parts === undefined) {
      // Bytes, not a string: Node sends the header block together with a string body in the
      // body's encoding (UTF-8), but alone as latin1 otherwise; header values (warningHeader)
      // are written for latin1.
      res.end(typeof body === 'string' ? Buffer.from(body) : body);
      return;
    }
    writeParts(res, parts);
    return;
  }
  headers['Content-Encoding'] = 'gzip';
  headers['Vary'] = headers['Vary'] === undefined ? 'Accept-Encoding' : ['Accept-Encoding', headers['Vary']].flat();
  res.writeHead(code, headers);
  const compressor = createGzip({ level: 1 });
  compressor.on('error', () => res.destroy());
  res.on('close', () => compressor.destroy());
  compressor.pipe(res);
  if (parts === undefined) {
    compressor.end(body);
    return;
  }
  const joined = typeof body === 'object' && !Buffer.isBuffer(body) ? body.joined : undefined;
  if (joined !== undefined) compressor.end(joined());
  else writeParts(compressor, parts);
}

/**
 * Writes `parts` in order and ends `dest`, taking the next part only while `dest` accepts
 * more (after 'drain' otherwise), so a slow reader holds a chunk or two, not the whole body.
 * Stops when `dest` is destroyed (client gone).
 */
function writeParts(dest: Pick<Writable, 'write' | 'end' | 'once' | 'destroyed'>, parts: Iterable<Buffer>): void {
  const iterator = parts[Symbol.iterator]();
  const next = (): void => {
    for (;;) {
      if (dest.destroyed) return;
      const part = iterator.next();
      if (part.done === true) {
        dest.end();
        return;
      }
      if (!dest.write(part.value)) {
        dest.once('drain', next);
        return;
      }
    }
  };
  next();
}

/** Writes plain text (health checks, the metrics exposition). */
export function writeText(res: ServerResponse, code: number, text: string, contentType = 'text/plain; charset=utf-8', headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(text);
}

/** The StatusError for any thrown value: StatusErrors as they are, anything else as 500 InternalError. */
export function toStatusError(err: unknown): StatusError {
  return isStatusError(err) ? err : internalError(err);
}

/** A Status whose message is longer than this (characters) is written as a long step (writeError). */
const LONG_MESSAGE_CHARS = 64 * 1024;

/**
 * Writes a Status error (with its extra headers, e.g. Retry-After) in the negotiated encoding:
 * at once (undefined), unless its message is long (one that quotes a large input, such as a
 * megabyte that is no timestamp). Then YAML is written in slices of the event loop as
 * writeYaml writes, and JSON or protobuf in one step that starts a fresh slice (the failed
 * decode before it may have used the turn's); the promise settles once the answer is
 * written, and rejects where writeObject would throw (a header Node refuses).
 */
export function writeError(res: ServerResponse, err: StatusError, format: Encoding, warnings?: readonly string[]): Promise<void> | undefined {
  const options: WriteOptions = { headers: { ...err.headers }, ...(warnings !== undefined ? { warnings } : {}) };
  if ((err.status.message?.length ?? 0) <= LONG_MESSAGE_CHARS) {
    writeObject(res, err.code, err.status, format, options);
    return undefined;
  }
  if (format === 'yaml') return writeYaml(res, err.code, err.status, options);
  return (async () => {
    await yieldBeforeLongStep();
    writeObject(res, err.code, err.status, format, options);
  })();
}
