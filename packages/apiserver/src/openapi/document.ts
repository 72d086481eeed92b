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
import { acceptedPatchTypes } from '../handlers/patch.js';

export const COMPONENT_PREFIX = '#/components/schemas/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const STATUS = `${META}Status`;
const DELETE_OPTIONS = `${META}DeleteOptions`;
const PATCH = `${META}Patch`;


const FALLBACK_SCHEMAS: Record<string, JSONSchemaProps> = {
  [PATCH]: { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' },
  [STATUS]: { description: 'Status is a return value for calls that do not return other objects.', type: 'object', 'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }] },
  [DELETE_OPTIONS]: { description: 'DeleteOptions may be provided when deleting an API object.', type: 'object' },
};

type Operation = Record<string, unknown>;

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

function ref(name: string): Record<string, string> {
  return { $ref: `${COMPONENT_PREFIX}${name}` };
}

function titleCase(text: string): string {
  return text
    .split(/[.-]/)
    .filter((s) => s !== '')
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

/** kube's operation-id group part: `CoreV1`, `CoordinationV1` (first DNS label of the group). */
function operationGroup(group: string, version: string): string {
  const base = group === '' ? 'core' : group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  return `${titleCase(base)}${titleCase(version)}`;
}

function tag(group: string, version: string): string {
  const base = group === '' ? 'core' : group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  return `${base.replace(/[.-]/g, '')}_${version}`;
}

/** A name for a schema the registry does not name: kube's reversed-domain convention. */
function syntheticName(gvk: Gvk): string {
  const domain = gvk.group === '' ? 'io.k8s.api.core' : gvk.group.split('.').reverse().join('.');
  return `${domain}.${gvk.version}.${gvk.kind}`;
}

function jsonContent(schemaName: string): Record<string, unknown> {
  const schema = ref(schemaName);
  return { 'application/json': { schema }, 'application/yaml': { schema } };
}

function responses(codes: Record<string, string>, schemaName: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [code, description] of Object.entries(codes)) out[code] = { description, content: jsonContent(schemaName) };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

interface SchemaNames {
  object: string;
  list: string;
}

/** Builds the operations of one resource into `paths`. */
function addResourcePaths(paths: Record<string, Record<string, unknown>>, resource: RestResource, names: SchemaNames, gv: GroupVersionResources): void {
  const d = resource.definition;
  const prefix = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const gvk = { group: d.group, version: resource.version, kind: d.kind };
  const opGroup = operationGroup(d.group, resource.version);
  const scoped = d.namespaced ? 'Namespaced' : '';
  const tags = [tag(d.group, resource.version)];
  const op = (action: string, id: string, description: string, extra: Operation): Operation => ({
    tags,
    description,
    operationId: id,
    ...extra,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  const collection: Record<string, unknown> = {};
  const item: Record<string, unknown> = {};
  if (resource.lister) {
    collection['get'] = op('list', `list${opGroup}${scoped}${d.kind}`, `list or watch objects of kind ${d.kind}`, {
      parameters: p.listParameters,
      responses: responses({ '200': 'OK' }, names.list),
    });
  }
  if (resource.creater) {
    collection['post'] = op('post', `create${opGroup}${scoped}${d.kind}`, `create a ${d.kind}`, {
      parameters: [p.dryRun, p.fieldManager, p.fieldValidation],
      requestBody: { content: jsonContent(names.object), required: true },
      responses: responses({ '200': 'OK', '201': 'Created', '202': 'Accepted' }, names.object),
    });
  }
  if (resource.collectionDeleter) {
    collection['delete'] = op('deletecollection', `delete${opGroup}Collection${scoped}${d.kind}`, `delete collection of ${d.kind}`, {
      parameters: [p.dryRun, p.gracePeriodSeconds, p.orphanDependents, p.propagationPolicy, ...p.listParameters.filter((x) => x['name'] !== 'watch' && x['name'] !== 'allowWatchBookmarks')],
      requestBody: { content: jsonContent(DELETE_OPTIONS) },
      responses: responses({ '200': 'OK' }, STATUS),
    });
  }
  if (resource.getter) {
    item['get'] = op('get', `read${opGroup}${scoped}${d.kind}`, `read the specified ${d.kind}`, { responses: responses({ '200': 'OK' }, names.object) });
  }
  if (resource.updater) {
    item['put'] = op('put', `replace${opGroup}${scoped}${d.kind}`, `replace the specified ${d.kind}`, {
      parameters: [p.dryRun, p.fieldManager, p.fieldValidation],
      requestBody: { content: jsonContent(names.object), required: true },
      responses: responses({ '200': 'OK', '201': 'Created' }, names.object),
    });
  }
  if (resource.patcher) {
    // Only the patch types the resource accepts: kubectl builds strategic merge patches only where advertised.
    const content: Record<string, unknown> = {};
    for (const type of acceptedPatchTypes({ resource })) content[type] = { schema: ref(PATCH) };
    item['patch'] = op('patch', `patch${opGroup}${scoped}${d.kind}`, `partially update the specified ${d.kind}`, {
      parameters: [p.dryRun, p.fieldManager, p.fieldValidation, p.force],
      requestBody: { content, required: true },
      responses: responses({ '200': 'OK', '201': 'Created' }, names.object),
    });
  }
  if (resource.deleter) {
    item['delete'] = op('delete', `delete${opGroup}${scoped}${d.kind}`, `delete a ${d.kind}`, {
      parameters: [p.dryRun, p.gracePeriodSeconds, p.orphanDependents, p.propagationPolicy],
      requestBody: { content: jsonContent(DELETE_OPTIONS) },
      responses: responses({ '200': 'OK', '202': 'Accepted' }, STATUS),
    });
  }
  const base = d.namespaced ? `${prefix}/namespaces/{namespace}/${d.plural}` : `${prefix}/${d.plural}`;
  const scopeParams = d.namespaced ? [p.pathNamespace, p.pretty] : [p.pretty];
  if (Object.keys(collection).length > 0) paths[base] = hoistCommonParameters(collection, scopeParams);
  if (Object.keys(item).length > 0) paths[`${base}/{name}`] = hoistCommonParameters(item, [p.pathName, ...scopeParams]);
  if (d.namespaced && resource.lister) {
    paths[`${prefix}/${d.plural}`] = {
      get: op('list', `list${opGroup}${d.kind}ForAllNamespaces`, `list or watch objects of kind ${d.kind}`, {
        responses: responses({ '200': 'OK' }, names.list),
      }),
      parameters: [...p.listParameters, p.pretty],
    };
  }
}

/**
 * A path item with `pathParameters` plus every parameter all its operations share, moved from
 * the operations to the path (kube's route builder does this: a path with one operation
 * carries all of that operation's parameters), sorted by name.
 */
function hoistCommonParameters(operations: Record<string, unknown>, pathParameters: readonly p.Parameter[]): Record<string, unknown> {
  const ops = Object.values(operations) as Operation[];
  const listOf = (op: Operation) => (op['parameters'] as p.Parameter[] | undefined) ?? [];
  const common = listOf(ops[0]!).filter((candidate) => ops.every((op) => listOf(op).includes(candidate)));
  const out: Record<string, unknown> = {};
  for (const [method, op] of Object.entries(operations) as [string, Operation][]) {
    const rest = listOf(op).filter((x) => !common.includes(x));
    const { parameters: _parameters, ...withoutParameters } = op;
    out[method] = rest.length > 0 ? { ...withoutParameters, parameters: rest } : withoutParameters;
  }
  out['parameters'] = [...pathParameters, ...common].sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
  return out;
}

function hasGvk(schema: JSONSchemaProps, gvk: Gvk): boolean {
  return (schema['x-kubernetes-group-version-kind'] ?? []).some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind);
}

/** Every `#/components/schemas/<name>` reference inside `value`. */
function collectRefs(value: unknown, out: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (typeof node === 'object' && node !== null) {
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
  const lookup = (name: string): JSONSchemaProps | undefined => schemas[name] ?? definitions[name] ?? FALLBACK_SCHEMAS[name];
  const nameFor = (gvk: Gvk, fallback: () => JSONSchemaProps): string => {
    const found = Object.keys(definitions).find((name) => hasGvk(definitions[name]!, gvk));
    if (found !== undefined) return found;
    const name = syntheticName(gvk);
    schemas[name] = { ...fallback(), 'x-kubernetes-group-version-kind': [gvk] };
    return name;
  };
  const paths: Record<string, Record<string, unknown>> = {};
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
    addResourcePaths(paths, resource, { object, list }, gv);
  }
  // Transitive closure of the referenced schemas.
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
