/**
 * The metric labels of a request, always from a bounded set. kube labels a request by the
 * route that served it (InstrumentRouteFunc is installed per route, with the route's own
 * group/version/resource/subresource), never by the path it was sent to; a request no route
 * serves (an unknown resource, subresource or path) is answered by the not-found handler and
 * never counted. The callers here keep to that: `routeLabels` only for a request a route
 * matched, `unroutedLabels` for one refused before routing that matches none.
 */
import { metricDryRun, metricScope, metricVerb, type RequestLabels } from '../metrics.js';
import type { RequestInfo } from './request-info.js';

/** What the labels are computed from: the method, the Content-Type, the request info, the path segments and the query. */
export interface LabelSource {
  readonly method: string;
  readonly contentType: string | undefined;
  readonly info: RequestInfo;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

/** The label of a non-resource route: its first segment (`/openapi/v3` for the OpenAPI v3 tree). */
export function nonResourceRouteLabel(segments: readonly string[]): string {
  const first = segments[0] ?? '';
  return first === 'openapi' ? '/openapi/v3' : `/${first}`;
}

/**
 * The labels of a request its route matched: group, version and resource are the served
 * ones the registry resolved, the subresource one the resource has, a non-resource path its
 * route's label. The caller guarantees the match.
 */
export function routeLabels(source: LabelSource): RequestLabels {
  const { info, method } = source;
  if (!info.isResourceRequest) {
    return { verb: metricVerb(method, '', false, undefined), dryRun: '', group: '', version: '', resource: '', subresource: nonResourceRouteLabel(source.segments), scope: '' };
  }
  const scope = metricScope(info);
  return {
    verb: metricVerb(method, scope, info.verb === 'watch', source.contentType),
    dryRun: metricDryRun(source.query.getAll('dryRun')),
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope,
  };
}

/**
 * The labels of a request that matches no route but is counted anyway (refused with 429
 * before routing): the verb, dry-run and scope as usual, every path-derived label empty.
 */
export function unroutedLabels(source: LabelSource): RequestLabels {
  const { info, method } = source;
  const scope = metricScope(info);
  return {
    verb: metricVerb(method, scope, info.isResourceRequest && info.verb === 'watch', source.contentType),
    dryRun: info.isResourceRequest ? metricDryRun(source.query.getAll('dryRun')) : '',
    group: '',
    version: '',
    resource: '',
    subresource: '',
    scope,
  };
}
