/**
 * Reading and decoding request bodies: a hard size limit (kube's 3 MiB), JSON or YAML, and a
 * nesting limit so that hostile bodies fail with 400 instead of exhausting the stack later.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, requestEntityTooLarge } from '@kapi/machinery';
import type { OutputFormat } from './negotiation.js';

/** kube's MaxRequestBodyBytes. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The JSON nesting limit. kube allows 10000 (apimachinery util/json); V8's structuredClone
 * and the registry's recursive walks overflow the stack at about 2000 levels, so kapi
 * stops at 1000 — far beyond any real object.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * Reads the whole body. Throws 413 `Request entity too large: limit is 3145728` as soon as
 * the declared or received size passes `limit` (the rest of the body is discarded).
 */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () => requestEntityTooLarge(`limit is ${limit}`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (err) => {
      if (!failed) reject(badRequest(`unable to read the request body: ${err.message}`));
      failed = true;
    });
  });
}

/** The nesting depth of a JSON value (iterative; containers count one level each). */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) max = depth;
    if (depth > MAX_JSON_DEPTH) return depth;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return max;
}

/** Cheap pre-check on the raw text: the largest bracket nesting (ignores strings roughly but safely over-counts only inside strings). */
function textNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const depthError = () => badRequest(`json: exceeded max depth of ${MAX_JSON_DEPTH}`);

/**
 * Decodes a body as JSON or YAML (YAML 1.2 core schema, so JSON is valid YAML). Throws 400
 * BadRequest with the parser's message for malformed input, an empty body, or nesting beyond
 * MAX_JSON_DEPTH. Returns plain JSON values only.
 */
export function decodeBody(bytes: Buffer, format: OutputFormat): unknown {
  const text = bytes.toString('utf8');
  if (format === 'json') {
    if (textNestingExceeds(text, MAX_JSON_DEPTH)) throw depthError();
    try {
      return JSON.parse(text);
    } catch (err) {
      const detail = text.trim() === '' ? 'unexpected end of JSON input' : (err as Error).message;
      throw badRequest(`couldn't get version/kind; json parse error: ${detail}`);
    }
  }
  let value: unknown;
  try {
    value = parseYaml(text, { schema: 'core', maxAliasCount: 100, prettyErrors: false, uniqueKeys: false });
  } catch (err) {
    throw badRequest(`error converting YAML to JSON: yaml: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value === undefined || text.trim() === '') throw badRequest("couldn't get version/kind; json parse error: unexpected end of JSON input");
  if (jsonDepth(value) > MAX_JSON_DEPTH) throw depthError();
  return toJsonValue(value);
}

/** YAML may produce values JSON cannot hold (dates are off in the core schema; NaN/Infinity are not): normalise through JSON. */
function toJsonValue(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null');
  } catch (err) {
    throw badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
  }
}
