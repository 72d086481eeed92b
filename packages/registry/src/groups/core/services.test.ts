import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { parseFieldSelector } from '@kapi/machinery';
import { createEtcdStorage, type EtcdStorage } from '@kapi/storage';
import { uniquePrefix } from '@kapi/storage/testing';
import { createRegistry, type Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';
import { AllocationBitmap } from './service-network/bitmap.js';
import { newRepairState, repairServiceNetwork } from './service-network/repair.js';

const ns = inNamespace('default');
const withoutTrafficPolicy = ({ externalTrafficPolicy: _e, ...rest }: Record<string, unknown>) => ({ ...rest, type: 'ClusterIP' });
const spec = (obj: KubeObject) => obj['spec'] as Record<string, unknown>;
const svc = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { ports: [{ port: 80 }], selector: { app: name }, ...extra },
});

void describe('services', () => {
  let fx: Fixture;
  let registry: Registry;
  const services = () => resource(registry, 'services');
  /** The IPs and node ports the RangeAllocations hold. */
  const held = async (r: Registry = registry) => ({
    ips: (await r.serviceNetwork.ips.read()).bitmap.offsets().map((o) => r.serviceNetwork.ips.range.valueAt(o)),
    ports: (await r.serviceNetwork.nodePorts.read()).bitmap.offsets().map((o) => r.serviceNetwork.nodePorts.range.valueAt(o)),
  });

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('defaults as kube v1 does and allocates a cluster IP from the upper band', async () => {
    const created = await services().creater.create(ns, svc('plain'), {});
    const s = spec(created);
    assert.equal(s['type'], 'ClusterIP');
    assert.equal(s['sessionAffinity'], 'None');
    assert.deepEqual(s['ipFamilies'], ['IPv4']);
    assert.equal(s['ipFamilyPolicy'], 'SingleStack');
    assert.equal(s['internalTrafficPolicy'], 'Cluster');
    assert.deepEqual(s['ports'], [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.equal(s['externalTrafficPolicy'], undefined);
    const ip = s['clusterIP'] as string;
    assert.match(ip, /^10\.0\.0\.\d+$/);
    assert.ok(Number(ip.split('.')[3]) >= 17, `dynamic IPs come from offset 16 up: ${ip}`);
    assert.deepEqual(s['clusterIPs'], [ip]);
    assert.deepEqual(created['status'], { loadBalancer: {} });
    assert.ok((await held()).ips.includes(ip));
  });

  void it('a taken or out-of-range cluster IP is kube\'s 422', async () => {
    await services().creater.create(ns, svc('fixed', { clusterIP: '10.0.0.5' }), {});
    const taken = await rejectsWithStatus(services().creater.create(ns, svc('again', { clusterIP: '10.0.0.5' }), {}), { code: 422, reason: 'Invalid' });
    assert.equal(taken.message, 'Service "again" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: provided IP is already allocated');
    const outside = await rejectsWithStatus(services().creater.create(ns, svc('outside', { clusterIP: '10.9.0.5' }), {}), { code: 422 });
    assert.equal(outside.message, 'Service "outside" is invalid: spec.clusterIPs: Invalid value: []string{"10.9.0.5"}: failed to allocate IP 10.9.0.5: the provided IP (10.9.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24');
  });

  void it('NodePort: ports allocated and defaulted; a taken or out-of-range one is a 422', async () => {
    const created = await services().creater.create(ns, svc('np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }, { name: 'b', port: 81 }] }), {}).catch(() => undefined);
    assert.equal(created, undefined, 'two ports need names');
    const ok = await services().creater.create(ns, svc('np', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30080 }, { name: 'b', port: 81 }] }), {});
    const ports = spec(ok)['ports'] as Record<string, unknown>[];
    assert.equal(ports[0]!['nodePort'], 30080);
    assert.ok((ports[1]!['nodePort'] as number) >= 30000 + 86, 'dynamic ports come from the upper band');
    assert.equal(spec(ok)['externalTrafficPolicy'], 'Cluster');
    const taken = await rejectsWithStatus(services().creater.create(ns, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), {}), { code: 422 });
    assert.equal(taken.message, 'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    const outside = await rejectsWithStatus(services().creater.create(ns, svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }), {}), { code: 422 });
    assert.equal(outside.message, 'Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767');
    // The failed creates reserved nothing: np2's IP went back.
    const h = await held();
    assert.ok(h.ports.includes(30080) && h.ports.includes(ports[1]!['nodePort'] as number));
    assert.equal(h.ports.length, 2);
  });

  void it('delete releases the IP and node ports; a type change to ClusterIP releases node ports', async () => {
    const created = await services().creater.create(ns, svc('gone', { type: 'NodePort' }), {});
    const ip = spec(created)['clusterIP'] as string;
    const port = (spec(created)['ports'] as Record<string, unknown>[])[0]!['nodePort'] as number;
    assert.ok((await held()).ips.includes(ip) && (await held()).ports.includes(port));
    const { object } = await services().updater.update(ns, 'gone', { ...created, spec: withoutTrafficPolicy(spec(created)) }, {});
    assert.equal((spec(object)['ports'] as Record<string, unknown>[])[0]!['nodePort'], undefined);
    assert.equal(spec(object)['clusterIP'], ip, 'the IP is kept');
    assert.ok(!(await held()).ports.includes(port));
    await services().deleter.delete(ns, 'gone', {});
    assert.ok(!(await held()).ips.includes(ip));
  });

  void it('clusterIP may not change; PUT without it keeps it; to ExternalName releases it', async () => {
    const created = await services().creater.create(ns, svc('keep'), {});
    const ip = spec(created)['clusterIP'] as string;
    const changed = await rejectsWithStatus(services().updater.update(ns, 'keep', { ...created, spec: { ...spec(created), clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'] } }, {}), { code: 422 });
    assert.equal(changed.message, 'Service "keep" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.9"}: may not change once set');
    const { clusterIP: _a, clusterIPs: _b, ...rest } = spec(created);
    const { object } = await services().updater.update(ns, 'keep', { ...created, spec: rest }, {});
    assert.equal(spec(object)['clusterIP'], ip);
    const { object: external } = await services().updater.update(ns, 'keep', { ...object, spec: { ...spec(object), type: 'ExternalName', externalName: 'example.com' } }, {});
    assert.equal(spec(external)['clusterIP'], undefined);
    assert.equal(spec(external)['ipFamilies'], undefined);
    assert.ok(!(await held()).ips.includes(ip));
  });

  void it('a lost bitmap is rebuilt from the stored Services before the next allocation', async () => {
    const created = await services().creater.create(ns, svc('survivor'), {});
    const ip = spec(created)['clusterIP'] as string;
    await fx.storage.delete(registry.serviceNetwork.ips.key);
    const taken = await rejectsWithStatus(services().creater.create(ns, svc('clash', { clusterIP: ip }), {}), { code: 422 });
    assert.match(taken.message ?? '', /provided IP is already allocated/);
    const next = await services().creater.create(ns, svc('next'), {});
    const h = await held();
    assert.ok(h.ips.includes(ip) && h.ips.includes(spec(next)['clusterIP'] as string));
  });

  void it('field selectors spec.clusterIP and spec.type', async () => {
    await services().creater.create(ns, svc('headless-one', { clusterIP: 'None' }), {});
    const notHeadless = await services().lister.list(ns, { fieldSelector: parseFieldSelector('spec.clusterIP!=None,spec.type=ClusterIP') });
    assert.ok(!notHeadless.items.some((i) => i.metadata.name === 'headless-one'));
    assert.ok(notHeadless.items.some((i) => i.metadata.name === 'plain'));
    const headless = await services().lister.list(ns, { fieldSelector: parseFieldSelector('spec.clusterIP=None') });
    assert.deepEqual(headless.items.map((i) => i.metadata.name), ['headless-one']);
    await rejectsWithStatus(services().lister.list(ns, { fieldSelector: parseFieldSelector('spec.foo=x') }), { code: 400, message: 'field label not supported: spec.foo' });
  });

  void it('IP families: headless without selector takes both, PreferDualStack stays, dual-stack demands are refused', async () => {
    const headless = await services().creater.create(ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hl' }, spec: { clusterIP: 'None' } }, {});
    assert.deepEqual([spec(headless)['ipFamilyPolicy'], spec(headless)['ipFamilies']], ['RequireDualStack', ['IPv4', 'IPv6']]);
    const prefer = await services().creater.create(ns, svc('prefer', { ipFamilyPolicy: 'PreferDualStack' }), {});
    assert.deepEqual([spec(prefer)['ipFamilyPolicy'], spec(prefer)['ipFamilies']], ['PreferDualStack', ['IPv4']]);
    const require = await rejectsWithStatus(services().creater.create(ns, svc('require', { ipFamilyPolicy: 'RequireDualStack' }), {}), { code: 422 });
    assert.equal(require.message, 'Service "require" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    const v6 = await rejectsWithStatus(services().creater.create(ns, svc('v6', { ipFamilies: ['IPv6'] }), {}), { code: 422 });
    assert.equal(v6.message, 'Service "v6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
  });

  void it('/status validates load-balancer ingress as kube does', async () => {
    const created = await services().creater.create(ns, svc('lb-status', { type: 'LoadBalancer' }), {});
    const bad = { ...created, status: { loadBalancer: { ingress: [{ ip: 'foo' }, { hostname: '1.2.3.4' }, { hostname: 'a.example.com', ipMode: 'VIP' }] } } };
    const status = await rejectsWithStatus(services().subresources!.get('status')!.updater!.update(ns, 'lb-status', bad, {}), { code: 422 });
    assert.equal(status.message, 'Service "lb-status" is invalid: [status.loadBalancer.ingress[0].ip: Invalid value: "foo": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address, status.loadBalancer.ingress[2].ipMode: Forbidden: may not be specified when `ip` is not set]');
    const good = { ...created, status: { loadBalancer: { ingress: [{ ip: '9.9.9.9', ipMode: 'VIP' }] } } };
    const { object } = await services().subresources!.get('status')!.updater!.update(ns, 'lb-status', good, {});
    assert.deepEqual(object['status'], good.status);
  });

  void it('dryRun allocates nothing', async () => {
    const before = await held();
    const created = await services().creater.create(ns, svc('dry', { type: 'NodePort' }), { dryRun: true });
    assert.match(spec(created)['clusterIP'] as string, /^10\.0\.0\./);
    assert.deepEqual(await held(), before);
  });

  void it('two replicas on one etcd never hand out the same IP or port', async () => {
    const prefix = uniquePrefix('services-replicas');
    const storages: EtcdStorage[] = [createEtcdStorage({ endpoints: fx.etcd.endpoints }), createEtcdStorage({ endpoints: fx.etcd.endpoints })];
    const replicas = storages.map((storage) => createRegistry({ storage, prefix, serviceNetwork: { clusterIPRange: '10.1.0.0/26', nodePortRange: '31000-31039' } }));
    await replicas[0]!.ensureSystemNamespaces();
    try {
      const creates = Array.from({ length: 40 }, (_, i) =>
        resource(replicas[i % 2]!, 'services').creater.create(ns, svc(`c${i}`, { type: 'NodePort' }), {}).then(
          (o) => ({ ip: spec(o)['clusterIP'] as string, port: (spec(o)['ports'] as Record<string, unknown>[])[0]!['nodePort'] as number }),
          (err: unknown) => err,
        ),
      );
      const results = await Promise.all(creates);
      const made = results.filter((r): r is { ip: string; port: number } => typeof r === 'object' && r !== null && 'ip' in r);
      // 62 addresses and 40 ports: all 40 fit.
      assert.equal(made.length, 40, `failures: ${results.filter((r) => !made.includes(r as never)).map(String).join('; ')}`);
      assert.equal(new Set(made.map((m) => m.ip)).size, 40);
      assert.equal(new Set(made.map((m) => m.port)).size, 40);
      const full = await rejectsWithStatus(resource(replicas[0]!, 'services').creater.create(ns, svc('one-more', { type: 'NodePort' }), {}), { code: 500 });
      assert.equal(full.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
      const h = await held(replicas[1]);
      assert.equal(h.ports.length, 40);
      assert.equal(h.ips.length, 40, 'the failed create gave its IP back');
    } finally {
      await Promise.all(storages.map((s) => s.close()));
    }
  });

  void it('repair rebuilds a lost bitmap from the Services and frees leaks after three passes', async () => {
    const prefix = uniquePrefix('services-repair');
    const r = createRegistry({ storage: fx.storage, prefix });
    await r.ensureSystemNamespaces();
    const made = await resource(r, 'services').creater.create(ns, svc('kept', { type: 'NodePort' }), {});
    const ip = spec(made)['clusterIP'] as string;
    const port = (spec(made)['ports'] as Record<string, unknown>[])[0]!['nodePort'] as number;
    await fx.storage.delete(`${prefix}/ranges/serviceips`);
    const lostPort = await r.serviceNetwork.nodePorts.read();
    const leaked = new AllocationBitmap(lostPort.bitmap.size, lostPort.bitmap.offset);
    leaked.set(port - 30000);
    leaked.set(5);
    assert.ok(await r.serviceNetwork.nodePorts.replace(leaked, lostPort.resourceVersion));
    const list = async () => (await resource(r, 'services').lister.list({ namespace: '' }, {})).items;
    const state = newRepairState();
    const first = await repairServiceNetwork(r.serviceNetwork, state, list);
    assert.deepEqual(first.ips.repaired, [ip]);
    assert.deepEqual((await held(r)).ips, [ip]);
    assert.deepEqual((await held(r)).ports, [30005, port].sort((a, b) => a - b));
    await repairServiceNetwork(r.serviceNetwork, state, list);
    const third = await repairServiceNetwork(r.serviceNetwork, state, list);
    assert.deepEqual(third.nodePorts.freed, ['30005']);
    assert.deepEqual((await held(r)).ports, [port]);
  });
});
