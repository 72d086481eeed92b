/** Reading a request body whole, within kube's size limit. */
import type { IncomingMessage } from 'node:http';
import { badRequest, requestEntityTooLarge } from '@kapi/machinery';
import { MAX_REQUEST_BODY_BYTES } from './limits.js';
import { noteRequestBody } from '../audit/capture.js';

/**
 * A declared length at least this large is read into one buffer of that size, each chunk
 * copied in as it arrives: no list of chunks to keep and join at the end (joining 3 MiB is a
 * step of its own on the event loop, and the chunks and the joined copy would be held at
 * once). Smaller bodies are joined, which is cheaper for the common case of one chunk.
 */
const PREALLOCATE_BYTES = 64 * 1024;

/**
 * Reads the whole body. Throws 413 `Request entity too large: limit is 3145728` as soon as
 * the declared or received size passes `limit` (the rest of the body is discarded), 400 when
 * the connection fails mid-body.
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
    // A body that declares its length fills one buffer; one sent longer than it declared (a
    // parser would stop it first) or chunked is collected in pieces.
    let whole = Number.isSafeInteger(declared) && declared >= PREALLOCATE_BYTES ? Buffer.allocUnsafeSlow(declared) : undefined;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      if (size + chunk.length > limit) {
        failed = true;
        chunks.length = 0;
        whole = undefined;
        reject(tooLarge());
        return;
      }
      if (whole !== undefined && size + chunk.length <= whole.length) chunk.copy(whole, size);
      else {
        if (whole !== undefined) chunks.push(whole.subarray(0, size));
        whole = undefined;
        chunks.push(chunk);
      }
      size += chunk.length;
    });
    req.on('end', () => {
      if (failed) return;
      const body = whole !== undefined ? whole.subarray(0, size) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      noteRequestBody(req, body);
      resolve(body);
    });
    req.on('error', (err) => {
      if (!failed) reject(badRequest(`unable to read the request body: ${err.message}`));
      failed = true;
    });
  });
}
