import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';

const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const CLIENT_GO_ACCEPT = `${V2},${V2BETA1},application/json`;

void describe('discovery, OpenAPI and /version', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('serves legacy /api, /apis, /api/v1 and /apis/<g>[/<v>]', async () => {
    const api = await t.request('GET', '/api');
    assert.equal(api.json['kind'], 'APIVersions');
    assert.equal(api.json['apiVersion'], undefined);
    assert.deepEqual(api.json['versions'], ['v1']);
    const cidrs = api.json['serverAddressByClientCIDRs'] as { clientCIDR: string; serverAddress: string }[];
    assert.equal(cidrs[0]!.clientCIDR, '0.0.0.0/0');
    assert.equal(cidrs[0]!.serverAddress, new URL(t.url).host);

    const apis = await t.request('GET', '/apis');
    assert.equal(apis.json['kind'], 'APIGroupList');
    // kube-apiserver 1.32 keeps apiVersion on /apis (not on /api) (issue 23).
    assert.equal(apis.json['apiVersion'], 'v1');
    const coordination = (apis.json['groups'] as Record<string, unknown>[]).find((g) => g['name'] === 'coordination.k8s.io');
    assert.deepEqual(coordination, {
      name: 'coordination.k8s.io',
      versions: [
        // v1beta1 is off by default, as kube 1.32 (which removed it in 1.22) has it.
        { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
      ],
      preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
    });

    const v1 = await t.request('GET', '/api/v1');
    assert.equal(v1.json['kind'], 'APIResourceList');
    assert.equal(v1.json['apiVersion'], undefined);
    assert.equal(v1.json['groupVersion'], 'v1');
    const cm = (v1.json['resources'] as Record<string, unknown>[]).find((r) => r['name'] === 'configmaps');
    assert.deepEqual(cm, {
      name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=',
    });
    const ns = (v1.json['resources'] as Record<string, unknown>[]).find((r) => r['name'] === 'namespaces');
    assert.equal(ns?.['namespaced'], false);
    assert.deepEqual(ns?.['shortNames'], ['ns']);

    const group = await t.request('GET', '/apis/coordination.k8s.io');
    assert.equal(group.json['kind'], 'APIGroup');
    assert.equal(group.json['apiVersion'], 'v1');
    const gv = await t.request('GET', '/apis/coordination.k8s.io/v1');
    assert.equal(gv.json['kind'], 'APIResourceList');
    assert.equal(gv.json['apiVersion'], 'v1');
    assert.equal(gv.json['groupVersion'], 'coordination.k8s.io/v1');
  });

  for (const [accept, version] of [[CLIENT_GO_ACCEPT, 'v2'], [V2BETA1, 'v2beta1'], [`${V2BETA1},${V2}`, 'v2beta1'], ['application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io;charset=utf-8', 'v2']] as const) {
    void it(`serves aggregated discovery ${version} for Accept ${accept.slice(0, 60)}…`, async () => {
      const core = await t.request('GET', '/api', { headers: { accept } });
      assert.equal(core.status, 200);
      assert.equal(core.headers.get('content-type'), `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`);
      assert.equal(core.json['kind'], 'APIGroupDiscoveryList');
      assert.equal(core.json['apiVersion'], `apidiscovery.k8s.io/${version}`);
      const items = core.json['items'] as Record<string, unknown>[];
      assert.equal(items.length, 1);
      assert.equal((items[0]!['metadata'] as Record<string, unknown>)['name'], undefined);
      const versions = items[0]!['versions'] as Record<string, unknown>[];
      assert.equal(versions[0]!['version'], 'v1');
      assert.equal(versions[0]!['freshness'], 'Current');
      const cm = (versions[0]!['resources'] as Record<string, unknown>[]).find((r) => r['resource'] === 'configmaps');
      assert.deepEqual(cm, {
        resource: 'configmaps', responseKind: { group: '', version: '', kind: 'ConfigMap' }, scope: 'Namespaced', singularResource: 'configmap',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'],
      });

      const apis = await t.request('GET', '/apis', { headers: { accept } });
      const groups = apis.json['items'] as { metadata: { name: string } }[];
      assert.ok(groups.some((g) => g.metadata.name === 'coordination.k8s.io'));
      assert.ok(!groups.some((g) => g.metadata.name === undefined));

      const etag = core.headers.get('etag');
      assert.match(etag ?? '', /^"[0-9A-F]+"$/);
      const cached = await t.request('GET', '/api', { headers: { accept, 'if-none-match': etag! } });
      assert.equal(cached.status, 304);
      assert.equal(cached.text, '');
    });
  }

  void it('falls back to legacy JSON and refuses what it cannot serve', async () => {
    const legacy = await t.request('GET', '/apis', { headers: { accept: 'application/json' } });
    assert.equal(legacy.json['kind'], 'APIGroupList');
    assert.equal(legacy.headers.get('content-type'), 'application/json');
    const refused = await t.request('GET', '/apis', { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(refused.status, 406);
    assert.equal(refused.json['reason'], 'NotAcceptable');
  });

  void it('serves the OpenAPI v3 index and documents kubectl can use', async () => {
    const index = await t.request('GET', '/openapi/v3');
    // kube serves the index with Go's sniffed type and no negotiation (issue 23).
    assert.equal(index.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal((await t.request('GET', '/openapi/v3', { headers: { accept: 'application/yaml' } })).status, 200);
    const paths = index.json['paths'] as Record<string, { serverRelativeURL: string }>;
    assert.ok(paths['api/v1']);
    assert.ok(paths['apis/coordination.k8s.io/v1']);
    for (const key of Object.keys(paths)) assert.ok(!key.startsWith('/'), key);
    const url = paths['api/v1']!.serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);

    const doc = await t.request('GET', url, { headers: { accept: 'application/json' } });
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get('cache-control'), 'public, immutable');
    assert.ok(doc.headers.get('expires'));
    assert.equal(doc.headers.get('etag'), `"${url.split('hash=')[1]}"`);
    assert.equal(doc.json['openapi'], '3.0.0');
    const docPaths = doc.json['paths'] as Record<string, Record<string, Record<string, unknown>>>;
    const item = docPaths['/api/v1/namespaces/{namespace}/configmaps/{name}']!;
    for (const verb of ['get', 'put', 'patch', 'delete']) {
      assert.deepEqual(item[verb]!['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'ConfigMap' }, verb);
    }
    const patch = item['patch']!;
    const fieldValidation = (patch['parameters'] as Record<string, unknown>[]).find((p) => p['name'] === 'fieldValidation');
    assert.equal(fieldValidation?.['in'], 'query');
    assert.deepEqual(Object.keys((patch['requestBody'] as { content: object }).content), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    const collection = docPaths['/api/v1/namespaces/{namespace}/configmaps']!;
    assert.ok(collection['get'] && collection['post'] && collection['delete']);
    assert.ok(docPaths['/api/v1/configmaps']!['get']);
    assert.ok(docPaths['/api/v1/namespaces/{name}']!['get']);

    const schemas = (doc.json['components'] as { schemas: Record<string, Record<string, unknown>> }).schemas;
    assert.deepEqual(schemas['io.k8s.api.core.v1.ConfigMap']!['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.Patch']);
    // Every reference resolves inside the document.
    const refs = JSON.stringify(doc.json).match(/#\/components\/schemas\/[^"]+/g) ?? [];
    for (const ref of refs) assert.ok(schemas[ref.slice('#/components/schemas/'.length)], ref);

    const stale = await fetch(`${t.url}/openapi/v3/api/v1?hash=STALE`, { redirect: 'manual' });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.get('location'), url);
    const again = await t.request('GET', url, { headers: { 'if-none-match': doc.headers.get('etag')! } });
    assert.equal(again.status, 304);
  });

  void it('reports a Kubernetes 1.32 /version', async () => {
    const res = await t.request('GET', '/version');
    assert.equal(res.json['major'], '1');
    assert.equal(res.json['minor'], '32');
    assert.match(String(res.json['gitVersion']), /^v1\.32\.\d+/);
    for (const field of ['gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']) assert.equal(typeof res.json[field], 'string', field);
  });
});
