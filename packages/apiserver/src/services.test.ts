import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { createEtcdClient, decodeStoredObject, ttlKeys } from '@kapi/storage';
import { uniquePrefix } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { startApiServer, type RunningServer } from './main.js';
import { eventually } from './testing/fixture.js';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

const FAST = { intervalMs: 200, leaseTTLSeconds: 2 };

/**
 * Two replicas on one etcd and prefix, kubectl against the first: the `kubernetes` Service
 * and its Endpoints, Service columns, kubectl expose, NodePorts, allocation across replicas
 * and the repair pass at start.
 */
void describe('services through kubectl, two replicas', () => {
  let first: SecureServer;
  let second: RunningServer;
  let prefix: string;
  let port: number;
  const admin = () => ({ cert: first.admin });
  const kubectl = async (...args: string[]) => first.kubectl(admin(), args);
  const get = async (path: string) => (await first.request(admin(), 'GET', path)).json;
  const addresses = async () => {
    const ep = await get('/api/v1/namespaces/default/endpoints/kubernetes');
    const subsets = (ep['subsets'] as { addresses?: { ip: string }[] }[] | undefined) ?? [];
    return subsets.flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).join(',');
  };

  before(async () => {
    prefix = uniquePrefix('services');
    first = await startSecureServer({ etcdPrefix: prefix, advertiseAddress: '10.200.0.1', kubernetesService: FAST });
    port = first.server.securePort!;
    // The same port on another loopback address: kube's replicas all serve one port.
    second = await startApiServer({
      etcdServers: first.etcd.endpoints,
      etcdPrefix: prefix,
      securePort: port,
      bindAddress: '127.0.0.2',
      certDir: first.ca.dir,
      advertiseAddress: '10.200.0.2',
      kubernetesService: FAST,
      logger: silentLogger,
    });
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  void it('the kubernetes Service gets the range\'s first IP and kubectl get svc prints kube\'s columns', async () => {
    await eventually('the kubernetes service', async () => (await kubectl('get', 'svc', 'kubernetes')).code === 0);
    const { stdout } = await kubectl('get', 'svc', 'kubernetes', '-o', 'wide');
    const [header, row] = stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    assert.deepEqual([row![0], row![1], row![2], row![3], row![4], row![6]], ['kubernetes', 'ClusterIP', '10.0.0.1', '<none>', '443/TCP', '<none>']);
    const svc = await get('/api/v1/namespaces/default/services/kubernetes');
    assert.deepEqual((svc['spec'] as Record<string, unknown>)['ports'], [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }]);
    assert.deepEqual(svc['metadata'] && (svc['metadata'] as Record<string, unknown>)['labels'], { component: 'apiserver', provider: 'kubernetes' });
  });

  void it('the Endpoints and EndpointSlice list both replicas; kubectl cluster-info works', async () => {
    await eventually('both replicas listed', async () => (await addresses()) === '10.200.0.1,10.200.0.2');
    const { stdout } = await kubectl('get', 'endpoints,endpointslices', 'kubernetes');
    assert.match(stdout, /NAME\s+ENDPOINTS\s+AGE\nendpoints\/kubernetes\s+10\.200\.0\.1:\d+,10\.200\.0\.2:\d+\s/);
    assert.match(stdout, new RegExp(`NAME\\s+ADDRESSTYPE\\s+PORTS\\s+ENDPOINTS\\s+AGE\\nendpointslice.discovery.k8s.io/kubernetes\\s+IPv4\\s+${port}\\s+10\\.200\\.0\\.1,10\\.200\\.0\\.2\\s`));
    const info = await kubectl('cluster-info');
    assert.equal(info.code, 0, info.stderr);
    assert.match(info.stdout, new RegExp(`Kubernetes control plane.* is running at .*https://127\\.0\\.0\\.1:${port}`));
  });

  void it('a lease that is not renewed drops out once it expires', async () => {
    const client = createEtcdClient([...first.etcd.endpoints]);
    try {
      await ttlKeys(client, `${prefix}/masterleases/`).put('10.200.0.9', { kind: 'Endpoints' }, 2);
      await eventually('the crashed replica listed', async () => (await addresses()) === '10.200.0.1,10.200.0.2,10.200.0.9');
      const seen = Date.now();
      await eventually('the crashed replica dropped', async () => (await addresses()) === '10.200.0.1,10.200.0.2', 15_000);
      assert.ok(Date.now() - seen < 10_000);
    } finally {
      client.close();
    }
  });

  void it('kubectl expose deployment, NodePort allocation and kube\'s messages', async () => {
    assert.equal((await kubectl('create', 'deployment', 'web', '--image=nginx', '--port=80')).code, 0);
    const exposed = await kubectl('expose', 'deployment', 'web', '--port=80', '--target-port=8080');
    assert.equal(exposed.code, 0, exposed.stderr);
    const { stdout } = await kubectl('get', 'svc', 'web', '-o', 'wide', '--no-headers');
    const cells = stdout.trim().split(/\s+/);
    assert.equal(cells[1], 'ClusterIP');
    assert.match(cells[2]!, /^10\.0\.0\.\d+$/);
    assert.equal(cells[4], '80/TCP');
    assert.equal(cells[6], 'app=web');
    assert.equal((await kubectl('create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080')).code, 0);
    assert.match((await kubectl('get', 'svc', 'np', '--no-headers')).stdout, /^np\s+NodePort\s+10\.0\.0\.\d+\s+<none>\s+80:30080\/TCP\s/);
    const again = await kubectl('create', 'service', 'nodeport', 'np2', '--tcp=80:8080', '--node-port=30080');
    assert.equal(again.stderr.trim(), 'error: failed to create NodePort service: Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    const taken = await kubectl('create', 'service', 'clusterip', 'dup', '--tcp=80:8080', '--clusterip=10.0.0.1');
    assert.equal(taken.stderr.trim(), 'error: failed to create ClusterIP service: Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: provided IP is already allocated');
  });

  void it('creates through both replicas at once get distinct IPs; deletes release them', async () => {
    const body = (i: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: `par-${i}` }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    // The second replica authenticates nobody (no client CA): every request runs unauthenticated, allowed.
    const viaSecond = (i: number) => new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const req = httpsRequest(`https://127.0.0.2:${port}/api/v1/namespaces/default/services`, { method: 'POST', rejectUnauthorized: false, headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body(i)));
    });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first.request(admin(), 'POST', '/api/v1/namespaces/default/services', { body: body(i) }) : viaSecond(i))));
    assert.deepEqual(results.map((r) => r.status), new Array<number>(20).fill(201));
    const ips = results.map((r) => (r.json['spec'] as Record<string, unknown>)['clusterIP']);
    assert.equal(new Set(ips).size, 20);
    const nodePorts = results.map((r) => ((r.json['spec'] as Record<string, unknown>)['ports'] as Record<string, unknown>[])[0]!['nodePort']);
    assert.equal(new Set(nodePorts).size, 20);
    for (let i = 0; i < 20; i++) assert.equal((await first.request(admin(), 'DELETE', `/api/v1/namespaces/default/services/par-${i}`)).status, 200);
    const ranges = createEtcdClient([...first.etcd.endpoints]);
    try {
      const stored = decodeStoredObject((await ranges.get(`${prefix}/ranges/serviceips`).buffer())!, 'serviceips') as Record<string, unknown>;
      assert.equal(stored['kind'], 'RangeAllocation');
      assert.equal(stored['range'], '10.0.0.0/24');
      const bits = Buffer.from(String(stored['data']), 'base64');
      const held = [...bits.reverse()].reduce((n, byte) => n + [...Array(8).keys()].filter((b) => (byte & (1 << b)) !== 0).length, 0);
      assert.equal(held, 3, 'kubernetes, web and np hold IPs; the 20 were released');
    } finally {
      ranges.close();
    }
  });

  void it('Endpoints, EndpointSlice, Ingress, IngressClass and NetworkPolicy columns as kube 1.32 prints them', async () => {
    const manifest = [
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep1' }, subsets: [{ addresses: [{ ip: '1.2.3.4' }, { ip: '1.2.3.5' }], ports: [{ port: 80, name: 'a' }, { port: 81, name: 'b' }] }, { addresses: [{ ip: 'fd00::1' }] }] },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep2' } },
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es1' }, addressType: 'IPv4', ports: [{ port: 80 }, { name: 'x' }, { name: 'z' }, { port: 90, name: 'w' }], endpoints: ['1.2.3.4', '1.2.3.5', '1.2.3.6', '1.2.3.7'].map((ip) => ({ addresses: [ip] })) },
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'es2' }, addressType: 'FQDN' },
      { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'ic1' }, spec: { controller: 'example.com/c', parameters: { kind: 'K', name: 'n', apiGroup: 'g.example.com' } } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'ic2' }, spec: { controller: 'example.com/c' } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'in1' }, spec: { ingressClassName: 'ic1', tls: [{ hosts: ['a.example.com'] }], rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }, {}, { host: 'c.example.com' }, { host: 'd.example.com' }] } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'in2' }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np1' }, spec: { podSelector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['y', 'x'] }, { key: 'd', operator: 'DoesNotExist' }] }, egress: [{}] } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np2' }, spec: { podSelector: {} } },
    ];
    const file = join(first.ca.dir, 'networking.json');
    writeFileSync(file, manifest.map((o) => JSON.stringify(o)).join('\n'));
    const applied = await kubectl('apply', '-f', file);
    assert.equal(applied.code, 0, applied.stderr);
    const rows = async (...args: string[]) => (await kubectl('get', ...args)).stdout.trim().split('\n').map((line) => line.replace(/\s+\S+$/, '').trim());
    assert.deepEqual(await rows('endpoints', 'ep1', 'ep2'), ['NAME   ENDPOINTS', 'ep1    1.2.3.4:80,1.2.3.5:80,1.2.3.4:81 + 2 more...', 'ep2    <none>']);
    assert.deepEqual(await rows('endpointslices', 'es1', 'es2'), ['NAME   ADDRESSTYPE   PORTS                ENDPOINTS', 'es1    IPv4          80,x,z + 1 more...   1.2.3.4,1.2.3.5,1.2.3.6 + 1 more...', 'es2    FQDN          <unset>              <unset>']);
    assert.deepEqual(await rows('ingressclasses', 'ic1', 'ic2'), ['NAME   CONTROLLER      PARAMETERS', 'ic1    example.com/c   K.g.example.com/n', 'ic2    example.com/c   <none>']);
    assert.deepEqual(await rows('ingresses', 'in1', 'in2'), ['NAME   CLASS    HOSTS                                                   ADDRESS   PORTS', 'in1    ic1      a.example.com,b.example.com,c.example.com + 2 more...             80, 443', 'in2    <none>   *                                                                 80']);
    assert.deepEqual(await rows('networkpolicies', 'np1', 'np2'), ['NAME   POD-SELECTOR', 'np1    a=1,b=2,c in (x,y),!d', 'np2    <none>']);
    const np1 = await get('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/np1');
    assert.deepEqual((np1['spec'] as Record<string, unknown>)['policyTypes'], ['Ingress', 'Egress']);
  });

  void it('a replica starting repairs a damaged bitmap from the Services', async () => {
    const client = createEtcdClient([...first.etcd.endpoints]);
    let third: RunningServer | undefined;
    try {
      // Another range's bitmap: no allocation can use it until the repair pass rewrites it.
      await client.put(`${prefix}/ranges/servicenodeports`).value(JSON.stringify({ kind: 'RangeAllocation', apiVersion: 'v1', metadata: {}, range: '1-2', data: '' }));
      const refused = await first.request(admin(), 'POST', '/api/v1/namespaces/default/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'early' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } } });
      assert.equal(refused.status, 500);
      assert.equal(refused.json['message'], 'Internal error occurred: cannot allocate resources of type servicenodeportallocations at this time');
      third = await startApiServer({ etcdServers: first.etcd.endpoints, etcdPrefix: prefix, securePort: port, bindAddress: '127.0.0.3', certDir: first.ca.dir, advertiseAddress: '10.200.0.3', kubernetesService: FAST, logger: silentLogger });
      await eventually('the node port bitmap repaired', async () => {
        const stored = decodeStoredObject((await client.get(`${prefix}/ranges/servicenodeports`).buffer())!, 'servicenodeports') as Record<string, unknown>;
        return stored['range'] === '30000-32767' && Buffer.from(String(stored['data']), 'base64').length > 0;
      });
      const again = await first.request(admin(), 'POST', '/api/v1/namespaces/default/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'late' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] } } });
      assert.equal(again.json['message'], 'Service "late" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    } finally {
      await third?.close();
      client.close();
    }
  });

  void it('a replica that shuts down takes its address out at once', async () => {
    await eventually('both replicas listed', async () => (await addresses()) === '10.200.0.1,10.200.0.2');
    await second.close();
    assert.equal(await addresses(), '10.200.0.1', 'removed by the stopping replica itself, not by its lease expiring');
    const slice = await get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    assert.deepEqual(slice['endpoints'], [{ addresses: ['10.200.0.1'], conditions: { ready: true } }]);
  });
});
