/** A request's authorizer attributes from its RequestInfo (kube's GetAuthorizerAttributes). */
import type { RequestInfo } from '../http/request-info.js';
import { parseFieldSelector } from '@kapi/machinery';
import type { Attributes, FieldSelectorRequirement } from './authorizer.js';
import type { UserInfo } from './user.js';

/** `metadata.name=<x>` (or `==`) in a field selector: list and watch are then authorized for that name, as kube does. */
function nameFromFieldSelector(selector: string | null): string {
  if (selector === null || selector === '') return '';
  for (const part of selector.split(',')) {
    const match = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(part);
    if (match !== null) return match[1]!;
  }
  return '';
}

/** The requirements of a field selector, or undefined when there is none or it does not parse (kube ignores those). */
export function fieldSelectorRequirements(selector: string | null | undefined): readonly FieldSelectorRequirement[] | undefined {
  if (selector === null || selector === undefined || selector === '') return undefined;
  try {
    return parseFieldSelector(selector).requirements.map((r) => ({ field: r.field, operator: r.operator, value: r.value }));
  } catch {
    return undefined;
  }
}

export function requestAttributes(user: UserInfo, info: RequestInfo, query: URLSearchParams): Attributes {
  if (!info.isResourceRequest) {
    return { user, verb: info.verb, resourceRequest: false, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: info.path };
  }
  const name = info.name === '' && (info.verb === 'list' || info.verb === 'watch') ? nameFromFieldSelector(query.get('fieldSelector')) : info.name;
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    namespace: info.namespace,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    name,
    path: '',
    ...(info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection' ? withFieldSelector(query.get('fieldSelector')) : {}),
  };
}

function withFieldSelector(selector: string | null): { fieldSelector?: readonly FieldSelectorRequirement[] } {
  const requirements = fieldSelectorRequirements(selector);
  return requirements === undefined ? {} : { fieldSelector: requirements };
}
