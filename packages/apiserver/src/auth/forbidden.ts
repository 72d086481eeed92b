/**
 * kube's 401 and 403 bodies (responsewriters.Forbidden + apierrors.NewForbidden): the
 * request's resource, name and verb, the user, and the authorizers' reasons.
 */
import { StatusError } from '@kapi/machinery';
import type { Attributes } from './authorizer.js';

/** kube's 401 for a missing or refused credential. */
export function unauthorized(): StatusError {
  return new StatusError({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
}

function forbiddenMessage(attributes: Attributes): string {
  const user = JSON.stringify(attributes.user.name);
  if (!attributes.resourceRequest) return `User ${user} cannot ${attributes.verb} path ${JSON.stringify(attributes.path)}`;
  const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  const what = `User ${user} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.apiGroup)}`;
  return attributes.namespace !== '' ? `${what} in the namespace ${JSON.stringify(attributes.namespace)}` : `${what} at the cluster scope`;
}

/** The 403 for a request no authorizer allowed; `reason` (possibly empty) is appended after a colon. */
export function forbiddenRequest(attributes: Attributes, reason: string): StatusError {
  const detail = reason === '' ? forbiddenMessage(attributes) : `${forbiddenMessage(attributes)}: ${reason}`;
  const group = attributes.resourceRequest ? attributes.apiGroup : '';
  const resource = attributes.resourceRequest ? attributes.resource : '';
  const name = attributes.resourceRequest ? attributes.name : '';
  const qualified = group === '' ? resource : `${resource}.${group}`;
  const message = qualified === '' && group === '' ? `forbidden: ${detail}` : name === '' ? `${qualified} is forbidden: ${detail}` : `${qualified} ${JSON.stringify(name)} is forbidden: ${detail}`;
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    message,
    details: { ...(name !== '' ? { name } : {}), ...(group !== '' ? { group } : {}), ...(resource !== '' ? { kind: resource } : {}) },
  });
}
