/**
 * The scripted requests of the differential suite, sent in this order to kube-apiserver 1.32
 * and to kapi (each on an empty etcd). A case is one request; `setup` cases prepare state and
 * are not compared; `until` repeats a request (up to ~10 s) until the answer says the
 * state arrived (a CRD established, a FlowSchema's condition written). Names are unique: deliberate-differences.ts refers to them.
 */
import { MINIMAL_OBJECTS } from '@kapi/apiserver/testing';
import type { Answer, Request } from './send.js';
import { TABLE_CASES } from './table-cases.js';

export interface Case extends Request {
  readonly name: string;
  /** Prepare state only: not compared. */
  readonly setup?: boolean;
  /** Repeat until this holds (a setup case: until the state arrived; a compared one: until a server's own controller has written). */
  readonly until?: (answer: Answer) => boolean;
  /** What of the body is compared (a large document's outline), when not all of it. */
  readonly outline?: (body: unknown) => unknown;
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const plc = (name: string, spec: Json) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec });
const flowSchema = (name: string, spec: Json) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name },
  spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000, rules: [{ subjects: [{ kind: 'User', user: { name: 'diff' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/diff'] }] }], ...spec },
});

/** A Status whose messages print Go pointers (kube prints a fixed spec with `%#v`): the addresses masked. */
export function goPointers(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body).replace(/\(0x[0-9a-f]+\)/g, '(0x…)')) as unknown;
}

/**
 * A 422 Status with its causes (and the list in its message) sorted: kube lists a custom
 * resource's schema errors in Go map iteration order, which changes from one request to the next.
 */
export function unorderedCauses(body: unknown): unknown {
  const status = asObject(body);
  const details = asObject(status['details']);
  const causes = Array.isArray(details['causes']) ? [...(details['causes'] as Json[])] : [];
  causes.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const message = typeof status['message'] === 'string' ? status['message'] : '';
  const list = /^(.* is invalid: )\[(.*)\]$/.exec(message);
  const sorted = list === null ? message : `${list[1]}[${list[2]!.split(', ').sort().join(', ')}]`;
  return { ...status, message: sorted, details: { ...details, causes } };
}

/**
 * The outline of an OpenAPI v2 document: its header, the kinds its definitions are tagged
 * with, and per path and method the operation id, action, kind and parameter names (the parts
 * clients read; descriptions and schemas bodies are left out).
 */
export function openapiV2Outline(body: unknown): unknown {
  const doc = asObject(body);
  const shared = asObject(doc['parameters']);
  // Parameters as a map `<in>:<name>` → required (compared by name, not by position).
  const parameterNames = (list: unknown) =>
    Object.fromEntries(
      (Array.isArray(list) ? list : []).map((p) => {
        const ref = asObject(p)['$ref'];
        const resolved = typeof ref === 'string' ? asObject(shared[ref.slice('#/parameters/'.length)]) : asObject(p);
        return [`${String(resolved['in'])}:${String(resolved['name'])}`, resolved['required'] === true];
      }),
    );
  // Definition names with their kinds, as a map (compared by name, not by position).
  const kinds: Json = {};
  for (const [name, schema] of Object.entries(asObject(doc['definitions']))) {
    const gvk = asObject(schema)['x-kubernetes-group-version-kind'];
    if (gvk !== undefined) kinds[name] = gvk;
  }
  const paths: Json = {};
  for (const [path, item] of Object.entries(asObject(doc['paths']))) {
    const operations: Json = { parameters: parameterNames(asObject(item)['parameters']) };
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = asObject(asObject(item)[method]);
      if (Object.keys(op).length === 0) continue;
      operations[method] = { operationId: op['operationId'], action: op['x-kubernetes-action'], kind: op['x-kubernetes-group-version-kind'], parameters: parameterNames(op['parameters']), consumes: op['consumes'], produces: op['produces'] };
    }
    paths[path] = operations;
  }
  return { swagger: doc['swagger'], info: doc['info'], security: doc['security'], securityDefinitions: doc['securityDefinitions'], kinds, paths };
}

/** The documents an OpenAPI v3 index lists (their hashes differ with the documents' texts); kube types the JSON text/plain. */
export function openapiV3IndexOutline(body: unknown): unknown {
  const doc = typeof body === 'string' ? (JSON.parse(body) as unknown) : body;
  return Object.keys(asObject(asObject(doc)['paths'])).sort();
}

const NS = 'diff';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const JSON_TYPE = { 'content-type': 'application/json' };
const YAML = 'application/yaml';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const cm = (name: string, data: Record<string, string> = { a: '1' }, labels: Record<string, string> = { suite: 'diff' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

const WIDGETS_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.diff.example.com' },
  spec: {
    group: 'diff.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { size: { type: 'integer', minimum: 1, maximum: 10 }, colour: { type: 'string', maxLength: 8 }, code: { type: 'string', maxLength: 3, pattern: '^[a-z]+$' } },
              },
            },
          },
        },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        subresources: { status: {} },
      },
    ],
  },
};
const WIDGETS = `/apis/diff.example.com/v1/namespaces/${NS}/widgets`;
const widget = (name: string, spec: Record<string, unknown> = { size: 3 }) => ({ apiVersion: 'diff.example.com/v1', kind: 'Widget', metadata: { name }, spec });

const established = (a: Answer) =>
  a.status === 200 &&
  ((a.body as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');

const CLUSTER_ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
const lease = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec });

/** Requests that need no catalogue knowledge: discovery, non-API paths, ConfigMap life cycle, errors, watch, CRDs. */
export const CASES: readonly Case[] = [
  // Non-API paths and discovery.
  { name: 'healthz', method: 'GET', path: '/healthz' },
  { name: 'livez', method: 'GET', path: '/livez' },
  { name: 'readyz unknown check', method: 'GET', path: '/readyz/nope' },
  { name: 'unknown path', method: 'GET', path: '/nope' },
  { name: 'unknown group', method: 'GET', path: '/apis/nope.example.com/v1' },
  { name: 'unknown group root', method: 'GET', path: '/apis/nope.example.com' },
  { name: 'api', method: 'GET', path: '/api' },
  { name: 'apis', method: 'GET', path: '/apis' },
  { name: 'core v1 resources', method: 'GET', path: '/api/v1' },
  { name: 'api aggregated', method: 'GET', path: '/api', headers: { accept: AGGREGATED } },
  { name: 'apis aggregated', method: 'GET', path: '/apis', headers: { accept: AGGREGATED } },
  { name: 'apps group', method: 'GET', path: '/apis/apps' },
  { name: 'coordination group', method: 'GET', path: '/apis/coordination.k8s.io' },
  { name: 'events group', method: 'GET', path: '/apis/events.k8s.io' },
  { name: 'coordination v1beta1', method: 'GET', path: '/apis/coordination.k8s.io/v1beta1' },
  { name: 'events v1beta1', method: 'GET', path: '/apis/events.k8s.io/v1beta1' },
  { name: 'apps v1 resources', method: 'GET', path: '/apis/apps/v1' },
  { name: 'unknown version', method: 'GET', path: '/apis/apps/v9' },
  { name: 'unknown core resource', method: 'GET', path: '/api/v1/nopes' },
  { name: 'unknown core version', method: 'GET', path: '/api/v2' },
  { name: 'unknown group resource', method: 'GET', path: '/apis/nope.example.com/v1/widgets' },
  { name: 'openapi v3 index', method: 'GET', path: '/openapi/v3', outline: openapiV3IndexOutline },
  { name: 'unknown openapi group', method: 'GET', path: '/openapi/v3/apis/nope.example.com/v1' },
  { name: 'openapi v2', method: 'GET', path: '/openapi/v2', outline: openapiV2Outline },
  { name: 'openapi v2 protobuf', method: 'GET', path: '/openapi/v2', headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } },
  { name: 'openapi v2 protobuf preferred', method: 'GET', path: '/openapi/v2', headers: { accept: 'application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } },
  { name: 'openapi v2 yaml', method: 'GET', path: '/openapi/v2', headers: { accept: 'application/yaml' } },
  { name: 'openapi v2 subpath', method: 'GET', path: '/openapi/v2/nope' },
  { name: 'cluster path of namespaced item', method: 'GET', path: '/api/v1/configmaps/x' },
  { name: 'namespaces under namespace', method: 'GET', path: '/api/v1/namespaces/default/namespaces' },
  { name: 'unknown subresource', method: 'GET', path: '/api/v1/namespaces/default/configmaps/x/status' },
  { name: 'unknown version of served group', method: 'GET', path: '/apis/apps/v9/deployments' },

  // Namespaces.
  { name: 'create namespace', method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } },
  { name: 'get namespace', method: 'GET', path: `/api/v1/namespaces/${NS}` },
  { name: 'create namespace again', method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } },
  { name: 'namespace bad name', method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Bad_Name' } } },
  { name: 'namespace by label', method: 'GET', path: `/api/v1/namespaces?labelSelector=kubernetes.io%2Fmetadata.name%3D${NS}` },
  { name: 'deletecollection namespaces', method: 'DELETE', path: '/api/v1/namespaces?labelSelector=nothing%3Dmatches' },
  { name: 'serviceaccount for pods', method: 'POST', path: `/api/v1/namespaces/${NS}/serviceaccounts`, body: { metadata: { name: 'default' } }, setup: true },

  // ConfigMap life cycle, every verb.
  { name: 'create configmap', method: 'POST', path: CM, body: cm('one') },
  { name: 'create configmap yaml', method: 'POST', path: CM, headers: { 'content-type': YAML }, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  labels: {suite: diff}\ndata:\n  b: "2"\n' },
  { name: 'create configmap generateName', method: 'POST', path: CM, body: { ...cm(''), metadata: { generateName: 'gen-', labels: { suite: 'gen' } } } },
  { name: 'create configmap dryRun', method: 'POST', path: `${CM}?dryRun=All`, body: cm('dry') },
  { name: 'get dry-run configmap', method: 'GET', path: `${CM}/dry` },
  { name: 'get configmap', method: 'GET', path: `${CM}/one` },
  { name: 'get configmap yaml', method: 'GET', path: `${CM}/one`, headers: { accept: YAML } },
  { name: 'create yaml-ambiguous configmap', method: 'POST', path: CM, body: cm('y', { n: 'on', mode: '0777', e: '', dot: '.', t: '2024-01-01T00:00:00Z', long: 'word '.repeat(30) }, { suite: 'yaml' }) },
  { name: 'get yaml-ambiguous configmap yaml', method: 'GET', path: `${CM}/y`, headers: { accept: YAML } },
  { name: 'get configmap protobuf', method: 'GET', path: `${CM}/one`, headers: { accept: PROTOBUF } },
  { name: 'get configmap accept list', method: 'GET', path: `${CM}/one`, headers: { accept: 'application/foo, application/json;q=0.9' } },
  { name: 'get configmap unacceptable', method: 'GET', path: `${CM}/one`, headers: { accept: 'application/foo' } },
  { name: 'get missing configmap', method: 'GET', path: `${CM}/missing` },
  { name: 'head configmap', method: 'HEAD', path: `${CM}/one` },
  { name: 'unknown method', method: 'FOO', path: `${CM}/one` },
  { name: 'double slash', method: 'GET', path: `/api/v1//namespaces/${NS}/configmaps/one` },
  { name: 'encoded slash in name', method: 'GET', path: `${CM}/a%2Fb` },
  { name: 'list configmaps', method: 'GET', path: CM },
  { name: 'configmaps as table', method: 'GET', path: `${CM}?labelSelector=suite%3Ddiff`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } },
  { name: 'list configmaps yaml', method: 'GET', path: CM, headers: { accept: YAML } },
  { name: 'list configmaps limit', method: 'GET', path: `${CM}?limit=1` },
  { name: 'list configmaps rv0 limit', method: 'GET', path: `${CM}?resourceVersion=0&limit=1` },
  { name: 'list configmaps labelSelector', method: 'GET', path: `${CM}?labelSelector=suite%3Ddiff` },
  { name: 'list configmaps fieldSelector', method: 'GET', path: `${CM}?fieldSelector=metadata.name%3Done` },
  { name: 'list configmaps bad fieldSelector', method: 'GET', path: `${CM}?fieldSelector=data.a%3D1` },
  { name: 'list configmaps bad labelSelector', method: 'GET', path: `${CM}?labelSelector=%3D%3D%3D` },
  { name: 'list configmaps bad limit', method: 'GET', path: `${CM}?limit=abc` },
  { name: 'list configmaps bad continue', method: 'GET', path: `${CM}?limit=1&continue=garbage` },
  { name: 'list configmaps all namespaces selector', method: 'GET', path: '/api/v1/configmaps?labelSelector=suite%3Ddiff' },
  { name: 'watch configmaps', method: 'GET', path: `${CM}?watch=true&timeoutSeconds=1&labelSelector=suite%3Ddiff` },
  { name: 'watch configmap by name', method: 'GET', path: `${CM}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Done` },
  { name: 'watch bad timeout', method: 'GET', path: `${CM}?watch=true&timeoutSeconds=abc` },
  { name: 'update configmap', method: 'PUT', path: `${CM}/one`, body: cm('one', { a: '2' }) },
  { name: 'update configmap stale rv', method: 'PUT', path: `${CM}/one`, body: { ...cm('one', { a: '3' }), metadata: { name: 'one', resourceVersion: '1' } } },
  { name: 'update configmap name mismatch', method: 'PUT', path: `${CM}/one`, body: cm('other') },
  { name: 'update missing configmap creates', method: 'PUT', path: `${CM}/three`, body: cm('three') },
  { name: 'merge patch configmap', method: 'PATCH', path: `${CM}/one`, headers: { 'content-type': 'application/merge-patch+json' }, body: { data: { m: 'x' } } },
  { name: 'strategic patch configmap', method: 'PATCH', path: `${CM}/one`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: { data: { s: 'y' } } },
  { name: 'json patch configmap', method: 'PATCH', path: `${CM}/one`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'add', path: '/data/j', value: 'z' }] },
  { name: 'json patch failed test', method: 'PATCH', path: `${CM}/one`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'test', path: '/data/j', value: 'no' }] },
  { name: 'json patch unknown op', method: 'PATCH', path: `${CM}/one`, headers: { 'content-type': 'application/json-patch+json' }, body: [{ op: 'frobnicate', path: '/data/j' }] },
  { name: 'patch wrong content type', method: 'PATCH', path: `${CM}/one`, headers: { 'content-type': 'text/plain' }, body: '{}' },
  { name: 'patch missing configmap', method: 'PATCH', path: `${CM}/missing`, headers: { 'content-type': 'application/merge-patch+json' }, body: { data: { m: 'x' } } },
  { name: 'apply configmap', method: 'PATCH', path: `${CM}/applied?fieldManager=diff`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(cm('applied')) },
  { name: 'apply configmap no manager', method: 'PATCH', path: `${CM}/applied`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(cm('applied')) },
  { name: 'apply configmap conflict', method: 'PATCH', path: `${CM}/applied?fieldManager=other`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(cm('applied', { a: 'other' })) },
  { name: 'get applied configmap', method: 'GET', path: `${CM}/applied` },

  // Bad bodies.
  { name: 'create invalid json', method: 'POST', path: CM, headers: JSON_TYPE, body: '{"metadata": ' },
  { name: 'create null body', method: 'POST', path: CM, headers: JSON_TYPE, body: 'null' },
  { name: 'create empty body', method: 'POST', path: CM, headers: JSON_TYPE, body: '' },
  { name: 'create wrong kind', method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong' } } },
  { name: 'create number in string map', method: 'POST', path: CM, body: { ...cm('num'), data: { a: 1 } } },
  { name: 'create bad name', method: 'POST', path: CM, body: cm('Bad_Name') },
  { name: 'create no name', method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } },
  { name: 'create namespace mismatch', method: 'POST', path: CM, body: { ...cm('ns'), metadata: { name: 'ns', namespace: 'other' } } },
  { name: 'create unknown field strict', method: 'POST', path: `${CM}?fieldValidation=Strict`, body: { ...cm('strict'), bogus: 1 } },
  { name: 'create unknown field warn', method: 'POST', path: `${CM}?fieldValidation=Warn`, body: { ...cm('warn'), bogus: 1 } },
  { name: 'create duplicate field strict', method: 'POST', path: `${CM}?fieldValidation=Strict`, headers: JSON_TYPE, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}' },
  { name: 'create duplicate field warn', method: 'POST', path: CM, headers: JSON_TYPE, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dupwarn","labels":{"x":"1"},"labels":{"y":"2"}},"data":{"a":"1","b":"1"},"data":{"b":"2"}}' },
  { name: 'create bad fieldValidation', method: 'POST', path: `${CM}?fieldValidation=Loud`, body: cm('loud') },
  { name: 'create unsupported content type', method: 'POST', path: CM, headers: { 'content-type': 'text/plain' }, body: 'hello' },
  { name: 'create in missing namespace', method: 'POST', path: '/api/v1/namespaces/missing/configmaps', body: cm('x') },
  { name: 'create bad dryRun', method: 'POST', path: `${CM}?dryRun=Some`, body: cm('dr') },

  // Deletes.
  { name: 'delete configmap bad precondition', method: 'DELETE', path: `${CM}/two`, body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } },
  { name: 'delete configmap stale rv precondition', method: 'DELETE', path: `${CM}/two`, body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } } },
  { name: 'delete configmap', method: 'DELETE', path: `${CM}/two` },
  { name: 'delete missing configmap', method: 'DELETE', path: `${CM}/two` },
  { name: 'delete configmap dryRun', method: 'DELETE', path: `${CM}/one?dryRun=All` },
  { name: 'deletecollection configmaps', method: 'DELETE', path: `${CM}?labelSelector=suite%3Dgen` },
  { name: 'list after deletecollection', method: 'GET', path: `${CM}?labelSelector=suite%3Dgen` },

  // Secrets: stringData.
  { name: 'create secret stringData', method: 'POST', path: `/api/v1/namespaces/${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } } },
  { name: 'create secret bad base64', method: 'POST', path: `/api/v1/namespaces/${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b64' }, data: { k: '!!!' } } },

  // Leases: typed time fields, removed versions.
  { name: 'create lease', method: 'POST', path: LEASES, body: lease('l', { holderIdentity: 'me', renewTime: '2024-01-01T00:00:00.000000Z', leaseDurationSeconds: 10 }) },
  { name: 'create lease bad time', method: 'POST', path: LEASES, body: lease('bad', { renewTime: 'yesterday' }) },
  { name: 'get lease', method: 'GET', path: `${LEASES}/l` },
  { name: 'lease v1beta1', method: 'GET', path: `/apis/coordination.k8s.io/v1beta1/namespaces/${NS}/leases` },

  // Events in both groups.
  {
    name: 'create core event',
    method: 'POST',
    path: `/api/v1/namespaces/${NS}/events`,
    body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev' }, involvedObject: { kind: 'Pod', name: 'p', namespace: NS }, reason: 'R', message: 'm', type: 'Normal', count: 1 },
  },
  { name: 'get event as events.k8s.io', method: 'GET', path: `/apis/events.k8s.io/v1/namespaces/${NS}/events/ev` },
  { name: 'events v1beta1', method: 'GET', path: `/apis/events.k8s.io/v1beta1/namespaces/${NS}/events` },
  {
    name: 'create events.k8s.io event',
    method: 'POST',
    path: `/apis/events.k8s.io/v1/namespaces/${NS}/events`,
    body: {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev2' }, eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'diff.example.com/test',
      reportingInstance: 'diff-1', action: 'Act', reason: 'R', regarding: { kind: 'Pod', name: 'p', namespace: NS }, note: 'n', type: 'Normal',
    },
  },
  { name: 'get events.k8s.io event as core event', method: 'GET', path: `/api/v1/namespaces/${NS}/events/ev2` },

  // Lists Go writes as null (no omitempty): ClusterRole rules absent, [] and null; a CSINode driver's topologyKeys.
  ...(['absent', 'empty', 'null'] as const).map((how) => ({
    name: `create clusterrole rules ${how}`,
    method: 'POST',
    path: CLUSTER_ROLES,
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `diff-rules-${how}`, labels: { suite: 'rules' } }, ...(how === 'absent' ? {} : { rules: how === 'empty' ? [] : null }) },
  })),
  { name: 'create clusterrole rules absent dryRun', method: 'POST', path: `${CLUSTER_ROLES}?dryRun=All`, body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'diff-rules-dry' } } },
  { name: 'get clusterrole rules empty', method: 'GET', path: `${CLUSTER_ROLES}/diff-rules-empty` },
  { name: 'get clusterrole rules empty yaml', method: 'GET', path: `${CLUSTER_ROLES}/diff-rules-empty`, headers: { accept: YAML } },
  { name: 'get clusterrole rules empty protobuf', method: 'GET', path: `${CLUSTER_ROLES}/diff-rules-empty`, headers: { accept: PROTOBUF } },
  { name: 'list clusterroles rules', method: 'GET', path: `${CLUSTER_ROLES}?labelSelector=suite%3Drules` },
  { name: 'watch clusterroles rules', method: 'GET', path: `${CLUSTER_ROLES}?watch=true&timeoutSeconds=1&labelSelector=suite%3Drules` },
  {
    name: 'update clusterrole rules null to empty',
    method: 'PUT',
    path: `${CLUSTER_ROLES}/diff-rules-absent?fieldManager=second`,
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'diff-rules-absent', labels: { suite: 'rules' } }, rules: [] },
  },
  {
    name: 'update clusterrole rules dryRun',
    method: 'PUT',
    path: `${CLUSTER_ROLES}/diff-rules-null?dryRun=All`,
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'diff-rules-null', labels: { suite: 'rules', dry: 'run' } } },
  },
  {
    name: 'create csinode driver without topologyKeys',
    method: 'POST',
    path: '/apis/storage.k8s.io/v1/csinodes',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'diff-node' }, spec: { drivers: [{ name: 'd.example.com', nodeID: 'diff-node', allocatable: {} }] } },
  },

  // flowcontrol validation: invalid FlowSchemas and priority levels, an invalid update, a mandatory level's fixed spec.
  { name: 'create prioritylevel exempt type', method: 'POST', path: `${FC}/prioritylevelconfigurations`, body: plc('diff-exempt-type', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0 } }) },
  {
    name: 'create prioritylevel invalid limited',
    method: 'POST',
    path: `${FC}/prioritylevelconfigurations`,
    body: plc('diff-bad-limited', { type: 'Limited', exempt: {}, limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -1, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: -1 } } } }),
  },
  { name: 'create prioritylevel reject with queuing', method: 'POST', path: `${FC}/prioritylevelconfigurations`, body: plc('diff-reject', { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 2 } } } }) },
  {
    name: 'create prioritylevel zero-shares annotation and too much entropy',
    method: 'POST',
    path: `${FC}/prioritylevelconfigurations`,
    body: { ...plc('diff-entropy', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 10000001, handSize: 7, queueLengthLimit: 5 } } } }), metadata: { name: 'diff-entropy', annotations: { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' } } },
  },
  { name: 'create prioritylevel too much entropy', method: 'POST', path: `${FC}/prioritylevelconfigurations`, body: plc('diff-entropy', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 1000000, handSize: 4, queueLengthLimit: 5 } } } }) },
  { name: 'create prioritylevel unknown type', method: 'POST', path: `${FC}/prioritylevelconfigurations`, body: plc('diff-odd', { type: 'Sometimes' }) },
  {
    name: 'create flowschema invalid',
    method: 'POST',
    path: `${FC}/flowschemas`,
    body: flowSchema('diff-bad-fs', {
      matchingPrecedence: 1,
      distinguisherMethod: { type: 'ByFoo' },
      priorityLevelConfiguration: { name: 'Bad_Level' },
      rules: [
        { subjects: [] },
        {
          subjects: [{ kind: 'User', user: { name: '' }, group: { name: 'g' } }, { kind: 'ServiceAccount', serviceAccount: { name: 'Bad_SA' } }, { kind: 'Robot' }],
          resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*', 'apps'], resources: [], namespaces: ['*', 'x'] }, { verbs: ['fly'], apiGroups: [''], resources: ['pods'], namespaces: ['Bad_NS'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz', '/a//b', '/a*', '/a b'] }],
        },
      ],
    }),
  },
  { name: 'create flowschema valid', method: 'POST', path: `${FC}/flowschemas`, body: flowSchema('diff-fs', {}) },
  { name: 'update flowschema invalid', method: 'PUT', path: `${FC}/flowschemas/diff-fs`, body: flowSchema('diff-fs', { matchingPrecedence: 10001, rules: [{ subjects: [{ kind: 'Group' }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }] }) },
  { name: 'update mandatory flowschema spec', method: 'PATCH', path: `${FC}/flowschemas/exempt`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { matchingPrecedence: 2 } }, outline: goPointers },
  { name: 'update mandatory prioritylevel spec', method: 'PATCH', path: `${FC}/prioritylevelconfigurations/catch-all`, headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { limited: { nominalConcurrencyShares: 6 } } }, outline: goPointers },
  {
    name: 'update flowschema status invalid',
    method: 'PATCH',
    path: `${FC}/flowschemas/diff-fs/status`,
    headers: { 'content-type': 'application/merge-patch+json' },
    body: { status: { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling', status: 'True' }, { type: '', status: 'True' }] } },
  },
  { name: 'delete flowschema valid', method: 'DELETE', path: `${FC}/flowschemas/diff-fs` },

  // Custom resources.
  { name: 'create crd', method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: WIDGETS_CRD },
  { name: 'wait for crd', method: 'GET', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WIDGETS_CRD.metadata.name}`, setup: true, until: established },
  { name: 'wait for widgets', method: 'GET', path: WIDGETS, setup: true, until: (a) => a.status === 200 },
  { name: 'get crd', method: 'GET', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WIDGETS_CRD.metadata.name}` },
  { name: 'apply crd as another manager', method: 'PATCH', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WIDGETS_CRD.metadata.name}?fieldManager=second`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(WIDGETS_CRD) },
  { name: 'create widget', method: 'POST', path: WIDGETS, body: widget('w1') },
  { name: 'create widget bad name', method: 'POST', path: WIDGETS, body: widget('W_10') },
  { name: 'create widget wrong kind', method: 'POST', path: WIDGETS, body: { ...widget('w2'), kind: 'Gadget' } },
  { name: 'create widget invalid', method: 'POST', path: WIDGETS, body: widget('w3', { size: 0, colour: 'much-too-long' }), outline: unorderedCauses },
  { name: 'create widget field failing two rules', method: 'POST', path: WIDGETS, body: widget('w5', { size: 2, code: 'ABCDE' }) },
  { name: 'create widget unknown field', method: 'POST', path: `${WIDGETS}?fieldValidation=Strict`, body: widget('w4', { size: 2, shape: 'round' }) },
  { name: 'get widget', method: 'GET', path: `${WIDGETS}/w1` },
  { name: 'openapi v2 with widgets', method: 'GET', path: '/openapi/v2', outline: openapiV2Outline },
  { name: 'list widgets', method: 'GET', path: WIDGETS },
  { name: 'widgets as table', method: 'GET', path: WIDGETS, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } },
  { name: 'patch widget status', method: 'PATCH', path: `${WIDGETS}/w1/status`, headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { ok: true } } },
  { name: 'watch widgets', method: 'GET', path: `${WIDGETS}?watch=true&timeoutSeconds=1` },
  { name: 'delete widget', method: 'DELETE', path: `${WIDGETS}/w1` },
  { name: 'delete crd', method: 'DELETE', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WIDGETS_CRD.metadata.name}` },
  ...TABLE_CASES,
];

/**
 * What kube-apiserver's own controllers write into a catalogue object just after its create,
 * by `<group>/<plural>`: the read waits for it on both servers (it comes within milliseconds,
 * but the create answer does not carry it).
 */
const SETTLED: Readonly<Record<string, (answer: Answer) => boolean>> = {
  // The priority-and-fairness config consumer's Dangling condition.
  'flowcontrol.apiserver.k8s.io/flowschemas': (a) => Array.isArray(asObject(asObject(a.body)['status'])['conditions']),
};

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/**
 * Catalogue kinds whose `as table` read is not compared: a Service's cluster IP (a cell) is
 * each server's own random pick.
 */
const TABLE_SKIPPED: ReadonlySet<string> = new Set(['/services']);

/** Every catalogue kind: create its minimal object (in `version`), read it (also as a Table), update its status. */
export function catalogueCases(versionOf: (group: string, plural: string) => { version: string; namespaced: boolean } | undefined): Case[] {
  const cases: Case[] = [];
  for (const [key, sample] of Object.entries(MINIMAL_OBJECTS)) {
    const [group, plural] = key.split('/') as [string, string];
    const gv = versionOf(group, plural);
    if (gv === undefined) continue;
    const base = group === '' ? '/api/v1' : `/apis/${group}/${gv.version}`;
    const collection = `${base}${gv.namespaced ? `/namespaces/${NS}` : ''}/${plural}`;
    const name = (sample.object['metadata'] as { name: string }).name;
    cases.push({ name: `${key} create`, method: 'POST', path: collection, body: sample.object });
    const settled = SETTLED[key];
    cases.push({ name: `${key} get`, method: 'GET', path: `${collection}/${name}`, ...(settled !== undefined ? { until: settled } : {}) });
    // The Table kubectl prints: kube's printer columns and their cells.
    if (!TABLE_SKIPPED.has(key)) {
      cases.push({ name: `${key} as table`, method: 'GET', path: `${collection}/${name}?includeObject=None`, headers: { accept: TABLE } });
    }
    if (sample.change !== undefined) {
      cases.push({ name: `${key} change`, method: 'PATCH', path: `${collection}/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, body: sample.change });
    }
    // Pods need their service account (kube's ServiceAccount admission): it stays.
    if (key !== '/serviceaccounts') cases.push({ name: `${key} delete`, method: 'DELETE', path: `${collection}/${name}` });
  }
  return cases;
}
