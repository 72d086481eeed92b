/**
 * A real project's CRDs: Gateway API v1.2.1 (testdata/gateway-api-v1.2.1) installs on kapi
 * as on kube — every validation rule compiles within kube's cost budgets — and its rules
 * refuse bad Gateways, HTTPRoutes and GatewayClass changes with the messages
 * kube-apiserver 1.32.13 gives for the same objects.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { eventually, startTestServer, type TestServer } from './testing/fixture.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = '/apis/gateway.networking.k8s.io/v1';
type Json = Record<string, unknown>;

const crd = (name: string) => parse(readFileSync(new URL(`../testdata/gateway-api-v1.2.1/gateway.networking.k8s.io_${name}.yaml`, import.meta.url), 'utf8')) as Json;

const listener = (name: string, protocol: string, port: number, extra: Json = {}) => ({ name, protocol, port, ...extra });
const tls = { mode: 'Terminate', certificateRefs: [{ name: 'cert' }] };

void describe('Gateway API v1.2.1 CRDs', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());

  const causes = (res: { json: Json }) => ((res.json['details'] as Json | undefined)?.['causes'] as Json[] | undefined)?.map((c) => `${String(c['field'])}: ${String(c['message'])}`);

  const install = async (name: string, path: string) => {
    const res = await t.request('POST', CRD_PATH, { body: crd(name) });
    assert.equal(res.status, 201, `${name}: ${res.text.slice(0, 3000)}`);
    await eventually(`${path} to be served`, async () => (await t.request('GET', path)).status === 200);
  };

  void it('the GatewayClass and Gateway CRDs are accepted and served', async () => {
    await install('gatewayclasses', `${GROUP}/gatewayclasses`);
    await install('gateways', `${GROUP}/namespaces/default/gateways`);
  });

  void it("a Gateway's listener rules: tls only for TLS protocols, no hostname for TCP", async () => {
    const gateway = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'gw' },
      spec: { gatewayClassName: 'example', listeners: [listener('http', 'HTTP', 80, { tls }), listener('tcp', 'TCP', 9000, { hostname: 'tcp.example.com' })] },
    };
    const res = await t.request('POST', `${GROUP}/namespaces/default/gateways`, { body: gateway });
    assert.equal(res.status, 422, res.text);
    assert.equal(
      res.json['message'],
      'Gateway.gateway.networking.k8s.io "gw" is invalid: [spec.listeners: Invalid value: "array": tls must not be specified for protocols [\'HTTP\', \'TCP\', \'UDP\'], spec.listeners: Invalid value: "array": hostname must not be specified for protocols [\'TCP\', \'UDP\']]',
    );
    const good = { ...gateway, spec: { gatewayClassName: 'example', listeners: [listener('http', 'HTTP', 80), listener('https', 'HTTPS', 443, { hostname: '*.example.com', tls })] } };
    const created = await t.request('POST', `${GROUP}/namespaces/default/gateways`, { body: good });
    assert.equal(created.status, 201, created.text);
  });

  // Four HTTPRoute rules test has() on a field of an indexed value (`has(self.matches[0].path)`).
  void it("the HTTPRoute CRD is accepted; an HTTPRoute's rules: backend port, path value, repeated filters", async () => {
    await install('httproutes', `${GROUP}/namespaces/default/httproutes`);
    const route = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'route' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/a//b' } }], backendRefs: [{ name: 'svc' }] },
          {
            filters: [
              { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x', value: 'yes' }] } },
              { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'z', value: 'w' }] } },
            ],
          },
        ],
      },
    };
    const res = await t.request('POST', `${GROUP}/namespaces/default/httproutes`, { body: route });
    assert.equal(res.status, 422, res.text);
    // kube walks an object's fields in Go map order, so its causes come in varying order
    assert.deepEqual(causes(res)?.sort(), [
      'spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference',
      "spec.rules[0].matches[0].path: Invalid value: \"object\": must not contain '//' when type one of ['Exact', 'PathPrefix']",
      'spec.rules[1].filters: Invalid value: "array": RequestHeaderModifier filter cannot be repeated',
    ]);
  });

  // GRPCRoute's service rule is an RE2 pattern with an inline flag after the anchor: ^(?i)\.?[a-z_]…
  void it("the GRPCRoute CRD is accepted; a GRPCRoute's method match rules, (?i) case-insensitive", async () => {
    await install('grpcroutes', `${GROUP}/namespaces/default/grpcroutes`);
    const route = (matches: Json[]) => ({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: 'g' }, spec: { parentRefs: [{ name: 'gw' }], rules: [{ matches }] } });
    const res = await t.request('POST', `${GROUP}/namespaces/default/grpcroutes`, { body: route([{ method: { type: 'Exact', service: 'foo..bar', method: 'Get' } }, { method: { type: 'Exact' } }]) });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causes(res), [
      'spec.rules[0].matches[0].method: Invalid value: "object": service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)',
      "spec.rules[0].matches[1].method: Invalid value: \"object\": One or both of 'service' or 'method' must be specified",
    ]);
    const created = await t.request('POST', `${GROUP}/namespaces/default/grpcroutes`, { body: route([{ method: { type: 'Exact', service: 'Foo.Bar_1', method: 'Get' } }]) });
    assert.equal(created.status, 201, created.text);
  });

  void it('the ReferenceGrant CRD is accepted (all five standard-channel CRDs install, as on kube 1.32.13)', async () => {
    await install('referencegrants', `${GROUP.replace('/v1', '/v1beta1')}/namespaces/default/referencegrants`);
  });

  void it("a GatewayClass's controllerName is immutable (a transition rule)", async () => {
    const created = await t.request('POST', `${GROUP}/gatewayclasses`, { body: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'example' }, spec: { controllerName: 'example.com/gateway-controller' } } });
    assert.equal(created.status, 201, created.text);
    const res = await t.request('PATCH', `${GROUP}/gatewayclasses/example`, { body: { spec: { controllerName: 'example.com/other' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json['message'], 'GatewayClass.gateway.networking.k8s.io "example" is invalid: spec.controllerName: Invalid value: "string": Value is immutable');
  });
});

// The experimental channel: ten CRDs, 244 rules (kube 1.32.13 accepts every one). A server of
// its own, since five of them share their names with the standard-channel CRDs above.
void describe('Gateway API v1.2.1 experimental-channel CRDs', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());

  const dir = new URL('../testdata/gateway-api-v1.2.1/experimental/', import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    void it(`${file} is accepted: every rule compiles within kube's cost budgets`, async () => {
      const res = await t.request('POST', CRD_PATH, { body: parse(readFileSync(new URL(file, dir), 'utf8')) as Json });
      assert.equal(res.status, 201, `${file}: ${res.text.slice(0, 3000)}`);
    });
  }
});
