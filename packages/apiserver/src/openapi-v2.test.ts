/**
 * `/openapi/v2` as kube-apiserver 1.32 serves it (shapes checked against the v1.32 oracle):
 * Swagger 2.0 JSON, gnostic protobuf for client-go's OpenAPISchema(), ETag/304, 406; custom
 * resources converted by kube's v2 rules; and through real kubectl: explain from the v2
 * document, `apply -f` of a `kind: List`, and "no matches for kind" for a missing kind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { eventuallyValue, startSecureServer, type Identity, type SecureServer } from './testing/secure-server.js';

const admin: Identity = { token: 'admin-token' };
const PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Json = Record<string, unknown>;

/** The raw bytes of a GET (the protobuf document is binary). */
function getBytes(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { headers: { authorization: 'Bearer admin-token', ...headers }, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The fields of one protobuf message: field number → raw values (varints as numbers, length-delimited as Buffers). */
function fields(message: Buffer): Map<number, (number | Buffer)[]> {
  const out = new Map<number, (number | Buffer)[]>();
  let i = 0;
  const varint = (): number => {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = message[i++]!;
      n += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 0x80) return n;
    }
  };
  while (i < message.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    let value: number | Buffer;
    switch (key % 8) {
      case 0:
        value = varint();
        break;
      case 1:
        value = message.subarray(i, i + 8);
        i += 8;
        break;
      case 2: {
        const length = varint();
        value = message.subarray(i, i + length);
        i += length;
        break;
      }
      default:
        throw new Error(`unexpected wire type ${key % 8}`);
    }
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const text = (b: number | Buffer | undefined) => (Buffer.isBuffer(b) ? b.toString('utf8') : undefined);

const WIDGETS_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.v2.example.com' },
  spec: {
    group: 'v2.example.com',
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
                required: ['colour', 'size'],
                properties: {
                  size: { type: 'integer', minimum: 1, default: 3 },
                  colour: { type: 'string', nullable: true, enum: ['red', 'blue'] },
                  port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  choice: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }], properties: { a: { type: 'string' }, b: { type: 'string' } } },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { x: { type: 'string' } } },
                },
              },
            },
          },
        },
      },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
};

void describe('/openapi/v2', () => {
  let t: SecureServer;
  before(async () => {
    t = await startSecureServer({ tokens: ['admin-token,admin,admin-uid,"system:masters"'] });
  });
  after(async () => t?.close());

  void it('serves Swagger 2.0 JSON with kube\'s paths, definitions and caching headers', async () => {
    const res = await t.request(admin, 'GET', '/openapi/v2');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['cache-control'], 'no-cache, private');
    assert.match(String(res.headers['etag']), /^"[0-9A-F]{128}"$/);
    assert.ok(!Number.isNaN(Date.parse(String(res.headers['last-modified']))));
    const doc = res.json;
    assert.equal(doc['swagger'], '2.0');
    assert.deepEqual(doc['info'], { title: 'Kubernetes', version: '1.32' });
    assert.deepEqual(doc['security'], [{ BearerToken: [] }]);
    const definitions = doc['definitions'] as Record<string, Json>;
    assert.deepEqual(definitions['io.k8s.api.core.v1.Pod']!['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
    // A reference is a plain $ref beside its description, without v3's allOf wrapper or default.
    const metadata = (definitions['io.k8s.api.core.v1.ConfigMap']!['properties'] as Record<string, Json>)['metadata']!;
    assert.equal(metadata['$ref'], '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(metadata['allOf'], undefined);
    assert.equal(metadata['default'], undefined);
    const refs = res.text.match(/"\$ref":"[^"]+"/g) ?? [];
    assert.ok(refs.length > 100);
    for (const ref of new Set(refs)) {
      const name = ref.slice('"$ref":"#/definitions/'.length, -1);
      assert.ok(ref.startsWith('"$ref":"#/definitions/') && definitions[name], ref);
    }

    const paths = doc['paths'] as Record<string, Record<string, Json>>;
    const item = paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!;
    assert.deepEqual(
      item['parameters'],
      [
        { uniqueItems: true, type: 'string', description: 'name of the resource', name: 'name', in: 'path', required: true },
        { uniqueItems: true, type: 'string', description: 'object name and auth scope, such as for teams and projects', name: 'namespace', in: 'path', required: true },
        { uniqueItems: true, type: 'string', description: "If 'true', then the output is pretty printed.", name: 'pretty', in: 'query' },
      ],
    );
    const put = item['put']!;
    assert.equal(put['operationId'], 'replaceCoreV1NamespacedConfigMap');
    assert.deepEqual(put['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.equal(put['x-kubernetes-action'], 'put');
    assert.deepEqual(put['consumes'], ['*/*']);
    assert.deepEqual(put['produces'], ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    assert.deepEqual((put['parameters'] as Json[])[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } });
    assert.deepEqual((put['responses'] as Json)['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } });
    assert.deepEqual(item['patch']!['consumes'], ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
    assert.equal(paths['/api/v1/namespaces/{namespace}/configmaps']!['delete']!['operationId'], 'deleteCoreV1CollectionNamespacedConfigMap');
    assert.ok((paths['/api/v1/namespaces/{namespace}/configmaps']!['get']!['produces'] as string[]).includes('application/json;stream=watch'));

    const again = await t.request(admin, 'GET', '/openapi/v2', { headers: { 'if-none-match': String(res.headers['etag']) } });
    assert.equal(again.status, 304);
    const yaml = await t.request(admin, 'GET', '/openapi/v2', { headers: { accept: 'application/yaml' } });
    assert.equal(yaml.status, 406);
    assert.equal(yaml.text, '');
    const missing = await t.request(admin, 'GET', '/openapi/v2/nope');
    assert.equal(missing.status, 404);
  });

  void it('describes subresources, the deprecated watch paths and discovery as kube does', async () => {
    const doc = (await t.request(admin, 'GET', '/openapi/v2')).json;
    const paths = doc['paths'] as Record<string, Record<string, Json>>;
    const names = (list: unknown) => (list as Json[]).map((x) => `${String(x['in'])}:${String(x['name'])}`);
    const pod = '/api/v1/namespaces/{namespace}/pods/{name}';
    // Stored subresources: read, replace, patch with the resource's kind; scale in autoscaling/v1 Scale.
    assert.equal(paths[`${pod}/status`]!['patch']!['operationId'], 'patchCoreV1NamespacedPodStatus');
    assert.deepEqual(paths[`${pod}/status`]!['get']!['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Pod' });
    const scale = paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!['put']!;
    assert.equal(scale['operationId'], 'replaceAppsV1NamespacedDeploymentScale');
    assert.deepEqual(scale['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual((scale['responses'] as Json)['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.autoscaling.v1.Scale' } });
    assert.deepEqual(Object.keys(paths['/api/v1/namespaces/{name}/finalize']!), ['put', 'parameters']);
    // Named creaters post their own kind, every parameter on the path.
    const eviction = paths[`${pod}/eviction`]!;
    assert.deepEqual(eviction['post']!['x-kubernetes-group-version-kind'], { group: 'policy', version: 'v1', kind: 'Eviction' });
    assert.deepEqual(names(eviction['parameters']), ['query:dryRun', 'query:fieldManager', 'query:fieldValidation', 'path:name', 'path:namespace', 'query:pretty']);
    // Connecters: one connect operation per method, the options kind's fields as query parameters.
    const exec = paths[`${pod}/exec`]!;
    assert.deepEqual(Object.keys(exec).sort(), ['get', 'parameters', 'post']);
    assert.equal(exec['post']!['operationId'], 'connectCoreV1PostNamespacedPodExec');
    assert.equal(exec['post']!['x-kubernetes-action'], 'connect');
    assert.deepEqual(exec['post']!['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.deepEqual(exec['get']!['produces'], ['*/*']);
    assert.deepEqual(names(exec['parameters']), ['query:command', 'query:container', 'path:name', 'path:namespace', 'query:stderr', 'query:stdin', 'query:stdout', 'query:tty']);
    const proxy = paths['/api/v1/nodes/{name}/proxy/{path}']!;
    assert.equal(proxy['head']!['operationId'], 'connectCoreV1HeadNodeProxyWithPath');
    assert.deepEqual(names(proxy['parameters']), ['path:name', 'path:path', 'query:path']);
    const log = paths[`${pod}/log`]!['get']!;
    assert.equal(log['operationId'], 'readCoreV1NamespacedPodLog');
    assert.deepEqual(log['produces'], ['text/plain', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    // Deprecated watch paths answer WatchEvents.
    const watch = paths['/api/v1/watch/namespaces/{namespace}/configmaps/{name}']!['get']!;
    assert.equal(watch['operationId'], 'watchCoreV1NamespacedConfigMap');
    assert.equal(watch['x-kubernetes-action'], 'watch');
    assert.deepEqual((watch['responses'] as Json)['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent' } });
    assert.equal(paths['/apis/apps/v1/watch/deployments']!['get']!['operationId'], 'watchAppsV1DeploymentListForAllNamespaces');
    assert.equal(paths['/api/v1/watch/nodes']!['get']!['operationId'], 'watchCoreV1NodeList');
    // Discovery, /version/, and the kinds only they name.
    assert.equal(paths['/api/']!['get']!['operationId'], 'getCoreAPIVersions');
    assert.equal(paths['/apis/rbac.authorization.k8s.io/']!['get']!['operationId'], 'getRbacAuthorizationAPIGroup');
    assert.deepEqual(paths['/apis/rbac.authorization.k8s.io/v1/']!['get']!['tags'], ['rbacAuthorization_v1']);
    assert.deepEqual(paths['/version/']!['get']!['consumes'], ['application/json']);
    // This server has no service account issuer: no issuer discovery paths.
    assert.equal(paths['/.well-known/openid-configuration/'], undefined);
    const definitions = doc['definitions'] as Record<string, Json>;
    for (const kind of ['APIGroup', 'APIGroupList', 'APIResourceList', 'APIVersions']) {
      assert.deepEqual(definitions[`io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`]!['x-kubernetes-group-version-kind'], [{ group: '', kind, version: 'v1' }]);
    }
    // Every delete says it takes the unsafe-deletion option.
    assert.ok(names(paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!['delete']!['parameters']).includes('query:ignoreStoreReadErrorWithClusterBreakingPotential'));
    assert.ok(names(paths['/api/v1/namespaces/{namespace}/configmaps']!['delete']!['parameters']).includes('query:ignoreStoreReadErrorWithClusterBreakingPotential'));
    // A store that returns deleted objects says so.
    assert.deepEqual((paths[pod]!['delete']!['responses'] as Json)['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });

    // The same in OpenAPI v3: the non-resource documents in the index, with kube's content types.
    const index = (await t.request(admin, 'GET', '/openapi/v3')).json['paths'] as Record<string, Json>;
    for (const key of ['api', 'apis', 'apis/apps', 'version']) assert.ok(index[key], key);
    assert.deepEqual(Object.keys(index), Object.keys(index).sort());
    const apps = (await t.request(admin, 'GET', String(index['apis/apps']!['serverRelativeURL']))).json;
    assert.deepEqual(Object.keys(apps['paths'] as Json), ['/apis/apps/']);
    const core = (await t.request(admin, 'GET', String(index['api/v1']!['serverRelativeURL']))).json;
    const corePaths = core['paths'] as Record<string, Record<string, Json>>;
    assert.equal(corePaths['/api/v1/']!['get']!['operationId'], 'getCoreV1APIResources');
    const replace = corePaths['/api/v1/namespaces/{namespace}/configmaps/{name}']!['put']!;
    assert.deepEqual(Object.keys((replace['requestBody'] as Json)['content'] as Json), ['*/*']);
    assert.deepEqual(Object.keys(((replace['responses'] as Record<string, Json>)['200']!['content']) as Json), ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml']);
  });

  void it('serves the same document as gnostic protobuf, the form client-go asks for', async () => {
    const json = await t.request(admin, 'GET', '/openapi/v2');
    const res = await getBytes(`${t.server.url}/openapi/v2`, { accept: `application/json;q=0.5, ${PROTOBUF_ACCEPT}` });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(res.headers['etag'], json.headers['etag']);
    const document = fields(res.body);
    assert.equal(text(document.get(1)?.[0]), '2.0');
    const info = fields(document.get(2)![0] as Buffer);
    assert.equal(text(info.get(1)?.[0]), 'Kubernetes');
    // Definitions: one NamedSchema per JSON definition, in order.
    const named = (fields(document.get(9)![0] as Buffer).get(1) ?? []).map((b) => fields(b as Buffer));
    const names = Object.keys(json.json['definitions'] as Json);
    assert.deepEqual(named.map((n) => text(n.get(1)?.[0])), names);
    const configMap = fields(named[names.indexOf('io.k8s.api.core.v1.ConfigMap')]!.get(2)![0] as Buffer);
    assert.deepEqual(fields(configMap.get(22)![0] as Buffer).get(1)?.map(text), ['object']);
    // The GVK vendor extension carries its value as YAML.
    const extension = fields(configMap.get(31)![0] as Buffer);
    assert.equal(text(extension.get(1)?.[0]), 'x-kubernetes-group-version-kind');
    assert.equal(text(fields(extension.get(2)![0] as Buffer).get(2)?.[0]), '- group: ""\n  kind: ConfigMap\n  version: v1\n');
    // Paths: one NamedPathItem per JSON path.
    const pathItems = fields(document.get(8)![0] as Buffer).get(2) ?? [];
    assert.equal(pathItems.length, Object.keys(json.json['paths'] as Json).length);
  });

  void it('publishes custom resources with kube\'s v2 conversion, and kubectl reads the document', async () => {
    const created = await t.request(admin, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: WIDGETS_CRD });
    assert.equal(created.status, 201, created.text);
    const definitions = await eventuallyValue('the CRD in /openapi/v2', async () => {
      const res = await t.request(admin, 'GET', '/openapi/v2');
      const defs = res.json['definitions'] as Record<string, Json>;
      return defs['com.example.v2.v1.Widget'] === undefined ? undefined : defs;
    });
    const widget = definitions['com.example.v2.v1.Widget']!;
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [{ group: 'v2.example.com', version: 'v1', kind: 'Widget' }]);
    const spec = (widget['properties'] as Record<string, Json>)['spec']!;
    assert.deepEqual(spec, {
      type: 'object',
      // A nullable field is not required in v2 (it may be null), and has no type.
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1 },
        colour: { enum: ['red', 'blue'] },
        port: { 'x-kubernetes-int-or-string': true },
        choice: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
        free: { 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    // A version that preserves unknown fields at its root is a bare object.
    assert.deepEqual(definitions['com.example.v2.v2.Widget'], { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'v2.example.com', version: 'v2', kind: 'Widget' }] });
    assert.deepEqual((definitions['com.example.v2.v1.WidgetList']!['properties'] as Record<string, Json>)['items'], { type: 'array', items: { $ref: '#/definitions/com.example.v2.v1.Widget' } });
    // kube's custom-resource builder: get takes resourceVersion, deletecollection the list parameters alone, no watch paths.
    const paths = (await t.request(admin, 'GET', '/openapi/v2')).json['paths'] as Record<string, Record<string, Json>>;
    const widgets = '/apis/v2.example.com/v1/namespaces/{namespace}/widgets';
    const parameterNames = (op: Json) => ((op['parameters'] as Json[] | undefined) ?? []).map((x) => String(x['name']));
    assert.deepEqual(parameterNames(paths[`${widgets}/{name}`]!['get']!), ['resourceVersion']);
    assert.deepEqual(parameterNames(paths[widgets]!['delete']!), ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch']);
    assert.ok(parameterNames(paths[`${widgets}/{name}`]!['delete']!).includes('ignoreStoreReadErrorWithClusterBreakingPotential'));
    assert.equal(paths['/apis/v2.example.com/v1/watch/namespaces/{namespace}/widgets'], undefined);
    assert.equal(paths['/apis/v2.example.com/'], undefined);

    // kubectl decodes the protobuf document (client-go's OpenAPISchema) to explain.
    const deployment = await t.kubectl(admin, ['explain', 'deployment.spec.strategy', '--output=plaintext-openapiv2']);
    assert.equal(deployment.code, 0, deployment.stderr);
    assert.match(deployment.stdout, /RESOURCE: strategy <Object>/);
    assert.match(deployment.stdout, /rollingUpdate\s+<Object>/);
    const crd = await t.kubectl(admin, ['explain', 'widgets.spec', '--api-version=v2.example.com/v1', '--output=plaintext-openapiv2']);
    assert.equal(crd.code, 0, crd.stderr);
    assert.match(crd.stdout, /size\s+<integer>/);
  });

  void it('kubectl applies a kind: List, and names a missing kind as "no matches for kind"', async () => {
    const dir = join(tmpdir(), `kapi-openapi-v2-${process.pid}`);
    const list = join(`${dir}-list.json`);
    writeFileSync(
      list,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed', namespace: 'default' }, data: { a: '1' } },
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'listed', namespace: 'default' },
            spec: { selector: { matchLabels: { app: 'listed' } }, template: { metadata: { labels: { app: 'listed' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
          },
        ],
      }),
    );
    const first = await t.kubectl(admin, ['apply', '-f', list]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'configmap/listed created\ndeployment.apps/listed created\n');
    const second = await t.kubectl(admin, ['apply', '-f', list]);
    assert.equal(second.stdout, 'configmap/listed unchanged\ndeployment.apps/listed unchanged\n');

    const missing = `${dir}-missing.json`;
    writeFileSync(missing, JSON.stringify({ apiVersion: 'nope.example.com/v1', kind: 'Gizmo', metadata: { name: 'g', namespace: 'default' } }));
    const refused = await t.kubectl(admin, ['apply', '-f', missing]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /no matches for kind "Gizmo" in version "nope\.example\.com\/v1"/);
    assert.doesNotMatch(refused.stderr, /failed to download openapi/);
  });
});
