/**
 * `--controllers` switches off every controller of kapi's that kube-controller-manager also
 * runs, so the two never fight: the `kapi-apiserver` binary started with all of them off does
 * none of their work (a deleted namespace stays Terminating with its content, an orphan whose
 * owner is gone stays, no default ServiceAccount, no kube-root-ca.crt, no legacy token, no
 * aggregated ClusterRole, no policy status, deleted claims and volumes kept by their protection
 * finalizers, no quota usage, no leader Lease), while kube-apiserver's own work still happens
 * (the `kubernetes` Service, the flowcontrol configuration). The same scenario against a
 * binary with the default (`*`) shows each of them done.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { eventually } from './testing/fixture.js';
import { startKapiServer, type KapiServer } from './testing/kapi-server.js';
import { writeServiceAccountKeys } from './testing/service-account-keys.js';

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };

const OVERLAPPING = [
  'namespace-controller',
  'garbage-collector-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
  'validatingadmissionpolicy-status-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'resourcequota-controller',
];
/** What a kapi beside a real kube-controller-manager is started with (README: Running with kube-controller-manager). */
const ALL_OFF = `--controllers=${OVERLAPPING.map((name) => `-${name}`).join(',')}`;
/** The least time the switched-off server is watched for work (the namespace resync is 1 s). */
const QUIET_MS = 4000;

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Obj }> {
  const res = await fetch(base + path, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: (text !== '' ? JSON.parse(text) : {}) as Obj };
}

async function created(base: string, path: string, body: unknown): Promise<Obj> {
  const res = await call(base, 'POST', path, body);
  assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.json)}`);
  return res.json;
}

const exists = async (base: string, path: string) => (await call(base, 'GET', path)).status === 200;

/** The work each overlapping controller would do, started at once (namespace `ns`). */
async function provoke(base: string, ns: string): Promise<void> {
  await created(base, '/api/v1/namespaces', { metadata: { name: ns } });
  // garbage-collector-controller: a dependent whose owner is deleted.
  const owner = await created(base, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'owner' } });
  await created(base, `/api/v1/namespaces/${ns}/configmaps`, {
    metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!['uid'] }] },
  });
  assert.equal((await call(base, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/owner`)).status, 200);
  // serviceaccount-token-controller: a token Secret of an existing service account.
  await created(base, `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'robot' } });
  await created(base, `/api/v1/namespaces/${ns}/secrets`, {
    metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } },
    type: 'kubernetes.io/service-account-token',
  });
  // clusterrole-aggregation-controller: an aggregated ClusterRole and one it selects.
  await created(base, '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: `${ns}-aggregate` },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${ns}/aggregate`]: 'true' } }] },
  });
  await created(base, '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: `${ns}-part`, labels: { [`${ns}/aggregate`]: 'true' } },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  // validatingadmissionpolicy-status-controller: a policy to type-check.
  await created(base, '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    metadata: { name: `${ns}-policy` },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: 'true' }] },
  });
  // persistentvolumeclaim-protection / persistentvolume-protection: an unused claim and an unbound volume, deleted.
  await created(base, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  assert.equal((await call(base, 'DELETE', `/api/v1/namespaces/${ns}/persistentvolumeclaims/claim`)).status, 200);
  await created(base, '/api/v1/persistentvolumes', { metadata: { name: `${ns}-volume` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/v' } } });
  assert.equal((await call(base, 'DELETE', `/api/v1/persistentvolumes/${ns}-volume`)).status, 200);
  // resourcequota-controller: a quota to count.
  await created(base, `/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: 'quota' }, spec: { hard: { 'count/configmaps': '10' } } });
  // namespace-controller: a namespace with content, deleted.
  await created(base, '/api/v1/namespaces', { metadata: { name: `${ns}-doomed` } });
  await created(base, `/api/v1/namespaces/${ns}-doomed/configmaps`, { metadata: { name: 'content' } });
  assert.equal((await call(base, 'DELETE', `/api/v1/namespaces/${ns}-doomed`)).status, 200);
}

const tokenOf = async (base: string, ns: string) => {
  const secret = await call(base, 'GET', `/api/v1/namespaces/${ns}/secrets/robot-token`);
  return (secret.json['data'] as Record<string, string> | undefined)?.['token'];
};
const policyStatus = async (base: string, ns: string) => {
  const policy = await call(base, 'GET', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${ns}-policy`);
  return policy.json['status'];
};
const aggregatedRules = async (base: string, ns: string) => {
  const role = await call(base, 'GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-aggregate`);
  return (role.json['rules'] as unknown[] | null | undefined) ?? [];
};

void describe('--controllers: kapi beside a real kube-controller-manager', () => {
  let etcd: TestEtcd;
  const keys = writeServiceAccountKeys();
  const servers: KapiServer[] = [];
  // How long the default server took to do all of it: the switched-off one is given twice as long.
  let workMs = 0;
  const start = async (extraArgs: string[]): Promise<string> => {
    const server = await startKapiServer({
      etcdServers: etcd.endpoints,
      etcdPrefix: uniquePrefix('kcm-overlap'),
      insecure: true,
      startTimeoutMs: 120_000,
      extraArgs: [
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc',
        `--service-account-key-file=${keys.keyFile}`,
        `--service-account-signing-key-file=${keys.signingKeyFile}`,
        ...extraArgs,
      ],
    });
    servers.push(server);
    return server.insecureUrl!;
  };

  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await etcd.stop();
  });

  void it('by default (`*`) kapi does the controllers\' work', async () => {
    const base = await start([]);
    await provoke(base, 'on');
    const provoked = Date.now();
    await eventually('the default ServiceAccount', () => exists(base, '/api/v1/namespaces/on/serviceaccounts/default'));
    await eventually('kube-root-ca.crt', () => exists(base, '/api/v1/namespaces/on/configmaps/kube-root-ca.crt'));
    await eventually('the orphan collected', async () => !(await exists(base, '/api/v1/namespaces/on/configmaps/dependent')));
    await eventually('the legacy token', async () => (await tokenOf(base, 'on')) !== undefined);
    await eventually('the aggregated rules', async () => (await aggregatedRules(base, 'on')).length === 1);
    await eventually('the deleted namespace gone', async () => (await call(base, 'GET', '/api/v1/namespaces/on-doomed')).status === 404);
    await eventually('the policy\'s type-checking status', async () => JSON.stringify(await policyStatus(base, 'on')) === JSON.stringify({ observedGeneration: 1, typeChecking: {} }));
    await eventually('the deleted claim released', async () => !(await exists(base, '/api/v1/namespaces/on/persistentvolumeclaims/claim')));
    await eventually('the deleted volume released', async () => !(await exists(base, '/api/v1/persistentvolumes/on-volume')));
    await eventually('the quota counted', async () => ((await call(base, 'GET', '/api/v1/namespaces/on/resourcequotas/quota')).json['status'] as { used?: Record<string, string> } | undefined)?.used?.['count/configmaps'] !== undefined);
    workMs = Date.now() - provoked;
    assert.ok(await exists(base, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager'), 'the leader Lease');
  });

  void it(`${ALL_OFF} leaves all of it undone; kube-apiserver's own work still runs`, async () => {
    const base = await start([ALL_OFF]);
    await provoke(base, 'off');
    await new Promise((resolve) => setTimeout(resolve, Math.max(QUIET_MS, 2 * workMs)));
    assert.equal(await exists(base, '/api/v1/namespaces/off/serviceaccounts/default'), false, 'no default ServiceAccount');
    assert.equal(await exists(base, '/api/v1/namespaces/off/configmaps/kube-root-ca.crt'), false, 'no kube-root-ca.crt');
    assert.ok(await exists(base, '/api/v1/namespaces/off/configmaps/dependent'), 'the orphan is not collected');
    assert.equal(await tokenOf(base, 'off'), undefined, 'no legacy token');
    assert.deepEqual(await aggregatedRules(base, 'off'), [], 'no aggregation');
    assert.deepEqual(await policyStatus(base, 'off'), {}, 'no policy status (the empty status kube-apiserver answers without its controller manager)');
    const doomed = await call(base, 'GET', '/api/v1/namespaces/off-doomed');
    assert.equal(doomed.status, 200);
    assert.equal((doomed.json['status'] as Record<string, unknown>)['phase'], 'Terminating');
    assert.ok(await exists(base, '/api/v1/namespaces/off-doomed/configmaps/content'), 'the terminating namespace keeps its content');
    assert.ok(await exists(base, '/api/v1/namespaces/off/persistentvolumeclaims/claim'), 'the deleted claim keeps its protection finalizer');
    assert.ok(await exists(base, '/api/v1/persistentvolumes/off-volume'), 'the deleted volume keeps its protection finalizer');
    assert.deepEqual((await call(base, 'GET', '/api/v1/namespaces/off/resourcequotas/quota')).json['status'], {}, 'the quota is not counted');
    assert.equal(await exists(base, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager'), false, 'no leader election without a leader-elected controller');
    // kube-apiserver's post-start work is not kube-controller-manager's: it runs whatever --controllers says.
    await eventually('the kubernetes Service', () => exists(base, '/api/v1/namespaces/default/services/kubernetes'));
    assert.ok(await exists(base, '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt'), 'the flowcontrol bootstrap configuration');
    assert.ok(await exists(base, '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin'), 'the bootstrap RBAC policy');
  });
});
