/**
 * The Status errors kube's HTTP plumbing (not its REST storage) answers with: unknown paths
 * and methods a route does not register. Texts are those of apimachinery's
 * NewGenericServerResponse, which is what kube-apiserver sends for these cases.
 */
import { StatusError } from '@kapi/machinery';

/** 404 for a path nothing serves. */
export function pathNotFound(): StatusError {
  return new StatusError({ code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
}

/** 405 for a method the route at this path does not register. */
export function methodNotRegistered(): StatusError {
  return new StatusError({ code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', details: {} });
}

/** 422 kube answers when a JSON patch cannot be applied (the detail is not sent). */
export function patchNotApplicable(): StatusError {
  return new StatusError({ code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} });
}

/** 504 when a non-long-running request outlives --request-timeout. */
export function requestTimedOut(): StatusError {
  return new StatusError({
    code: 504,
    reason: 'Timeout',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    details: {},
  });
}
