/**
 * Serves `/openapi/v3` (the index) and `/openapi/v3/<gv>` documents with kube's caching:
 * a request carrying the current `hash` is immutable for a year; a stale hash is a 301 to
 * the current URL; every document has an ETag honoured by If-None-Match. The index is
 * served as kube serves it (http.ServeContent): whatever the Accept header, no ETag, and the
 * type Go sniffs from JSON text, `text/plain; charset=utf-8`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { notAcceptable } from '@kapi/machinery';
import type { ApiSurface, CachedDocument } from '../api-surface.js';
import { parseAccept } from '../http/negotiation.js';
import { writeEncoded } from '../http/respond.js';

const YEAR_MS = 365 * 24 * 3600 * 1000;

function acceptsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === '') return true;
  return parseAccept(accept).some((r) => (r.type === '*' && r.subtype === '*') || (r.type === 'application' && (r.subtype === '*' || r.subtype === 'json')));
}

function send(req: IncomingMessage, res: ServerResponse, doc: CachedDocument, cacheHeaders: Record<string, string>): void {
  const etag = `"${doc.hash}"`;
  const headers = { ETag: etag, Vary: 'Accept', ...cacheHeaders };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(doc.body)) });
  res.end(doc.body);
}

function sendIndex(res: ServerResponse, index: CachedDocument): void {
  res.writeHead(200, { 'Cache-Control': 'no-cache, private', 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(index.body)) });
  res.end(index.body);
}

/** `key` is the path after `/openapi/v3/` ("" for the index). A bare 404 for unknown documents; throws 406 for a document without JSON in Accept. */
export async function serveOpenApiV3(req: IncomingMessage, res: ServerResponse, surface: ApiSurface, key: string, query: URLSearchParams): Promise<void> {
  if (key === '') return sendIndex(res, await surface.openapiIndex());
  if (!acceptsJson(req)) throw notAcceptable('only the following media types are accepted: application/json');
  const doc = surface.openapi(key);
  if (doc === undefined) {
    // kube's OpenAPI v3 handler answers an unknown document with a bare 404: no body, no type.
    res.writeHead(404, { 'Content-Length': '0' });
    res.end();
    return;
  }
  const hash = query.get('hash');
  if (hash === null || hash === '') return send(req, res, doc, { 'Cache-Control': 'no-cache, private' });
  if (hash !== doc.hash) {
    res.writeHead(301, { Location: `/openapi/v3/${key}?hash=${doc.hash}`, 'Content-Length': '0' });
    res.end();
    return;
  }
  send(req, res, doc, { 'Cache-Control': 'public, immutable', Expires: new Date(Date.now() + YEAR_MS).toUTCString() });
}

/** The protobuf form's media type: client-go asks with `@v1.0`, kube answers with `.v1.0`. */
export const SWAGGER_PROTOBUF_MEDIA_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const SWAGGER_PROTOBUF_SUBTYPES = ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'];

/** JSON or protobuf by the first Accept clause that names one (no Accept: JSON); undefined: 406. */
function swaggerFormat(accept: string | undefined): 'json' | 'protobuf' | undefined {
  if (accept === undefined || accept.trim() === '') return 'json';
  for (const r of parseAccept(accept)) {
    if (r.type !== 'application' && r.type !== '*') continue;
    if (r.subtype === '*' || r.subtype === 'json') return 'json';
    if (r.type === 'application' && SWAGGER_PROTOBUF_SUBTYPES.includes(r.subtype)) return 'protobuf';
  }
  return undefined;
}

/**
 * Serves `/openapi/v2` as kube's OpenAPI v2 handler does: JSON or gnostic protobuf by Accept
 * (406 with an empty body for anything else), for any method; ETag (the JSON's hash, for both
 * forms) and Last-Modified, honouring If-None-Match with a 304; gzip as every large answer.
 */
export async function serveOpenApiV2(req: IncomingMessage, res: ServerResponse, surface: ApiSurface): Promise<void> {
  const format = swaggerFormat(req.headers.accept);
  if (format === undefined) {
    res.writeHead(406, { 'Cache-Control': 'no-cache, private', Vary: 'Accept', 'Content-Length': '0' });
    res.end();
    return;
  }
  const doc = await surface.swagger();
  const etag = `"${doc.json.hash}"`;
  const headers = { ETag: etag, 'Last-Modified': doc.built.toUTCString(), Vary: 'Accept', 'Accept-Ranges': 'bytes' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ...headers, 'Cache-Control': 'no-cache, private' });
    res.end();
    return;
  }
  const body = format === 'json' ? doc.json.body : doc.protobuf;
  if (req.method === 'HEAD') {
    res.writeHead(200, { ...headers, 'Cache-Control': 'no-cache, private', 'Content-Type': format === 'json' ? 'application/json' : SWAGGER_PROTOBUF_MEDIA_TYPE });
    res.end();
    return;
  }
  writeEncoded(res, 200, body, 'json', { contentType: format === 'json' ? 'application/json' : SWAGGER_PROTOBUF_MEDIA_TYPE, headers });
}
