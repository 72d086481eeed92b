/**
 * The paths of a resource's subresources as kube's route builder describes them: stored ones
 * (status, scale, approval, ephemeralcontainers, finalize) read, replaced and patched; named
 * creaters (binding, eviction, token) posted with their own kind; connecters (exec, attach,
 * portforward, the proxies and their `{path}` routes) one `connect` operation per method with
 * the options kind's fields as query parameters; pods/log a read with PodLogOptions'.
 */
import type { ConnectVerb, RestResource, RestSubresource } from '@kapi/registry';
import { subresourceKind } from '../discovery/api-groups.js';
import { hoistCommonParameters, isCustomResource, requestContent, patchOperation, responses, titleCase, type Gvk, type Operation, type PathItem, type ResourceNaming } from './operations.js';
import * as p from './parameters.js';

/** The HTTP method of each connect verb, with kube's operation-id spelling. */
const CONNECT_METHODS: Readonly<Record<ConnectVerb, { method: string; id: string }>> = {
  get: { method: 'get', id: 'Get' },
  create: { method: 'post', id: 'Post' },
  update: { method: 'put', id: 'Put' },
  patch: { method: 'patch', id: 'Patch' },
  delete: { method: 'delete', id: 'Delete' },
};
/** kube's proxies answer HEAD and OPTIONS too, and say so. */
const PROXY_EXTRA_METHODS = [
  { method: 'head', id: 'Head' },
  { method: 'options', id: 'Options' },
];

const STRING_ANSWER = { '200': { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } }, '401': { description: 'Unauthorized' } };
const LOG_MEDIA = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml', 'text/plain'];

/**
 * Adds the paths of `resource`'s subresources below `itemPath` (`.../{name}`). `schemaFor`
 * names the component schema of a kind; `objectSchema` is the resource's own.
 */
export function addSubresourcePaths(paths: Record<string, PathItem>, resource: RestResource, naming: ResourceNaming, itemPath: string, objectSchema: string, schemaFor: (gvk: Gvk) => string): void {
  const d = resource.definition;
  const scopeParams = d.namespaced ? [p.pathNamespace] : [];
  const builtin = !isCustomResource(resource);
  for (const sub of resource.subresources?.values() ?? []) {
    const id = `${naming.opGroup}${naming.scoped}${d.kind}${titleCase(sub.name)}`;
    const path = `${itemPath}/${sub.name}`;
    if (sub.connecter !== undefined) {
      addConnectPaths(paths, sub, naming, id, path, scopeParams);
      continue;
    }
    const operations: Record<string, Operation> = {};
    // Scale speaks autoscaling/v1 Scale; a custom resource's operations still carry its own kind.
    const subKind = sub.kind ?? subresourceKind(sub.name);
    const kind = subKind === undefined || (!builtin && !sub.creater) ? naming.gvk : subKind;
    const schema = subKind === undefined ? objectSchema : schemaFor(subKind);
    const what = `${sub.name} of the specified ${d.kind}`;
    if (sub.getter) {
      operations['get'] = naming.op('get', `read${id}`, `read ${what}`, {
        ...(!builtin ? { parameters: [p.resourceVersion] } : {}),
        responses: responses({ '200': 'OK' }, schema, builtin),
      }, kind);
    }
    if (sub.creater) {
      operations['post'] = naming.op('post', `create${id}`, `create ${what}`, {
        parameters: [p.dryRun, p.fieldManager, p.fieldValidation],
        requestBody: { content: requestContent(schema, builtin), required: true },
        responses: responses({ '200': 'OK', '201': 'Created', '202': 'Accepted' }, schema, builtin),
      }, kind);
    }
    if (sub.updater) {
      operations['put'] = naming.op('put', `replace${id}`, `replace ${what}`, {
        parameters: [p.dryRun, p.fieldManager, p.fieldValidation],
        requestBody: { content: requestContent(schema, builtin), required: true },
        responses: responses({ '200': 'OK', '201': 'Created' }, schema, builtin),
      }, kind);
    }
    if (sub.patcher) operations['patch'] = patchOperation(resource, naming, `patch${id}`, `partially update ${what}`, schema, kind);
    if (Object.keys(operations).length > 0) paths[path] = hoistCommonParameters(operations, [p.pathName, ...scopeParams, p.pretty]);
  }
}

/** A connecter's routes: pods/log is a read with options; the others connect per method, the proxies with a `{path}` route too. */
function addConnectPaths(paths: Record<string, PathItem>, sub: RestSubresource, naming: ResourceNaming, id: string, path: string, scopeParams: readonly p.Parameter[]): void {
  const connecter = sub.connecter!;
  const kind = sub.kind ?? naming.gvk;
  const named = { ...p.pathName, description: `name of the ${kind.kind}` };
  if (kind.kind === naming.gvk.kind && kind.group === naming.gvk.group) {
    // pods/log: kube's getter with options, answering text.
    const get = naming.op('get', `read${id}`, `read ${sub.name} of the specified ${kind.kind}`, {
      responses: { '200': { description: 'OK', content: Object.fromEntries(LOG_MEDIA.map((type) => [type, { schema: { type: 'string' } }])) }, '401': { description: 'Unauthorized' } },
    });
    paths[path] = { get, parameters: [p.pathName, ...scopeParams, p.pretty, ...(p.connectParameters['PodLogOptions'] ?? [])].sort(byName) };
    return;
  }
  const query = p.connectParameters[kind.kind] ?? [];
  const methods = [...connecter.verbs.map((verb) => CONNECT_METHODS[verb]), ...(connecter.subpaths ? PROXY_EXTRA_METHODS : [])];
  const item = (suffix: string): PathItem => {
    const out: PathItem = {};
    for (const m of methods) {
      out[m.method] = naming.op('connect', `connect${naming.opGroup}${m.id}${naming.scoped}${naming.gvk.kind}${titleCase(sub.name)}${suffix}`, `connect ${m.id.toUpperCase()} requests to ${sub.name} of ${naming.gvk.kind}`, { responses: STRING_ANSWER }, kind);
    }
    return out;
  };
  paths[path] = { ...item(''), parameters: [named, ...scopeParams, ...query].sort(byName) };
  if (connecter.subpaths) paths[`${path}/{path}`] = { ...item('WithPath'), parameters: [named, ...scopeParams, p.pathPath, ...query].sort(byName) };
}

function byName(a: p.Parameter, b: p.Parameter): number {
  return String(a['name']).localeCompare(String(b['name']));
}
