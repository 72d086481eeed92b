/** Reading a request body whole, within kube's size limit. */
import type { IncomingMessage } from 'node:http';
import { badRequest, requestEntityTooLarge } from '@kapi/machinery';
import { MAX_REQUEST_BODY_BYTES } from './limits.js';
import { noteRequestBody } from '../audit/capture.js';

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
      if (failed) return;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      noteRequestBody(req, body);
      resolve(body);
    });
    req.on('error', (err) => {
      if (!failed) reject(badRequest(`unable to read the request body: ${err.message}`));
      failed = true;
    });
  });
}
