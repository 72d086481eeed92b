/**
 * The params a binding gives its policy (kube's CollectParams): none when the policy has no
 * paramKind or the binding no paramRef (the policy runs once with `params` null); the object
 * named by paramRef.name, or every object paramRef.selector selects, in paramRef.namespace or
 * else the request's namespace for a namespaced paramKind; none found with
 * parameterNotFoundAction Deny is a configuration error, with Allow the policy is skipped.
 */
import { labelSelectorFromObject, isNotFound, isStatusError, type KubeObject } from '@kapi/machinery';
import type { ObjectCache } from '@kapi/controllers';
import type { RestResource } from '@kapi/registry';
import type { ParamRef } from './policy-types.js';

/** Where a paramKind's objects are read from. */
export interface ParamSource {
  readonly cache: ObjectCache;
  readonly resource: RestResource;
  readonly namespaced: boolean;
}

/** A binding's params, or the configuration error kube reports for them. */
export type ParamsResult = { readonly params: readonly (KubeObject | null)[] } | { readonly error: string };

export async function collectParams(
  paramKind: { readonly apiVersion?: string; readonly kind?: string } | undefined,
  source: ParamSource | undefined,
  paramRef: ParamRef | undefined,
  requestNamespace: string,
): Promise<ParamsResult> {
  if (paramKind === undefined || paramKind === null) return { params: [null] };
  if (paramRef === undefined || paramRef === null) return { params: [null] };
  const paramKindText = `&ParamKind{APIVersion:${paramKind.apiVersion ?? ''},Kind:${paramKind.kind ?? ''},}`;
  if (source === undefined) return { error: `paramKind kind \`${paramKindText}\` not known` };
  if (!await synced(source.cache, SYNC_WAIT_MS)) return { error: `paramKind kind \`${paramKindText}\` not yet synced to use for admission` };
  let namespace = '';
  if (source.namespaced) {
    namespace = paramRef.namespace || requestNamespace;
    if (namespace === '') return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  } else if (paramRef.namespace) {
    return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  }
  let params: KubeObject[];
  if (paramRef.name) {
    if (paramRef.selector !== undefined && paramRef.selector !== null) return { error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    const found = source.cache.get(namespace, paramRef.name) ?? await readThrough(source, namespace, paramRef.name);
    params = found === undefined ? [] : [found];
  } else if (paramRef.selector !== undefined && paramRef.selector !== null) {
    let selector;
    try {
      selector = labelSelectorFromObject(paramRef.selector);
    } catch (err) {
      return { error: isStatusError(err) ? err.status.message ?? String(err) : String(err) };
    }
    params = source.cache.list(source.namespaced ? namespace : undefined)
      .filter((obj) => selector.matches(obj.metadata.labels))
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  } else {
    return { error: 'one of name or selector must be provided' };
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return { params };
}

/** How long a request waits for a new paramKind's informer to list (kube: 1 s). */
const SYNC_WAIT_MS = 1000;

async function synced(cache: ObjectCache, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  while (!cache.synced()) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/**
 * A param the informer has not seen yet (created just before the request) is read from
 * storage, as later kube versions do, so a policy does not miss a param created a moment ago.
 */
async function readThrough(source: ParamSource, namespace: string, name: string): Promise<KubeObject | undefined> {
  if (source.resource.getter === undefined) return undefined;
  try {
    return await source.resource.getter.get({ namespace, userAgent: 'kapi-apiserver/validating-admission-policy' }, name, {});
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
