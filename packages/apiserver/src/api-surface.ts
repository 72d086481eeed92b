/**
 * Everything derived from the registry's resources that is the same for every request:
 * the discovery groups, the aggregated discovery documents with their ETags, and the
 * OpenAPI v3 documents with their content hashes. Built lazily, cached, and rebuilt after
 * `invalidate()` (when the set of resources changes, e.g. CRDs later).
 */
import { createHash } from 'node:crypto';
import type { JSONSchemaProps } from '@kapi/machinery';
import type { RestResource } from '@kapi/registry';
import { groupResources, type ApiGroup, type GroupVersionResources } from './discovery/api-groups.js';
import { aggregatedDiscovery, type AggregatedVersion } from './discovery/aggregated.js';
import { buildGroupVersionDocument, buildNonResourceDocument } from './openapi/document.js';
import { nonResourcePaths } from './openapi/non-resource-paths.js';
import { isCustomResource } from './openapi/operations.js';
import { runStepsSliced, yieldIfBusy } from '@kapi/machinery';
import { swaggerDocumentSteps } from './openapi/swagger.js';
import { encodeSwaggerProtobufSteps } from './openapi/swagger-protobuf.js';
import { mergeSwagger, sortedSwagger } from './openapi/swagger-merge.js';

export interface CachedDocument {
  readonly body: string;
  /** Upper-case hex SHA-512 of the body (the OpenAPI hash; quoted, the ETag). */
  readonly hash: string;
}

/** The OpenAPI v2 document in its two encodings; both carry the JSON's hash (kube's ETag). */
export interface SwaggerDocument {
  readonly json: CachedDocument;
  readonly protobuf: Buffer;
  /** When this version of the document was built (Last-Modified). */
  readonly built: Date;
}

export interface ApiSurface {
  groups(): readonly ApiGroup[];
  group(name: string): ApiGroup | undefined;
  groupVersion(group: string, version: string): GroupVersionResources | undefined;
  /** The aggregated discovery document for `/api` (`core`) or `/apis`. */
  aggregated(core: boolean, version: AggregatedVersion): CachedDocument;
  /** The OpenAPI v3 document of a group-version key such as `api/v1` or `apis/apps/v1`. */
  openapi(key: string): CachedDocument | undefined;
  /** The OpenAPI v3 index (`{"paths": {...}}`). */
  openapiIndex(): Promise<CachedDocument>;
  /**
   * The OpenAPI v2 (Swagger 2.0) document of every group-version. Built in slices (it is a
   * megabyte, from every schema), once for all the requests that wait for it.
   */
  swagger(): Promise<SwaggerDocument>;
  invalidate(): void;
  /** Drops only the aggregated discovery documents (the remote groups in them changed). */
  invalidateAggregated(): void;
}

/** Schema keywords only kapi reads (`x-kapi-go-type`): never published. */
function withoutKapiKeywords(key: string, value: unknown): unknown {
  return key.startsWith('x-kapi-') ? undefined : value;
}

function cached(value: unknown): CachedDocument {
  const body = JSON.stringify(value, withoutKapiKeywords);
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export function openapiKey(gv: GroupVersionResources): string {
  return gv.group === '' ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}

/**
 * `remote`: what aggregated API servers serve — their groups, appended to the `/apis`
 * aggregated document, and their OpenAPI v3 documents (call invalidateAggregated when they change).
 */
export interface RemoteSurface {
  /** APIGroupDiscovery items for the `/apis` aggregated document. */
  aggregatedItems(): readonly Record<string, unknown>[];
  /**
   * OpenAPI v3 documents by key (`apis/<g>/<v>`): the JSON text and the backend's
   * `serverRelativeURL`, listed as it is in the index (after the local ones), its `hash` the document's.
   */
  openapiDocuments(): ReadonlyMap<string, { readonly body: string; readonly url: string }>;
  /** OpenAPI v2 documents to merge into `/openapi/v2`, in merge order, each with an ETag that changes with it. */
  swaggerDocuments?(): readonly { readonly name: string; readonly swagger: { readonly etag: string; readonly doc: Readonly<Record<string, unknown>> } }[];
}

/** What the server serves besides resources that its OpenAPI documents describe. */
export interface NonResourceSurface {
  /** `/.well-known/openid-configuration` and `/openid/v1/jwks` are served (service account issuer discovery). */
  readonly issuerDiscovery: boolean;
}

export function createApiSurface(
  resources: () => readonly RestResource[],
  definitions: () => Readonly<Record<string, JSONSchemaProps>>,
  remote?: RemoteSurface,
  nonResource: NonResourceSurface = { issuerDiscovery: false },
): ApiSurface {
  let groups: ApiGroup[] | undefined;
  let byKey: Map<string, GroupVersionResources> | undefined;
  /** The non-resource documents' paths by their `/openapi/v3/` key. */
  let nonResourceByKey: Map<string, Record<string, Record<string, unknown>>> | undefined;
  const aggregatedCache = new Map<string, CachedDocument>();
  const openapiCache = new Map<string, CachedDocument>();
  let index: Promise<CachedDocument> | undefined;
  let swagger: Promise<SwaggerDocument> | undefined;
  /** The document with the remote ones merged in, and which remote documents (names and ETags) it holds. */
  let merged: { readonly remotes: string; readonly doc: Promise<SwaggerDocument> } | undefined;
  /** Bumped by invalidate(): a build started before it is not kept. */
  let generation = 0;

  const ensure = (): { groups: ApiGroup[]; byKey: Map<string, GroupVersionResources>; nonResourceByKey: Map<string, Record<string, Record<string, unknown>>> } => {
    if (groups === undefined || byKey === undefined || nonResourceByKey === undefined) {
      groups = groupResources(resources());
      byKey = new Map(groups.flatMap((g) => g.versions.map((gv) => [openapiKey(gv), gv] as const)));
      const builtinGroups = groups.filter((g) => g.versions.some((gv) => gv.resources.some((r) => !isCustomResource(r)))).map((g) => g.name);
      nonResourceByKey = nonResourcePaths(builtinGroups, nonResource.issuerDiscovery);
    }
    return { groups, byKey, nonResourceByKey };
  };

  // A remote document is hashed once per text the backend served.
  const remoteOpenapiCache = new Map<string, CachedDocument>();
  const remoteOpenapi = (key: string): CachedDocument | undefined => {
    const served = remote?.openapiDocuments().get(key);
    if (served === undefined) return undefined;
    let doc = remoteOpenapiCache.get(key);
    if (doc === undefined || doc.body !== served.body) {
      // The backend's hash names the document (kube passes it on); one of kapi's own when it gave none.
      const q = served.url.indexOf('?');
      const hash = new URLSearchParams(q < 0 ? '' : served.url.slice(q + 1)).get('hash');
      remoteOpenapiCache.set(key, (doc = { body: served.body, hash: hash !== null && hash !== '' ? hash : createHash('sha512').update(served.body).digest('hex').toUpperCase() }));
    }
    return doc;
  };

  /** This server's own document (built once per invalidate()). */
  const localSwagger = (): Promise<SwaggerDocument> => {
    if (swagger === undefined) {
      const built = generation;
      const build = async (): Promise<SwaggerDocument> => {
        const document = await runStepsSliced(swaggerDocumentSteps([...ensure().byKey.values()], definitions(), ensure().nonResourceByKey));
        const json = cached(document);
        await yieldIfBusy();
        const protobuf = await runStepsSliced(encodeSwaggerProtobufSteps(JSON.parse(json.body) as Record<string, unknown>));
        return { json, protobuf, built: new Date() };
      };
      const promise = build();
      swagger = promise;
      promise.catch(() => {
        if (swagger === promise && generation === built) swagger = undefined;
      });
    }
    return swagger;
  };

  const surface: ApiSurface = {
    groups: () => ensure().groups,
    group: (name) => ensure().groups.find((g) => g.name === name),
    groupVersion: (group, version) => ensure().byKey.get(group === '' ? `api/${version}` : `apis/${group}/${version}`),
    aggregated(core, version) {
      const key = `${core}/${version}`;
      let doc = aggregatedCache.get(key);
      if (doc === undefined) {
        const local = aggregatedDiscovery(ensure().groups, core, version);
        const items = core || remote === undefined ? [] : remote.aggregatedItems();
        aggregatedCache.set(key, (doc = cached(items.length === 0 ? local : { ...local, items: [...(local['items'] as unknown[]), ...items] })));
      }
      return doc;
    },
    openapi(key) {
      let doc = openapiCache.get(key);
      if (doc === undefined) {
        const gv = ensure().byKey.get(key);
        const nonResourceDocument = ensure().nonResourceByKey.get(key);
        if (gv !== undefined) doc = cached(buildGroupVersionDocument(gv, definitions()));
        else if (nonResourceDocument !== undefined) doc = cached(buildNonResourceDocument(nonResourceDocument, definitions()));
        else return remoteOpenapi(key);
        openapiCache.set(key, doc);
      }
      return doc;
    },
    openapiIndex() {
      if (index === undefined) {
        const built = generation;
        const build = async (): Promise<CachedDocument> => {
          // Every group-version's document is built for its hash: one a turn when the turn ran long.
          const paths: Record<string, { serverRelativeURL: string }> = {};
          for (const key of [...ensure().byKey.keys(), ...ensure().nonResourceByKey.keys()]) {
            paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${surface.openapi(key)!.hash}` };
            await yieldIfBusy();
          }
          for (const [key, served] of remote?.openapiDocuments() ?? []) {
            const doc = remoteOpenapi(key);
            if (doc !== undefined && paths[key] === undefined) paths[key] = { serverRelativeURL: served.url.includes('hash=') ? served.url : `/openapi/v3/${key}?hash=${doc.hash}` };
          }
          // kube's index is a Go map: its keys in order.
          const sorted: Record<string, { serverRelativeURL: string }> = {};
          for (const key of Object.keys(paths).sort()) sorted[key] = paths[key]!;
          return cached({ paths: sorted });
        };
        const promise = build();
        index = promise;
        promise.catch(() => {
          if (index === promise && generation === built) index = undefined;
        });
      }
      return index;
    },
    swagger() {
      const remotes = remote?.swaggerDocuments?.() ?? [];
      if (remotes.length === 0) return localSwagger();
      const key = JSON.stringify(remotes.map((r) => [r.name, r.swagger.etag]));
      if (merged === undefined || merged.remotes !== key) {
        const built = generation;
        const build = async (): Promise<SwaggerDocument> => {
          // Local paths and definitions first; each aggregated document after, by priority (kube's merge order).
          let document = JSON.parse((await localSwagger()).json.body) as Record<string, unknown>;
          for (const r of remotes) {
            document = mergeSwagger(document, r.swagger.doc as Record<string, unknown>);
            await yieldIfBusy();
          }
          const json = cached(sortedSwagger(document));
          await yieldIfBusy();
          const protobuf = await runStepsSliced(encodeSwaggerProtobufSteps(JSON.parse(json.body) as Record<string, unknown>));
          return { json, protobuf, built: new Date() };
        };
        const promise = build();
        const entry = { remotes: key, doc: promise };
        merged = entry;
        promise.catch(() => {
          if (merged === entry && generation === built) merged = undefined;
        });
      }
      return merged.doc;
    },
    invalidateAggregated() {
      aggregatedCache.clear();
      remoteOpenapiCache.clear();
      index = undefined;
    },
    invalidate() {
      generation++;
      groups = undefined;
      byKey = undefined;
      nonResourceByKey = undefined;
      aggregatedCache.clear();
      openapiCache.clear();
      index = undefined;
      swagger = undefined;
      merged = undefined;
    },
  };
  return surface;
}
