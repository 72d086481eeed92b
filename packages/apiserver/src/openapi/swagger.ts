/**
 * The OpenAPI v2 (Swagger 2.0) document kube serves at `/openapi/v2`: one document for every
 * served group-version, made from the same OpenAPI v3 documents as `/openapi/v3` (document.ts)
 * and rewritten with Swagger 2.0's shapes:
 *
 * - `#/components/schemas/X` references become `#/definitions/X`; a `{allOf: [$ref]}` wrapper
 *   becomes a plain `$ref` beside its description; `default`s are left out (kube's v2 has none);
 * - custom-resource schemas lose what Swagger 2.0 and kubectl's v2 reader cannot hold, by kube's
 *   rules: `oneOf`/`anyOf`/`not`/`allOf`, a nullable field's type (and its items/properties),
 *   the type, properties and items of an `x-kubernetes-preserve-unknown-fields` node, and a
 *   schema preserving unknown fields at its root is published as a bare object;
 * - parameters are inline Swagger parameters, request bodies a `body` parameter, responses carry
 *   their schema directly, and operations say what they consume and produce.
 */
import type { JSONSchemaProps, Steps } from '@kapi/machinery';
import type { GroupVersionResources } from '../discovery/api-groups.js';
import { COMPONENT_PREFIX, buildGroupVersionDocument, buildNonResourceDocument } from './document.js';
import { NO_CONSUMES } from './non-resource-paths.js';
import { isCustomResource } from './operations.js';

const DEFINITION_PREFIX = '#/definitions/';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const BUILTIN_MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const CUSTOM_MEDIA = ['application/json', 'application/yaml'];
const WATCH_MEDIA = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function definitionRef(ref: string): string {
  return ref.startsWith(COMPONENT_PREFIX) ? `${DEFINITION_PREFIX}${ref.slice(COMPONENT_PREFIX.length)}` : ref;
}

/** A schema of a built-in kind in Swagger 2.0 form: references rewritten, defaults dropped. */
function v2Schema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(v2Schema);
  if (!isObject(schema)) return schema;
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) && typeof allOf[0]['$ref'] === 'string') {
    const { allOf: _allOf, default: _default, ...rest } = schema;
    return { ...(v2Schema(rest) as Json), $ref: definitionRef(allOf[0]['$ref']) };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'default') continue;
    if (key === '$ref' && typeof value === 'string') out[key] = definitionRef(value);
    else if (key === 'properties' && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v2Schema(v)]));
    else if (key.startsWith('x-kubernetes-') || key === 'enum' || key === 'required') out[key] = value;
    else out[key] = v2Schema(value);
  }
  return out;
}

/** kube's OpenAPI v2 conversion of a structural custom-resource schema node (see the file comment). */
function v2CustomSchema(node: Json): Json {
  const { oneOf: _o, anyOf: _a, not: _n, default: _d, nullable, ...rest } = node;
  let out: Json = rest;
  if (Array.isArray(out['allOf']) && !(out['allOf'].length === 1 && isObject(out['allOf'][0]) && '$ref' in out['allOf'][0])) {
    const { allOf: _allOf, ...withoutAllOf } = out;
    out = withoutAllOf;
  }
  if (nullable === true || out['x-kubernetes-preserve-unknown-fields'] === true) {
    const { type: _t, items: _i, properties: _p, ...kept } = out;
    out = kept;
  }
  if (out['type'] === 'array' && out['items'] === undefined) {
    const { type: _t, ...kept } = out;
    out = kept;
  }
  if (isObject(out['properties'])) {
    const properties = out['properties'];
    out['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, isObject(v) ? v2CustomSchema(v) : v]));
    // A nullable property can be null: Swagger 2.0 cannot say so, so it is not required either.
    if (Array.isArray(out['required'])) {
      const required = (out['required'] as string[]).filter((name) => !(isObject(properties[name]) && properties[name]['nullable'] === true));
      if (required.length > 0) out['required'] = required;
      else delete out['required'];
    }
  }
  if (isObject(out['items'])) out['items'] = v2CustomSchema(out['items']);
  if (isObject(out['additionalProperties'])) out['additionalProperties'] = v2CustomSchema(out['additionalProperties']);
  return out;
}

/** A whole custom-resource definition: a root preserving unknown fields is a bare object. */
function v2CustomDefinition(schema: Json): Json {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) {
    const out: Json = { type: 'object' };
    for (const key of ['description', 'x-kubernetes-group-version-kind']) if (schema[key] !== undefined) out[key] = schema[key];
    return out;
  }
  return v2CustomSchema(schema);
}

/** A v3 parameter (`schema` holding type and uniqueItems) as a Swagger 2.0 parameter. */
function v2Parameter(parameter: Json): Json {
  const { schema, ...rest } = parameter;
  return { ...(isObject(schema) ? schema : {}), ...rest };
}

function bodySchema(content: unknown): unknown {
  if (!isObject(content)) return undefined;
  const first = Object.values(content)[0];
  return isObject(first) ? v2Schema(first['schema']) : undefined;
}

/** Media types in the order kube's v2 lists them (JSON, YAML, protobuf, then any other). */
function v2MediaOrder(types: readonly string[]): string[] {
  const rank = (t: string) => (BUILTIN_MEDIA.includes(t) ? BUILTIN_MEDIA.indexOf(t) : BUILTIN_MEDIA.length);
  return [...types].sort((a, b) => rank(a) - rank(b));
}

/** What an operation consumes and produces in v2 (absent: not said). */
function v2MediaTypes(operation: Json, body: Json | undefined, builtin: boolean): { consumes?: string[]; produces: string[] } {
  const action = operation['x-kubernetes-action'];
  const answer = isObject(operation['responses']) ? operation['responses']['200'] : undefined;
  const answered = isObject(answer) && isObject(answer['content']) ? Object.keys(answer['content']) : [];
  // Discovery, /version/ and issuer discovery: what they answer, both ways (issuer discovery says nothing of its input).
  if (action === undefined) {
    const produces = v2MediaOrder(answered);
    return NO_CONSUMES.has(String(operation['operationId'])) ? { produces } : { consumes: produces, produces };
  }
  if (action === 'connect') return { consumes: ['*/*'], produces: ['*/*'] };
  const media = builtin ? BUILTIN_MEDIA : CUSTOM_MEDIA;
  // Built-in routes consume anything their decoders take; custom resources' routes say JSON and YAML.
  const consumes = body !== undefined && action === 'patch' && isObject(body['content']) ? Object.keys(body['content']) : builtin ? ['*/*'] : CUSTOM_MEDIA;
  if (answered.includes('text/plain')) return { consumes, produces: ['text/plain', ...media] };
  const streams = builtin && (action === 'list' || action === 'watch' || action === 'watchlist');
  return { consumes, produces: streams ? [...media, ...WATCH_MEDIA] : media };
}

function v2Operation(operation: Json, builtin: boolean): Json {
  const { requestBody, parameters, responses, tags, description, operationId, ...extensions } = operation;
  const out: Json = { description };
  const body = isObject(requestBody) ? requestBody : undefined;
  const { consumes, produces } = v2MediaTypes(operation, body, builtin);
  if (consumes !== undefined) out['consumes'] = consumes;
  out['produces'] = produces;
  out['schemes'] = ['https'];
  out['tags'] = tags;
  out['operationId'] = operationId;
  const params: Json[] = [];
  if (body !== undefined) {
    params.push({ name: 'body', in: 'body', ...(body['required'] === true ? { required: true } : {}), schema: bodySchema(body['content']) });
  }
  if (Array.isArray(parameters)) for (const p of parameters) if (isObject(p)) params.push(v2Parameter(p));
  if (params.length > 0) out['parameters'] = params;
  const answers: Json = {};
  for (const [code, response] of Object.entries(isObject(responses) ? responses : {})) {
    if (!isObject(response)) continue;
    const schema = bodySchema(response['content']);
    answers[code] = schema === undefined ? { description: response['description'] } : { description: response['description'], schema };
  }
  out['responses'] = answers;
  return { ...out, ...extensions };
}

/**
 * The Swagger 2.0 document of every group-version in `groupVersions` and of the non-resource
 * paths (`nonResource`, non-resource-paths.ts). `definitions` are the registry's named schemas
 * (built-in kinds); the other schemas a custom resource's document names are its own and get
 * kube's custom-resource conversion.
 */
export function* swaggerDocumentSteps(
  groupVersions: readonly GroupVersionResources[],
  definitions: Readonly<Record<string, JSONSchemaProps>>,
  nonResource: ReadonlyMap<string, Record<string, Json>> = new Map(),
): Steps<Json> {
  const paths: Json = {};
  const schemas: Json = {};
  const add = function* (v3: Json, builtin: boolean): Steps<void> {
    const components = (v3['components'] as { schemas: Record<string, JSONSchemaProps> }).schemas;
    for (const [name, schema] of Object.entries(components)) {
      if (schemas[name] !== undefined) continue;
      schemas[name] = builtin || Object.hasOwn(definitions, name) ? v2Schema(schema) : v2Schema(v2CustomDefinition(schema as Json));
      yield;
    }
    for (const [path, item] of Object.entries(v3['paths'] as Record<string, Json>)) {
      const out: Json = {};
      for (const method of METHODS) {
        const operation = item[method];
        if (isObject(operation)) out[method] = v2Operation(operation, builtin);
      }
      if (Array.isArray(item['parameters'])) out['parameters'] = (item['parameters'] as Json[]).map(v2Parameter);
      paths[path] = out;
      yield;
    }
  };
  for (const gv of groupVersions) {
    const v3 = buildGroupVersionDocument(gv, definitions);
    yield;
    yield* add(v3, gv.resources.some((r) => !isCustomResource(r)));
  }
  for (const nonResourcePaths of nonResource.values()) yield* add(buildNonResourceDocument(nonResourcePaths, definitions), true);
  const sortedPaths: Json = {};
  for (const key of Object.keys(paths).sort()) sortedPaths[key] = paths[key];
  const sortedDefinitions: Json = {};
  for (const key of Object.keys(schemas).sort()) sortedDefinitions[key] = schemas[key];
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: '1.32' },
    paths: sortedPaths,
    definitions: sortedDefinitions,
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
