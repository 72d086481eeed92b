/**
 * The Status errors kube's HTTP plumbing (not its REST storage) answers with: unknown paths
 * and methods a route does not register. Texts are those of apimachinery's
 * NewGenericServerResponse, which is what kube-apiserver sends for these cases.
 */
import type { ServerResponse } from 'node:http';
import { StatusError } from '@kapi/machinery';
import { writeText } from './respond.js';

/** 404 for a path nothing serves. */
export function pathNotFound(): StatusError {
  return new StatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
}

/**
 * A path outside every API route (an unknown group, an unknown top-level path, an unknown
 * health check): kube's NotFoundHandler answers Go's plain `404 page not found`, not a Status.
 */
export class PageNotFound extends StatusError {
  constructor() {
    super({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
  }
}

export const PAGE_NOT_FOUND_TEXT = '404 page not found\n';

export function pageNotFound(): PageNotFound {
  return new PageNotFound();
}

/** 405 for a method the route at this path does not register. */
export function methodNotRegistered(): StatusError {
  return new StatusError({ code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', details: {} });
}

/** 422 kube answers when a JSON patch cannot be applied (the detail is not sent). */
export function patchNotApplicable(): StatusError {
  return new StatusError({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} });
}

/** The message of kube's timeout filter (WithTimeoutForNonLongRunningRequests). */
export const REQUEST_TIMEOUT_MESSAGE = 'Timeout: request did not complete within the allotted timeout';

/**
 * 504 when a non-long-running request outlives its deadline, as kube's timeout filter writes
 * it whatever the client negotiated: the Status without kind and apiVersion, JSON-encoded with
 * a trailing newline, as `text/plain; charset=utf-8`. A response already under way is cut
 * instead (kube aborts the connection).
 */
export function writeRequestTimeout(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = { metadata: {}, status: 'Failure', message: REQUEST_TIMEOUT_MESSAGE, reason: 'Timeout', details: {}, code: 504 };
  writeText(res, 504, `${JSON.stringify(status)}\n`);
}
