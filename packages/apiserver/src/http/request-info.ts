/**
 * kube's RequestInfo: what an HTTP request addresses, derived from its method, path and
 * query alone (no registry lookups). Filters (metrics, later authz) and the resource
 * dispatcher both read it. Pure; never throws.
 */

export type ResourceVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequestInfo {
  readonly isResourceRequest: true;
  /** `api` or `apis`. */
  readonly apiPrefix: 'api' | 'apis';
  readonly group: string;
  readonly version: string;
  /** "" when the path has no namespace segment. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly verb: ResourceVerb | '';
  /** Path segments beyond `<resource>/<name>/<subresource>`: such paths are never served. */
  readonly extraParts: boolean;
  /** The legacy `/watch/` path (kube registers it only for resources that serve watch). */
  readonly watchPath?: boolean;
}

export interface NonResourceRequestInfo {
  readonly isResourceRequest: false;
  readonly path: string;
  /** Lower-case HTTP method. */
  readonly verb: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Subresources of a namespace addressed as `/api/v1/namespaces/<name>/<sub>`. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** kube's query-to-bool conversion: a present value is true unless it is "0" or "false" (any case). */
export function isTrueFlag(value: string | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  return value !== '0' && value.toLowerCase() !== 'false';
}

function verbFor(method: string, hasName: boolean, watch: boolean): ResourceVerb | '' {
  switch (method) {
    case 'GET':
    case 'HEAD':
      // kube: `?watch` turns a collection GET into a watch; a named GET stays a get (a named
      // watch goes through the legacy /watch/ path).
      if (hasName) return 'get';
      return watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return '';
  }
}

/**
 * Parses `/api/<v>/...` and `/apis/<g>/<v>/...` into a resource request (a `watch/` segment
 * after the version makes a GET a watch, as kube's legacy watch paths); anything shorter
 * (discovery documents, health, metrics, ...) is a non-resource request. `segments` are the
 * path split on "/" without empty parts, already percent-decoded.
 */
export function requestInfoFor(method: string, path: string, segments: readonly string[], watchParam: string | null): RequestInfo {
  const prefix = segments[0];
  let rest: readonly string[];
  let group = '';
  let version: string;
  if (prefix === 'api' && segments.length >= 3) {
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (prefix === 'apis' && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return { isResourceRequest: false, path, verb: method.toLowerCase() };
  }
  // The legacy watch paths: /api/v1/watch/..., /apis/<g>/<v>/watch/... (kube's "watch" verb prefix).
  let watchPrefix = false;
  if (rest[0] === 'watch' && rest.length > 1) {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  return {
    isResourceRequest: true,
    apiPrefix: prefix,
    group,
    version,
    namespace,
    resource,
    subresource,
    name,
    verb: watchPrefix ? (method === 'GET' || method === 'HEAD' ? 'watch' : '') : verbFor(method, name !== '', isTrueFlag(watchParam)),
    extraParts: rest.length > 3,
    ...(watchPrefix ? { watchPath: true } : {}),
  };
}
