/** Reads and decodes the object body of a write (create, update, delete options). */
import { readBody, decodeBody } from '../http/body.js';
import { negotiateInput } from '../http/negotiation.js';
import type { RequestScope } from './scope.js';

/** The decoded body. Throws 415 for a Content-Type other than JSON/YAML, 413 past 3 MiB, 400 for malformed input. */
export async function readObjectBody(scope: RequestScope): Promise<unknown> {
  const format = negotiateInput(scope.req.headers['content-type']);
  const bytes = await readBody(scope.req);
  return decodeBody(bytes, format);
}

/** Like readObjectBody, but an empty body is `undefined` (DELETE may carry no options). */
export async function readOptionalBody(scope: RequestScope): Promise<unknown> {
  const contentType = scope.req.headers['content-type'];
  const bytes = await readBody(scope.req);
  if (bytes.length === 0 || bytes.toString('utf8').trim() === '') return undefined;
  return decodeBody(bytes, negotiateInput(contentType));
}
