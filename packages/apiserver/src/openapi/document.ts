/**
 * OpenAPI v3 documents, one per group-version, as kubectl reads them: paths for every
 * resource with their operations tagged `x-kubernetes-group-version-kind`, an inline
 * `fieldValidation` parameter on PATCH, request bodies only for the patch types the server
 * implements, and `components.schemas` holding every named schema the paths reach.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import type { RestResource } from '@kapi/registry';
import type { GroupVersionResources } from '../discovery/api-groups.js';
import * as p from './parameters.js';
import { COMPONENT_PREFIX, DELETE_OPTIONS, META, PATCH, STATUS, WATCH_EVENT, hoistCommonParameters, isCustomResource, requestContent, patchOperation, ref, resourceNaming, responses, type Gvk, type PathItem } from './operations.js';
import { addSubresourcePaths } from './subresource-paths.js';
import { DISCOVERY_SCHEMAS, groupVersionDiscoveryPath } from './non-resource-paths.js';

export { COMPONENT_PREFIX };

const FALLBACK_SCHEMAS: Record<string, JSONSchemaProps> = {
  [PATCH]: { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' },
  [STATUS]: { description: 'Status is a return value for calls that do not return other objects.', type: 'object', 'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }] },
  [DELETE_OPTIONS]: { description: 'DeleteOptions may be provided when deleting an API object.', type: 'object' },
  ...DISCOVERY_SCHEMAS,
};

/** A name for a schema the registry does not name: kube's reversed-domain convention. */
function syntheticName(gvk: Gvk): string {
  const domain = gvk.group === '' ? 'io.k8s.api.core' : gvk.group.split('.').reverse().join('.');
  return `${domain}.${gvk.version}.${gvk.kind}`;
}

interface SchemaNames {
  object: string;
  list: string;
}

/** Builds the operations of one resource into `paths`: its collection and item, its subresources, kube's deprecated watch paths. */
function addResourcePaths(paths: Record<string, PathItem>, resource: RestResource, names: SchemaNames, gv: GroupVersionResources, schemaFor: (gvk: Gvk) => string): void {
  const d = resource.definition;
  const naming = resourceNaming(resource, gv);
  const { prefix, opGroup, scoped, op } = naming;
  const custom = isCustomResource(resource);
  const collection: Record<string, unknown> = {};
  const item: Record<string, unknown> = {};
  if (resource.lister) {
    collection['get'] = op('list', `list${opGroup}${scoped}${d.kind}`, `list or watch objects of kind ${d.kind}`, {
      parameters: p.listParameters,
      responses: responses({ '200': 'OK' }, names.list, !custom, true),
    });
  }
  if (resource.creater) {
    collection['post'] = op('post', `create${opGroup}${scoped}${d.kind}`, `create a ${d.kind}`, {
      parameters: [p.dryRun, p.fieldManager, p.fieldValidation],
      requestBody: { content: requestContent(names.object, !custom), required: true },
      responses: responses({ '200': 'OK', '201': 'Created', '202': 'Accepted' }, names.object, !custom),
    });
  }
  if (resource.collectionDeleter) {
    // kube's custom-resource builder gives deletecollection the list parameters alone, and no body.
    const deleteCollection = custom
      ? { parameters: p.listParameters }
      : {
          parameters: [p.dryRun, p.gracePeriodSeconds, p.ignoreStoreReadError, p.orphanDependents, p.propagationPolicy, ...p.listParameters.filter((x) => x['name'] !== 'watch' && x['name'] !== 'allowWatchBookmarks')].sort(byName),
          requestBody: { content: requestContent(DELETE_OPTIONS, !custom) },
        };
    collection['delete'] = op('deletecollection', `delete${opGroup}Collection${scoped}${d.kind}`, `delete collection of ${d.kind}`, {
      ...deleteCollection,
      responses: responses({ '200': 'OK' }, STATUS, !custom),
    });
  }
  if (resource.getter) {
    item['get'] = op('get', `read${opGroup}${scoped}${d.kind}`, `read the specified ${d.kind}`, {
      ...(custom ? { parameters: [p.resourceVersion] } : {}),
      responses: responses({ '200': 'OK' }, names.object, !custom),
    });
  }
  if (resource.updater) {
    item['put'] = op('put', `replace${opGroup}${scoped}${d.kind}`, `replace the specified ${d.kind}`, {
      parameters: [p.dryRun, p.fieldManager, p.fieldValidation],
      requestBody: { content: requestContent(names.object, !custom), required: true },
      responses: responses({ '200': 'OK', '201': 'Created' }, names.object, !custom),
    });
  }
  if (resource.patcher) item['patch'] = patchOperation(resource, naming, `patch${opGroup}${scoped}${d.kind}`, `partially update the specified ${d.kind}`, names.object);
  if (resource.deleter) {
    // kube's route says DELETE answers with the object where the store returns deleted objects
    // (its namespace storage wraps the store without saying so, and keeps the Status).
    const answer = d.returnDeletedObject === true && !(d.group === '' && d.plural === 'namespaces') ? names.object : STATUS;
    item['delete'] = op('delete', `delete${opGroup}${scoped}${d.kind}`, `delete a ${d.kind}`, {
      parameters: [p.dryRun, p.gracePeriodSeconds, p.ignoreStoreReadError, p.orphanDependents, p.propagationPolicy],
      requestBody: { content: requestContent(DELETE_OPTIONS, !custom) },
      responses: responses({ '200': 'OK', '202': 'Accepted' }, answer, !custom),
    });
  }
  const base = d.namespaced ? `${prefix}/namespaces/{namespace}/${d.plural}` : `${prefix}/${d.plural}`;
  const scopeParams = d.namespaced ? [p.pathNamespace, p.pretty] : [p.pretty];
  if (Object.keys(collection).length > 0) paths[base] = hoistCommonParameters(collection, scopeParams);
  if (Object.keys(item).length > 0) paths[`${base}/{name}`] = hoistCommonParameters(item, [p.pathName, ...scopeParams]);
  addSubresourcePaths(paths, resource, naming, `${base}/{name}`, names.object, schemaFor);
  if (d.namespaced && resource.lister) {
    paths[`${prefix}/${d.plural}`] = {
      get: op('list', `list${opGroup}${d.kind}ForAllNamespaces`, `list or watch objects of kind ${d.kind}`, {
        responses: responses({ '200': 'OK' }, names.list, !custom, true),
      }),
      parameters: [...p.listParameters, p.pretty].sort(byName),
    };
  }
  // kube's deprecated watch paths, for built-in kinds only (its custom-resource builder has none).
  if (!custom && resource.lister && resource.watcher) {
    const watch = (path: string, action: string, id: string, description: string, pathParameters: readonly p.Parameter[]) => {
      paths[path] = {
        get: op(action, id, description, { responses: responses({ '200': 'OK' }, WATCH_EVENT, true, true) }),
        parameters: [...pathParameters, ...p.listParameters, p.pretty].sort(byName),
      };
    };
    const watchBase = d.namespaced ? `${prefix}/watch/namespaces/{namespace}/${d.plural}` : `${prefix}/watch/${d.plural}`;
    const namespace = d.namespaced ? [p.pathNamespace] : [];
    watch(watchBase, 'watchlist', `watch${opGroup}${scoped}${d.kind}List`, `watch changes to a list of ${d.kind} (deprecated: list with watch=true)`, namespace);
    if (resource.getter) watch(`${watchBase}/{name}`, 'watch', `watch${opGroup}${scoped}${d.kind}`, `watch changes to one ${d.kind} (deprecated: list with watch=true and a fieldSelector on metadata.name)`, [p.pathName, ...namespace]);
    if (d.namespaced) watch(`${prefix}/watch/${d.plural}`, 'watchlist', `watch${opGroup}${d.kind}ListForAllNamespaces`, `watch changes to a list of ${d.kind} in every namespace (deprecated: list with watch=true)`, []);
  }
}

function byName(a: p.Parameter, b: p.Parameter): number {
  return String(a['name']).localeCompare(String(b['name']));
}

/** Each `group/version/kind` of `definitions` with the first definition tagged with it (computed once per definitions object). */
const kindIndexes = new WeakMap<Readonly<Record<string, JSONSchemaProps>>, Map<string, string>>();
function namesByKind(definitions: Readonly<Record<string, JSONSchemaProps>>): Map<string, string> {
  let index = kindIndexes.get(definitions);
  if (index === undefined) {
    index = new Map();
    for (const [name, schema] of Object.entries(definitions)) {
      for (const g of schema['x-kubernetes-group-version-kind'] ?? []) {
        const key = `${g.group}/${g.version}/${g.kind}`;
        if (!index.has(key)) index.set(key, name);
      }
    }
    kindIndexes.set(definitions, index);
  }
  return index;
}

/**
 * Every `#/components/schemas/<name>` reference inside `value`. An object met twice (the
 * parameters and schemas every operation shares) is walked once.
 */
function collectRefs(value: unknown, out: Set<string>): void {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) stack.push(...node);
    else {
      for (const [key, child] of Object.entries(node)) {
        if (key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_PREFIX)) out.add(child.slice(COMPONENT_PREFIX.length));
        else stack.push(child);
      }
    }
  }
}

/**
 * The OpenAPI v3 document for one group-version. `definitions` are the registry's named
 * schemas; a kind without a named schema gets its version schema under a synthetic name.
 */
export function buildGroupVersionDocument(gv: GroupVersionResources, definitions: Readonly<Record<string, JSONSchemaProps>>): Record<string, unknown> {
  const schemas: Record<string, JSONSchemaProps> = {};
  const nameFor = (gvk: Gvk, fallback: () => JSONSchemaProps): string => {
    const found = namesByKind(definitions).get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
    if (found !== undefined) return found;
    const name = syntheticName(gvk);
    schemas[name] = { ...fallback(), 'x-kubernetes-group-version-kind': [gvk] };
    return name;
  };
  // A built-in group-version's document starts with its discovery path (custom resources' have none).
  const paths: Record<string, PathItem> = gv.resources.some((r) => !isCustomResource(r)) ? groupVersionDiscoveryPath(gv) : {};
  const schemaFor = (gvk: Gvk) => nameFor(gvk, () => ({ type: 'object' }));
  for (const resource of gv.resources) {
    const d = resource.definition;
    const version = d.versions.find((v) => v.name === resource.version);
    const object = nameFor({ group: d.group, version: resource.version, kind: d.kind }, () => version?.schema ?? { type: 'object' });
    // A list schema only where there is a list operation (create-only reviews have none).
    const list = !resource.lister ? '' : nameFor({ group: d.group, version: resource.version, kind: d.listKind }, () => ({
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { allOf: [ref(`${META}ListMeta`)] },
        items: { type: 'array', items: ref(object) },
      },
    }));
    addResourcePaths(paths, resource, { object, list }, gv, schemaFor);
  }
  return documentOf(paths, schemas, definitions);
}

/** A non-resource document (nonResourcePaths): its paths and the schemas they reach. */
export function buildNonResourceDocument(paths: Record<string, PathItem>, definitions: Readonly<Record<string, JSONSchemaProps>>): Record<string, unknown> {
  return documentOf(paths, {}, definitions);
}

/** The document of `paths`, with `schemas` and every schema they reach (from `definitions` or kapi's fallbacks), sorted. */
function documentOf(paths: Record<string, PathItem>, schemas: Record<string, JSONSchemaProps>, definitions: Readonly<Record<string, JSONSchemaProps>>): Record<string, unknown> {
  const lookup = (name: string): JSONSchemaProps | undefined => schemas[name] ?? definitions[name] ?? FALLBACK_SCHEMAS[name];
  const pending = new Set<string>();
  collectRefs(paths, pending);
  collectRefs(schemas, pending);
  const done = new Set<string>();
  while (pending.size > 0) {
    const name = pending.values().next().value as string;
    pending.delete(name);
    if (done.has(name)) continue;
    done.add(name);
    const schema = lookup(name);
    if (schema === undefined) continue;
    schemas[name] = schema;
    const refs = new Set<string>();
    collectRefs(schema, refs);
    for (const r of refs) if (!done.has(r)) pending.add(r);
  }
  const sorted: Record<string, JSONSchemaProps> = {};
  for (const name of Object.keys(schemas).sort()) sorted[name] = schemas[name]!;
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0-kapi' },
    paths,
    components: { schemas: sorted },
  };
}
