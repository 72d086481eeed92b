/**
 * What every path of kapi's OpenAPI v3 documents is made of: kube's operation ids and tags,
 * references to component schemas, responses, and the hoisting of shared parameters to the
 * path item (document.ts, subresource-paths.ts, non-resource-paths.ts build with these).
 */
import type { RestResource } from '@kapi/registry';
import type { GroupVersionResources } from '../discovery/api-groups.js';
import { acceptedPatchTypes } from '../handlers/patch.js';
import * as p from './parameters.js';
import type { Parameter } from './parameters.js';

export const COMPONENT_PREFIX = '#/components/schemas/';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const STATUS = `${META}Status`;
export const DELETE_OPTIONS = `${META}DeleteOptions`;
export const PATCH = `${META}Patch`;
export const WATCH_EVENT = `${META}WatchEvent`;

export type Operation = Record<string, unknown>;
export type PathItem = Record<string, unknown>;

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

export function ref(name: string): Record<string, string> {
  return { $ref: `${COMPONENT_PREFIX}${name}` };
}

export function titleCase(text: string): string {
  return text
    .split(/[.-]/)
    .filter((s) => s !== '')
    .map((s) => s[0]!.toUpperCase() + s.slice(1))
    .join('');
}

/** A group's short form: `core` for the legacy group, without `.k8s.io`. */
function groupBase(group: string): string {
  return group === '' ? 'core' : group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
}

/** kube's operation-id group part: `CoreV1`, `CoordinationV1`, `RbacAuthorizationV1`; without a version, the group's alone. */
export function operationGroup(group: string, version = ''): string {
  return `${titleCase(groupBase(group))}${titleCase(version)}`;
}

/** kube's tag: `core_v1`, `rbacAuthorization_v1`; without a version, the group's alone (`apps`). */
export function tag(group: string, version = ''): string {
  const camel = operationGroup(group);
  const base = camel[0]!.toLowerCase() + camel.slice(1);
  return version === '' ? base : `${base}_${version}`;
}

/** The media types a built-in route reads and writes, in the order kube's v3 documents list them. */
export const BUILTIN_CONTENT = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'];
const CUSTOM_CONTENT = ['application/json', 'application/yaml'];

const LIST_CONTENT = ['application/json', 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/yaml'];

/** A request body's content: a built-in route takes any type its decoders read (`*\/*`), a custom resource's JSON and YAML. */
export function requestContent(schemaName: string, builtin: boolean): Record<string, unknown> {
  return content(builtin ? ['*/*'] : CUSTOM_CONTENT, ref(schemaName));
}

/** `schema` under each of `mediaTypes`. */
export function content(mediaTypes: readonly string[], schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(mediaTypes.map((type) => [type, { schema }]));
}

/**
 * The responses of a resource operation: each code with the schema in every format the route
 * writes (built-ins: JSON, protobuf, YAML, and a list's watch streams; custom resources: JSON,
 * YAML), and kube's 401.
 */
export function responses(codes: Record<string, string>, schemaName: string, builtin: boolean, list = false): Record<string, unknown> {
  const media = !builtin ? CUSTOM_CONTENT : list ? LIST_CONTENT : BUILTIN_CONTENT;
  const out: Record<string, unknown> = {};
  for (const [code, description] of Object.entries(codes)) out[code] = { description, content: content(media, ref(schemaName)) };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

/**
 * A path item with `pathParameters` plus every parameter all its operations share, moved from
 * the operations to the path (kube's route builder does this: a path with one operation
 * carries all of that operation's parameters), sorted by name.
 */
export function hoistCommonParameters(operations: Record<string, unknown>, pathParameters: readonly Parameter[]): PathItem {
  const ops = Object.values(operations) as Operation[];
  const listOf = (op: Operation) => (op['parameters'] as Parameter[] | undefined) ?? [];
  const common = ops.length === 0 ? [] : listOf(ops[0]!).filter((candidate) => ops.every((op) => listOf(op).includes(candidate)));
  const out: PathItem = {};
  for (const [method, op] of Object.entries(operations) as [string, Operation][]) {
    const rest = listOf(op).filter((x) => !common.includes(x));
    const { parameters: _parameters, ...withoutParameters } = op;
    out[method] = rest.length > 0 ? { ...withoutParameters, parameters: rest } : withoutParameters;
  }
  out['parameters'] = [...pathParameters, ...common].sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
  return out;
}

/** Whether a resource is a custom resource (kube describes those with its custom-resource OpenAPI builder). */
export function isCustomResource(resource: RestResource): boolean {
  return resource.definition.bodyDecoding === 'unstructured';
}

/** What a resource's operations are named and tagged with. */
export interface ResourceNaming {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  readonly prefix: string;
  /** `CoreV1`, `AppsV1`: the operation-id group part. */
  readonly opGroup: string;
  /** `Namespaced` or empty. */
  readonly scoped: string;
  readonly gvk: Gvk;
  /** An operation tagged and marked as kube marks them (`x-kubernetes-action`, the kind). */
  readonly op: (action: string, id: string, description: string, extra: Operation, kind?: Gvk) => Operation;
}

export function resourceNaming(resource: RestResource, gv: GroupVersionResources): ResourceNaming {
  const d = resource.definition;
  const gvk = { group: d.group, version: resource.version, kind: d.kind };
  const tags = [tag(d.group, resource.version)];
  return {
    prefix: gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`,
    opGroup: operationGroup(d.group, resource.version),
    scoped: d.namespaced ? 'Namespaced' : '',
    gvk,
    op: (action, id, description, extra, kind = gvk) => ({ tags, description, operationId: id, ...extra, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': kind }),
  };
}

/**
 * A PATCH operation (of a resource or a subresource answering with `schemaName`): only the
 * patch types the resource accepts (kubectl builds strategic merge patches only where
 * advertised); a custom resource's answers 200 alone, as kube's custom-resource builder says.
 */
export function patchOperation(resource: RestResource, naming: ResourceNaming, id: string, description: string, schemaName: string, kind?: Gvk): Operation {
  const content: Record<string, unknown> = {};
  for (const type of acceptedPatchTypes({ resource })) content[type] = { schema: ref(PATCH) };
  return naming.op('patch', id, description, {
    parameters: [p.dryRun, p.fieldManager, p.fieldValidation, p.force],
    requestBody: { content, required: true },
    responses: isCustomResource(resource) ? responses({ '200': 'OK' }, schemaName, false) : responses({ '200': 'OK', '201': 'Created' }, schemaName, true),
  }, kind);
}

