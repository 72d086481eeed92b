/**
 * One fuzz case: an HTTP request built from a generated plan (operation, resource, object,
 * mutations, encoding, patch, query, headers), plus the object that must exist before it is
 * sent so that the case replays alone. Generated only from fast-check values, so a seed and a
 * path reproduce it exactly.
 */
import fc from 'fast-check';
import { bodyPlan, contentTypeOf, encodeBody, type BodyPlan } from './bodies.js';
import { buildHeaders, headerPlan, type HeaderPlan } from './headers.js';
import { applyMutation, copy, mutationLabel, mutations, type Mutation } from './mutations.js';
import { patchBody, patchPlan, PATCH_CONTENT_TYPES, type PatchPlan } from './patches.js';
import { oddPath } from './paths.js';
import { encodeQuery, queryParams } from './query.js';
import { collectionPath, MISSING_NAMESPACE, RESOURCES, validObject, WORK_NAMESPACES, extraMetadata, type FuzzResource } from './resources.js';
import { toJsonText } from './wire-text.js';

export interface FuzzRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

/** What a case is, for the shape report. */
export interface Shape {
  readonly operation: string;
  readonly resource: string;
  readonly encoding?: string;
  readonly patchType?: string;
  readonly labels: readonly string[];
}

export interface FuzzCase {
  readonly request: FuzzRequest;
  /** A valid object POSTed (409 ignored) before the request, so that updates and patches find their target. */
  readonly ensure?: { readonly path: string; readonly body: string };
  readonly shape: Shape;
}

type Operation = 'create' | 'update' | 'patch' | 'get' | 'list' | 'watch' | 'delete' | 'deletecollection' | 'subresource' | 'odd-path' | 'odd-method';

interface Plan {
  operation: Operation;
  resource: FuzzResource;
  name: string;
  namespace: string;
  fields: Record<string, unknown>;
  extra: Record<string, unknown>;
  mutate: boolean;
  mutations: Mutation[];
  body: BodyPlan;
  patch: PatchPlan;
  query: [string, string][];
  rawQuery: boolean;
  headers: HeaderPlan;
  subresource: number;
  oddPath: string;
  method: string;
  deleteOptions: boolean;
}

const operation = fc.constantFrom<Operation>(
  ...(['create', 'create', 'create', 'update', 'update', 'patch', 'patch', 'patch', 'get', 'list', 'watch', 'delete', 'deletecollection', 'subresource', 'subresource', 'odd-path', 'odd-method'] as const),
);

const planArbitrary: fc.Arbitrary<Plan> = fc
  .record({ operation, resourceIndex: fc.nat(RESOURCES.length - 1), namespaceChoice: fc.nat(19) })
  .chain(({ operation: op, resourceIndex, namespaceChoice }) => {
    const resource = RESOURCES[resourceIndex]!;
    const namespace = namespaceChoice === 0 ? MISSING_NAMESPACE : namespaceChoice === 1 ? 'Bad_NS' : WORK_NAMESPACES[namespaceChoice % 2]!;
    return fc.record({
      operation: fc.constant(op),
      resource: fc.constant(resource),
      namespace: fc.constant(namespace),
      name: resource.names,
      fields: resource.fields,
      extra: extraMetadata,
      mutate: fc.boolean(),
      mutations,
      body: bodyPlan,
      patch: patchPlan,
      query: queryParams.map((q) => q.map(([k, v]) => [k, v] as [string, string])),
      rawQuery: fc.boolean(),
      headers: headerPlan,
      subresource: fc.nat(3),
      oddPath,
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FUZZ', 'PROPFIND'),
      deleteOptions: fc.boolean(),
    });
  });

/** The fuzz case arbitrary: every case the suite sends. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = planArbitrary.map((plan) => protect(buildCase(plan)));

/** What the fuzzer must not change: the namespaces it works in (and the system ones) and its CRD. */
const PROTECTED: readonly { path: RegExp; deleteOnly: boolean }[] = [
  { path: /^\/api\/v1\/namespaces$/, deleteOnly: true },
  { path: /^\/api\/v1\/namespaces\/(fuzz-a|fuzz-b|default|kube-system|kube-public|kube-node-lease)(\/(status|finalize))?$/, deleteOnly: false },
  { path: /^\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions$/, deleteOnly: true },
  { path: /^\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions\/widgets\.fuzz\.example\.com(\/status)?$/, deleteOnly: false },
];

/** The path as a server that decodes segments and resolves dot segments would see it. */
function normalizedPath(path: string): string {
  const out: string[] = [];
  for (const raw of path.split('?')[0]!.split('/')) {
    let segment = raw;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      // left as is
    }
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

/** A write aimed at something {@link PROTECTED} becomes a GET of it (the case stays in the run, harmless). */
function protect(c: FuzzCase): FuzzCase {
  const { method, path } = c.request;
  const target = normalizedPath(path);
  if (method === 'GET' || method === 'HEAD' || !PROTECTED.some((p) => p.path.test(target) && (!p.deleteOnly || method === 'DELETE'))) return c;
  const { body: _body, ...request } = c.request;
  const { 'content-length': _length, ...headers } = request.headers;
  return { request: { ...request, method: 'GET', headers }, shape: { ...c.shape, labels: [...c.shape.labels, 'protected-target'] } };
}

function itemPath(r: FuzzResource, namespace: string, name: string): string {
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}`;
}

const deleteOptionsBodies = [
  '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}',
  '{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}',
  '{"preconditions":{"resourceVersion":"1"}}',
  '{"gracePeriodSeconds":"x"}',
  '{"dryRun":["All"],"orphanDependents":true,"propagationPolicy":"Orphan"}',
  '{',
];

function buildCase(plan: Plan): FuzzCase {
  const r = plan.resource;
  const labels: string[] = [];
  const valid = validObject(r, plan.name, plan.namespace, plan.fields, plan.extra);
  let object: unknown = copy(valid);
  if (plan.mutate) {
    for (const m of plan.mutations) {
      object = applyMutation(object, m);
      labels.push(mutationLabel(m));
    }
  }
  const params = plan.query.map(([k, v]) => [k, v] as [string, string]);
  const query = encodeQuery(params, plan.rawQuery);
  const resourceName = `${r.group === '' ? 'core' : r.group}/${r.version}/${r.resource}`;
  const ensureBody = toJsonText(validObject(r, plan.name, plan.namespace, {}, {}));
  const ensure = { path: collectionPath(r, plan.namespace), body: r.kind === 'CustomResourceDefinition' ? toJsonText({ ...valid, metadata: { name: plan.name } }) : ensureBody };
  const withBody = (method: string, path: string, body: Buffer, bodyType: string, shape: Omit<Shape, 'labels' | 'resource'>, needsTarget: boolean): FuzzCase => ({
    request: { method, path: `${path}${query}`, headers: buildHeaders(plan.headers, bodyType, body.length), body },
    ...(needsTarget ? { ensure } : {}),
    shape: { ...shape, resource: resourceName, labels },
  });
  const withoutBody = (method: string, path: string, operation: string): FuzzCase => ({
    request: { method, path: `${path}${query}`, headers: buildHeaders(plan.headers, undefined, undefined) },
    shape: { operation, resource: resourceName, labels },
  });

  switch (plan.operation) {
    case 'create':
    case 'update': {
      const encoded = encodeBody(object, valid, plan.body);
      labels.push(...encoded.labels);
      const update = plan.operation === 'update';
      const path = update ? itemPath(r, plan.namespace, plan.name) : collectionPath(r, plan.namespace);
      return withBody(update ? 'PUT' : 'POST', path, encoded.bytes, contentTypeOf[encoded.encoding], { operation: plan.operation, encoding: encoded.encoding }, update);
    }
    case 'patch':
    case 'subresource': {
      const sub = r.subresources.length > 0 && plan.operation === 'subresource' ? r.subresources[plan.subresource % r.subresources.length] : undefined;
      const path = `${itemPath(r, plan.namespace, plan.name)}${sub ? `/${sub}` : ''}`;
      if (plan.operation === 'subresource' && plan.subresource % 2 === 0) {
        // PUT of the whole object to the subresource (status, finalize; scale takes a Scale).
        const body = sub === 'scale' ? { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: plan.name, namespace: plan.namespace }, spec: { replicas: plan.subresource } } : object;
        const encoded = encodeBody(sub === 'scale' && plan.mutate ? applyMutation(body, plan.mutations[0]!) : body, valid, plan.body);
        labels.push(...encoded.labels);
        return withBody('PUT', path, encoded.bytes, contentTypeOf[encoded.encoding], { operation: `put-${sub ?? 'object'}`, encoding: encoded.encoding }, true);
      }
      const base = copy(typeof object === 'object' && object !== null && !Array.isArray(object) ? (object as Record<string, unknown>) : valid);
      const body = Buffer.from(patchBody(base, plan.patch));
      const type = plan.patch.type === 'strategic' && !r.builtin && plan.subresource === 0 ? 'merge' : plan.patch.type;
      if (type === 'apply' && !params.some(([k]) => k === 'fieldManager') && plan.subresource !== 3) params.push(['fieldManager', 'fuzzer']);
      const patchQuery = encodeQuery(params, plan.rawQuery);
      return {
        request: { method: 'PATCH', path: `${path}${patchQuery}`, headers: buildHeaders(plan.headers, PATCH_CONTENT_TYPES[type], body.length), body },
        ensure,
        shape: { operation: sub ? `patch-${sub}` : 'patch', resource: resourceName, patchType: type, labels },
      };
    }
    case 'get':
      return { ...withoutBody('GET', itemPath(r, plan.namespace, plan.name), 'get'), ensure };
    case 'list':
      return withoutBody('GET', plan.subresource === 0 && r.namespaced ? collectionPath(r, plan.namespace).replace(/\/namespaces\/[^/]+/, '') : collectionPath(r, plan.namespace), 'list');
    case 'watch': {
      const legacy = plan.subresource === 0 && r.group === '';
      const path = legacy ? collectionPath(r, plan.namespace).replace(/^\/api\/v1\//, '/api/v1/watch/') : collectionPath(r, plan.namespace);
      if (!legacy) params.unshift(['watch', '1']);
      return { request: { method: 'GET', path: `${path}${encodeQuery(params, plan.rawQuery)}`, headers: buildHeaders(plan.headers, undefined, undefined) }, shape: { operation: 'watch', resource: resourceName, labels } };
    }
    case 'delete': {
      const path = itemPath(r, plan.namespace, plan.name);
      if (!plan.deleteOptions) return { ...withoutBody('DELETE', path, 'delete'), ensure };
      const body = Buffer.from(deleteOptionsBodies[plan.subresource % deleteOptionsBodies.length]!);
      return withBody('DELETE', path, body, 'application/json', { operation: 'delete' }, true);
    }
    case 'deletecollection':
      return withoutBody('DELETE', collectionPath(r, plan.namespace), 'deletecollection');
    case 'odd-path': {
      const encoded = encodeBody(object, valid, plan.body);
      const hasBody = !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(plan.method);
      return {
        request: { method: plan.method, path: `${plan.oddPath}${query}`, headers: buildHeaders(plan.headers, hasBody ? contentTypeOf[encoded.encoding] : undefined, hasBody ? encoded.bytes.length : undefined), ...(hasBody ? { body: encoded.bytes } : {}) },
        shape: { operation: 'odd-path', resource: 'none', labels },
      };
    }
    case 'odd-method': {
      const path = plan.subresource % 2 === 0 ? collectionPath(r, plan.namespace) : itemPath(r, plan.namespace, plan.name);
      return withoutBody(plan.method, path, `method-${plan.method}`);
    }
  }
}
