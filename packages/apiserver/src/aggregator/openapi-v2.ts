/**
 * An aggregated API server's OpenAPI v2 document as kube's aggregator downloads it: GET
 * `/openapi/v2` as `system:aggregator` asking for JSON, with the last ETag in If-None-Match
 * (a 304 keeps the last document), kept to the paths of the APIService's group-version
 * (`/apis/<group>/<version>/`) and the definitions they need. A backend without one (404) has
 * none; a failed download keeps the last good document (kube's LastSuccess).
 */
import { createHash } from 'node:crypto';
import { authProxyHeaders } from '../proxy/index.js';
import { filterSwaggerPaths } from '../openapi/swagger-merge.js';
import type { ApiServiceObject } from './apiservices.js';
import { backendGet, type BackendAccess } from './backend.js';

/** kube's spec download timeout is a minute; a discovery-sized bound is kept here. */
const DOWNLOAD_TIMEOUT_MS = 30_000;

export interface RemoteSwagger {
  /** The backend's ETag (or a hash of the body when it sent none). */
  readonly etag: string;
  /** The filtered document. */
  readonly doc: Readonly<Record<string, unknown>>;
}

/** Downloads (or revalidates) `apiService`'s document; undefined when the backend serves none. Throws on failure. */
export async function fetchSwagger(access: BackendAccess, apiService: ApiServiceObject, previous: RemoteSwagger | undefined): Promise<RemoteSwagger | undefined> {
  const { group = '', version = '' } = apiService.spec ?? {};
  const res = await backendGet(access, apiService, '/openapi/v2', {
    ...authProxyHeaders({ name: 'system:aggregator', uid: '', groups: [], extra: {} }),
    accept: 'application/json',
    ...(previous !== undefined ? { 'if-none-match': previous.etag } : {}),
  }, { timeoutMs: DOWNLOAD_TIMEOUT_MS, maxBytes: 64 * 1024 * 1024 });
  if (res.status === 304 && previous !== undefined) return previous;
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`failed to retrieve openAPI spec, http error: ${res.status}`);
  const doc = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('the OpenAPI v2 document is not a JSON object');
  const header = res.headers.etag;
  const etag = typeof header === 'string' && header !== '' ? header : `"${createHash('sha512').update(res.body).digest('hex').toUpperCase()}"`;
  return { etag, doc: filterSwaggerPaths(doc, [`/apis/${group}/${version}/`]) };
}
