/**
 * What the audit record of a request may need from deep in the handlers, without the
 * handlers knowing about audit: the request body as read (body/read-body.ts reports it) and
 * the object written as the response (http/respond.ts reports it). Only requests an audit
 * record asked for are kept.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Capture {
  /** Keep the request body. */
  readonly wantsRequestBody: boolean;
  /** Keep the response object (a Status is kept regardless: it is the event's responseStatus). */
  readonly wantsResponseObject: boolean;
  requestBody?: Buffer;
  responseObject?: unknown;
}

const byRequest = new WeakMap<IncomingMessage, Capture>();
const byResponse = new WeakMap<ServerResponse, Capture>();

export function startCapture(req: IncomingMessage, res: ServerResponse, capture: Capture): void {
  byRequest.set(req, capture);
  byResponse.set(res, capture);
}

/** The body of `req` was read whole. */
export function noteRequestBody(req: IncomingMessage, body: Buffer): void {
  const capture = byRequest.get(req);
  if (capture?.wantsRequestBody === true) capture.requestBody = body;
}

/** `value` is being written as the response of `res`. */
export function noteResponseObject(res: ServerResponse, value: unknown): void {
  const capture = byResponse.get(res);
  if (capture === undefined) return;
  if (capture.wantsResponseObject || (value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Status')) capture.responseObject = value;
}
