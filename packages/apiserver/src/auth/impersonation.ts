/**
 * kube's impersonation headers (`kubectl --as`, `--as-group`, `--as-uid`): each requested
 * user, service account, group, extra value and uid must be allowed the `impersonate` verb on
 * users / serviceaccounts / groups / userextras/<key> / uids for the authenticated user; the
 * request then acts as the impersonated user (system:authenticated added, as kube does).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Attributes, Authorizer } from './authorizer.js';
import { forbiddenRequest } from './forbidden.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from './user.js';

const EXTRA_PREFIX = 'impersonate-extra-';

interface ImpersonationRequest {
  readonly kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly fieldPath: string;
}

/** Thrown for impersonation headers kube answers with a plain-text 500 (groups without a user). */
export class ImpersonationError extends Error {
  override readonly name = 'ImpersonationError';
}

function values(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return Array.isArray(header) ? header : [header];
}

/** kube's serviceaccount.SplitUsername. */
export function splitServiceAccountUsername(name: string): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!name.startsWith(prefix)) return undefined;
  const parts = name.slice(prefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's %v of a v1.ObjectReference, as kube's error text shows it. */
function goFormat(r: ImpersonationRequest): string {
  return `{${r.kind} ${r.namespace} ${r.name}  ${r.apiVersion}  ${r.fieldPath}}`;
}

function requestsOf(headers: IncomingHttpHeaders, rawHeaders: readonly string[]): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  const user = values(headers['impersonate-user'])[0] ?? '';
  const blank = { namespace: '', apiVersion: '', fieldPath: '' };
  if (user !== '') {
    const sa = splitServiceAccountUsername(user);
    out.push(sa !== undefined ? { ...blank, kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name } : { ...blank, kind: 'User', name: user });
  }
  // Node joins repeated headers; the raw list keeps each Impersonate-Group value.
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'impersonate-group') out.push({ ...blank, kind: 'Group', name: rawHeaders[i + 1]! });
  }
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const header = rawHeaders[i]!.toLowerCase();
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    out.push({ ...blank, kind: 'UserExtra', name: rawHeaders[i + 1]!, apiVersion: 'authentication.k8s.io/v1', fieldPath: unescapeExtraKey(header.slice(EXTRA_PREFIX.length)) });
  }
  const uid = values(headers['impersonate-uid'])[0] ?? '';
  if (uid !== '') out.push({ ...blank, kind: 'UID', name: uid, apiVersion: 'authentication.k8s.io/v1' });
  if (user === '' && out.length > 0) throw new ImpersonationError(`requested [${out.map(goFormat).join(' ')}] without impersonating a user`);
  return out;
}

/** Whether the request carries any impersonation header (cheap; checked on every request). */
export function hasImpersonation(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const h = rawHeaders[i]!;
    if (h.length >= 11 && (h.charCodeAt(0) | 32) === 105 && h.toLowerCase().startsWith('impersonate-')) return true;
  }
  return false;
}

/**
 * The user the request acts as. Throws ImpersonationError (500 text) for groups, extras or a
 * uid without a user, and a 403 StatusError for an impersonation the requestor may not do.
 */
export function impersonate(requestor: UserInfo, headers: IncomingHttpHeaders, rawHeaders: readonly string[], authorizer: Authorizer): UserInfo {
  const requests = requestsOf(headers, rawHeaders);
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const base = { user: requestor, verb: 'impersonate', resourceRequest: true, namespace: '', apiGroup: '', apiVersion: 'v1', subresource: '', name: r.name, path: '' };
    let attributes: Attributes;
    switch (r.kind) {
      case 'ServiceAccount':
        attributes = { ...base, namespace: r.namespace, resource: 'serviceaccounts' };
        name = `system:serviceaccount:${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        attributes = { ...base, resource: 'users' };
        name = r.name;
        break;
      case 'Group':
        attributes = { ...base, resource: 'groups' };
        groups.push(r.name);
        break;
      case 'UserExtra':
        attributes = { ...base, apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: r.fieldPath };
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        attributes = { ...base, apiGroup: 'authentication.k8s.io', resource: 'uids' };
        uid = r.name;
        break;
    }
    const decision = authorizer.authorize(attributes);
    if (decision.decision !== 'Allow') throw forbiddenRequest(attributes, decision.reason);
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  return { name, uid, groups, extra };
}
