/**
 * Writing responses: objects in the negotiated encoding, Status errors, plain text. Every
 * JSON body the API writes carries kind and apiVersion (the callers guarantee that for
 * objects; errors are always full Status objects).
 */
import type { ServerResponse } from 'node:http';
import { stringify as stringifyYaml } from 'yaml';
import { StatusError, internalError, isStatusError } from '@kapi/machinery';
import type { OutputFormat } from './negotiation.js';

const CONTENT_TYPES: Record<OutputFormat, string> = { json: 'application/json', yaml: 'application/yaml' };

export function encode(value: unknown, format: OutputFormat): string {
  return format === 'json' ? JSON.stringify(value) : stringifyYaml(value, { aliasDuplicateObjects: false });
}

/** Formats a warning as an HTTP Warning header value: `299 - "<text>"` with quotes and backslashes escaped. */
export function warningHeader(text: string): string {
  return `299 - "${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}"`;
}

export interface WriteOptions {
  readonly warnings?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the Content-Type for the format (e.g. aggregated discovery). */
  readonly contentType?: string;
}

/** Writes `value` encoded as `format` with the status code. No-op if the response was already sent. */
export function writeObject(res: ServerResponse, code: number, value: unknown, format: OutputFormat, options: WriteOptions = {}): void {
  if (res.headersSent || res.destroyed) return;
  writeEncoded(res, code, encode(value, format), format, options);
}

/** Writes a body already encoded as `format`. No-op if the response was already sent. */
export function writeEncoded(res: ServerResponse, code: number, body: string, format: OutputFormat, options: WriteOptions = {}): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | string[]> = {
    'Content-Type': options.contentType ?? CONTENT_TYPES[format],
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-cache, private',
    ...options.headers,
  };
  if (options.warnings !== undefined && options.warnings.length > 0) {
    headers['Warning'] = [...new Set(options.warnings)].map(warningHeader);
  }
  res.writeHead(code, headers);
  res.end(body);
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

/** Writes a Status error (with its extra headers, e.g. Retry-After). */
export function writeError(res: ServerResponse, err: StatusError, format: OutputFormat, warnings?: readonly string[]): void {
  writeObject(res, err.code, err.status, format, { headers: { ...err.headers }, ...(warnings !== undefined ? { warnings } : {}) });
}
