/**
 * The local APIServices (kube-apiserver's autoregistration): compared with kube-apiserver
 * 1.32.13 started with its default --runtime-config on an empty etcd — the same 20 rows in
 * `kubectl get apiservices`, the same labels, priorities and Local condition; CRD versions
 * come and go with their CRD; edits are treated as kube treats them; two replicas on one
 * etcd leave each other's writes alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniquePrefix } from '@kapi/storage/testing';
import { startApiServer, type RunningServer } from './main.js';
import { silentLogger } from './logger.js';
import { startSecureServer, eventuallyValue, type SecureServer } from './testing/secure-server.js';

type Json = Record<string, unknown>;

/** kube 1.32.13, default --runtime-config: name → [groupPriorityMinimum, versionPriority]. */
const KUBE_LOCAL: Record<string, [number, number]> = {
  'v1.': [18000, 1],
  'v1.admissionregistration.k8s.io': [16700, 15],
  'v1.apiextensions.k8s.io': [16700, 15],
  'v1.apps': [17800, 15],
  'v1.authentication.k8s.io': [17700, 15],
  'v1.authorization.k8s.io': [17600, 15],
  'v1.autoscaling': [17500, 15],
  'v1.batch': [17400, 15],
  'v1.certificates.k8s.io': [17300, 15],
  'v1.coordination.k8s.io': [16500, 15],
  'v1.discovery.k8s.io': [16200, 15],
  'v1.events.k8s.io': [17750, 15],
  'v1.flowcontrol.apiserver.k8s.io': [16100, 21],
  'v1.networking.k8s.io': [17200, 15],
  'v1.node.k8s.io': [16300, 15],
  'v1.policy': [17100, 15],
  'v1.rbac.authorization.k8s.io': [17000, 15],
  'v1.scheduling.k8s.io': [16600, 15],
  'v1.storage.k8s.io': [16800, 15],
  'v2.autoscaling': [17500, 30],
};

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface ApiService {
  metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string>; managedFields?: { manager: string; subresource?: string }[] };
  spec: Json;
  status?: { conditions?: Json[] };
}

function crd(versions: { name: string; served: boolean; storage: boolean }[]): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.toys.example.com' },
    spec: {
      group: 'toys.example.com',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      scope: 'Namespaced',
      versions: versions.map((v) => ({ ...v, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
    },
  };
}

void describe('local APIServices', () => {
  let s: SecureServer;
  const etcdPrefix = uniquePrefix();
  const get = async (name: string) => (await s.request({ cert: s.admin }, 'GET', `${APISERVICES}/${name}`)).json as unknown as ApiService;
  const names = async () => ((await s.request({ cert: s.admin }, 'GET', APISERVICES)).json['items'] as ApiService[]).map((a) => a.metadata.name);

  before(async () => {
    s = await startSecureServer({ etcdPrefix });
    await eventuallyValue('readyz', async () => ((await s.request({ cert: s.admin }, 'GET', '/readyz')).status === 200 ? true : undefined));
  });
  after(async () => {
    await s?.close();
  });

  void it('registers kube\'s 20 local APIServices, each Available (Local), before readyz passes', async () => {
    const list = (await s.request({ cert: s.admin }, 'GET', APISERVICES)).json['items'] as ApiService[];
    assert.deepEqual(list.map((a) => a.metadata.name), Object.keys(KUBE_LOCAL).sort());
    for (const a of list) {
      const [groupPriorityMinimum, versionPriority] = KUBE_LOCAL[a.metadata.name]!;
      const [version, ...group] = a.metadata.name.split('.');
      assert.deepEqual(a.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
      // The core group's APIService has no group field, as kube stores it.
      assert.deepEqual(a.spec, { ...(group.join('.') !== '' ? { group: group.join('.') } : {}), version, groupPriorityMinimum, versionPriority });
      assert.equal(a.status?.conditions?.length, 1);
      const { lastTransitionTime, ...condition } = a.status!.conditions![0]!;
      assert.match(String(lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(condition, { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
      // Written by kube-apiserver's loopback client (kube keeps no status entry for a local one; kapi does, by the same manager).
      assert.deepEqual([...new Set(a.metadata.managedFields?.map((f) => f.manager))], ['kube-apiserver']);
    }
    const verbose = await s.request({ cert: s.admin }, 'GET', '/readyz?verbose');
    assert.match(verbose.text, /^\[\+\]autoregister-completion ok$/m);
    // kube's gauge covers local APIServices too.
    const metrics = (await s.request({ cert: s.admin }, 'GET', '/metrics')).text;
    assert.match(metrics, /^aggregator_unavailable_apiservice\{name="v1\.apps"\} 0$/m);
    assert.match(metrics, /^aggregator_unavailable_apiservice\{name="v1\."\} 0$/m);
  });

  void it('validates APIServices as kube does (name is <version>.<group>, priorities, TLS of local ones)', async () => {
    const create = async (body: Json) => (await s.request({ cert: s.admin }, 'POST', APISERVICES, { body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', ...body } })).json;
    const a = await create({ metadata: { name: 'v1.foo.example.com' }, spec: { group: 'bar.example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 2000 } });
    assert.equal(a['message'], 'APIService.apiregistration.k8s.io "v1.foo.example.com" is invalid: [metadata.name: Invalid value: "v1.foo.example.com": must be `spec.version+"."+spec.group`: "v1.bar.example.com", spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000, spec.versionPriority: Invalid value: 2000: must be positive and less than 1000]');
    const b = await create({ metadata: { name: 'v2.' }, spec: { version: 'v2', groupPriorityMinimum: 10, versionPriority: 10, caBundle: 'aGVsbG8=', insecureSkipTLSVerify: true } });
    assert.equal(b['message'], 'APIService.apiregistration.k8s.io "v2." is invalid: [spec.group: Required value: only v1 may have an empty group and it better be legacy kube, spec.caBundle: Invalid value: "5 bytes": local APIServices may not have a caBundle, spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify]');
    const c = await create({ metadata: { name: 'v1.x.example.com' }, spec: { group: 'x.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10, service: { port: 70000 }, caBundle: 'aGVsbG8=', insecureSkipTLSVerify: true } });
    assert.equal(c['message'], 'APIService.apiregistration.k8s.io "v1.x.example.com" is invalid: [spec.service.namespace: Required value, spec.service.name: Required value, spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive, spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present]');
    assert.deepEqual((c['details'] as { causes: Json[] }).causes[0], { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.service.namespace' });
  });

  void it('kubectl get apiservices prints kube\'s rows', async () => {
    const out = await s.kubectl({ cert: s.admin }, ['get', 'apiservices', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,SERVICE:.spec.service,AVAILABLE:.status.conditions[0].status']);
    assert.equal(out.code, 0, out.stderr);
    const table = await s.kubectl({ cert: s.admin }, ['get', 'apiservices']);
    const rows = table.stdout.trim().split('\n');
    assert.match(rows[0]!, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    assert.deepEqual(rows.slice(1).map((r) => r.split(/\s+/).slice(0, 3)), Object.keys(KUBE_LOCAL).sort().map((n) => [n, 'Local', 'True']));
    assert.equal(out.stdout.trim().split('\n').length, 20);
  });

  void it('a local APIService is not proxied: discovery and requests are unchanged', async () => {
    const groups = (await s.request({ cert: s.admin }, 'GET', '/apis')).json['groups'] as { name: string }[];
    assert.ok(groups.some((g) => g.name === 'apps'));
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/apis/apps/v1/deployments')).status, 200);
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default')).status, 200);
  });

  void it('one APIService per served CRD version (label true, priority 1000/100), removed as versions go', async () => {
    const created = await s.request({ cert: s.admin }, 'POST', CRDS, { body: crd([{ name: 'v1', served: true, storage: true }, { name: 'v1beta1', served: true, storage: false }, { name: 'v1alpha1', served: false, storage: false }]) });
    assert.equal(created.status, 201, created.text);
    await eventuallyValue('both CRD APIServices', async () => {
      const n = await names();
      return n.includes('v1.toys.example.com') && n.includes('v1beta1.toys.example.com') ? true : undefined;
    });
    const v1 = await get('v1.toys.example.com');
    assert.deepEqual(v1.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    assert.deepEqual(v1.spec, { group: 'toys.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    assert.ok(!(await names()).includes('v1alpha1.toys.example.com'), 'a version not served has none');
    await eventuallyValue('Local condition', async () => ((await get('v1beta1.toys.example.com')).status?.conditions?.[0]?.['reason'] === 'Local' ? true : undefined));

    // A user's edit of a continuously managed APIService is put back.
    const edited = await s.request({ cert: s.admin }, 'PATCH', `${APISERVICES}/v1.toys.example.com`, { body: { spec: { versionPriority: 7 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(edited.status, 200, edited.text);
    await eventuallyValue('spec restored', async () => ((await get('v1.toys.example.com')).spec['versionPriority'] === 100 ? true : undefined));
    // Deleted: recreated.
    const before = (await get('v1.toys.example.com')).metadata.uid;
    assert.equal((await s.request({ cert: s.admin }, 'DELETE', `${APISERVICES}/v1.toys.example.com`)).status, 200);
    await eventuallyValue('recreated', async () => {
      const a = await get('v1.toys.example.com');
      return a.metadata?.uid !== undefined && a.metadata.uid !== before ? true : undefined;
    });

    // v1beta1 no longer served: its APIService goes; the CRD gone: all go.
    const current = (await s.request({ cert: s.admin }, 'GET', `${CRDS}/gadgets.toys.example.com`)).json as Json & { spec: { versions: Json[] } };
    current.spec.versions = current.spec.versions.map((v) => (v['name'] === 'v1beta1' ? { ...v, served: false } : v));
    assert.equal((await s.request({ cert: s.admin }, 'PUT', `${CRDS}/gadgets.toys.example.com`, { body: current })).status, 200);
    await eventuallyValue('v1beta1 removed', async () => (!(await names()).includes('v1beta1.toys.example.com') ? true : undefined));
    assert.equal((await s.request({ cert: s.admin }, 'DELETE', `${CRDS}/gadgets.toys.example.com`)).status, 200);
    await eventuallyValue('v1 removed', async () => (!(await names()).includes('v1.toys.example.com') ? true : undefined));
  });

  void it('edits of an onstart APIService stay, as on kube (managed once, at start); without the label it is never touched', async () => {
    const patch = (name: string, body: Json) => s.request({ cert: s.admin }, 'PATCH', `${APISERVICES}/${name}`, { body, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal((await patch('v1.scheduling.k8s.io', { spec: { groupPriorityMinimum: 5 } })).status, 200);
    // A deleted one is not recreated while the server runs (kube: "create once").
    assert.equal((await s.request({ cert: s.admin }, 'DELETE', `${APISERVICES}/v1.node.k8s.io`)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await get('v1.scheduling.k8s.io')).spec['groupPriorityMinimum'], 5);
    assert.ok(!(await names()).includes('v1.node.k8s.io'));
    // The group itself is still served.
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/apis/node.k8s.io/v1/runtimeclasses')).status, 200);
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/apis/scheduling.k8s.io/v1/priorityclasses')).status, 200);
  });

  void it('two replicas starting at once on an empty etcd create each APIService once', async () => {
    const prefix = uniquePrefix();
    const start = () => startApiServer({ etcdServers: s.etcd.endpoints, etcdPrefix: prefix, securePort: null, insecurePort: 0, logger: silentLogger, controllers: false });
    const [a, b] = await Promise.all([start(), start()]);
    try {
      const list = async (server: RunningServer) => ((await (await fetch(`${server.insecureUrl!}${APISERVICES}`)).json()) as { items: ApiService[] }).items;
      const ready = async (server: RunningServer) => (await fetch(`${server.insecureUrl!}/readyz`)).status === 200;
      await eventuallyValue('both ready', async () => ((await ready(a)) && (await ready(b)) ? true : undefined));
      const items = await list(a);
      assert.deepEqual(items.map((i) => i.metadata.name), Object.keys(KUBE_LOCAL).sort());
      // Created once, Available within the create (as kube's, no status entry of its own): the second replica found nothing to do.
      for (const i of items) assert.deepEqual(i.metadata.managedFields?.map((f) => f.subresource ?? ''), [''], i.metadata.name);
      const first = items.map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.deepEqual((await list(b)).map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`), first);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  void it('a second replica (and a restart) sets an onstart spec back once, recreates what is missing, leaves unlabelled ones alone', async () => {
    const patch = (name: string, body: Json) => s.request({ cert: s.admin }, 'PATCH', `${APISERVICES}/${name}`, { body, headers: { 'content-type': 'application/merge-patch+json' } });
    // Unlabelled: the autoregister controller keeps its hands off.
    assert.equal((await patch('v1.policy', { metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': null } }, spec: { versionPriority: 3 } })).status, 200);
    const replica: RunningServer = await startApiServer({
      etcdServers: s.etcd.endpoints,
      etcdPrefix,
      securePort: null,
      insecurePort: 0,
      logger: silentLogger,
    });
    try {
      await eventuallyValue('v1.node.k8s.io recreated', async () => ((await names()).includes('v1.node.k8s.io') ? true : undefined));
      await eventuallyValue('v1.scheduling.k8s.io set back', async () => ((await get('v1.scheduling.k8s.io')).spec['groupPriorityMinimum'] === 16600 ? true : undefined));
      assert.equal((await get('v1.policy')).spec['versionPriority'], 3);
      // Both replicas settled: nothing is written any more.
      const rv = async () => ((await s.request({ cert: s.admin }, 'GET', APISERVICES)).json['items'] as ApiService[]).map((a) => `${a.metadata.name}@${a.metadata.resourceVersion}`);
      const first = await rv();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.deepEqual(await rv(), first);
    } finally {
      await replica.close();
    }
  });
});
