/**
 * `--authorization-mode=Node,RBAC` with the NodeRestriction admission plugin, as kubeadm
 * runs kube-apiserver: requests with a node's client certificate (CN=system:node:n1,
 * O=system:nodes) reach what pods bound to n1 reference and nothing else, and write only
 * n1's own objects. Statuses and messages are those kube-apiserver 1.32 answers to the same
 * requests (checked side by side against the real binary).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pem } from './testing/client-certs.js';
import { writeServiceAccountKeys } from './testing/service-account-keys.js';
import { startSecureServer, type SecureResponse, type SecureServer } from './testing/secure-server.js';

const NS = '/api/v1/namespaces/t';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const forbiddenBy = (what: string, verb: string, scope: string, reason: string) =>
  `${what} is forbidden: User "system:node:n1" cannot ${verb} ${scope}${reason === '' ? '' : `: ${reason}`}`;
const NO_RELATION = "no relationship found between node 'n1' and this object";

const pod = (name: string, node: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { nodeName: node, automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox' }], ...extra },
});

void describe('Node authorization and NodeRestriction', () => {
  let s: SecureServer;
  let n1: Pem;
  let unnamed: Pem;
  let n1Uid = '';
  let p1Uid = '';
  const as = (cert: Pem, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<SecureResponse> =>
    s.request({ cert }, method, path, { ...(body !== undefined ? { body } : {}), ...(headers !== undefined ? { headers } : {}) });
  const admin = (method: string, path: string, body?: unknown) => s.request({ cert: s.admin }, method, path, body === undefined ? {} : { body });
  const expectStatus = (r: SecureResponse, status: number, message?: string) => {
    assert.equal(r.status, status, r.text);
    if (message !== undefined) assert.equal(r.json['message'], message);
  };

  before(async () => {
    const keys = writeServiceAccountKeys();
    s = await startSecureServer({
      authorizationModes: ['Node', 'RBAC'],
      admissionPlugins: ['NamespaceLifecycle', 'ServiceAccount', 'NodeRestriction'],
      serviceAccountTokens: { issuers: ['https://kubernetes.default.svc'], keyFiles: [keys.keyFile], signingKeyFile: keys.signingKeyFile },
    });
    n1 = s.ca.client('system:node:n1', ['system:nodes']);
    unnamed = s.ca.client('system:node:', ['system:nodes']);
    expectStatus(await admin('POST', '/api/v1/namespaces', { metadata: { name: 't' } }), 201);
    const node = await admin('POST', '/api/v1/nodes', { metadata: { name: 'n1' } });
    n1Uid = String((node.json['metadata'] as { uid: string }).uid);
    expectStatus(await admin('POST', '/api/v1/nodes', { metadata: { name: 'n2' } }), 201);
    for (const name of ['s1', 's2', 's3']) expectStatus(await admin('POST', `${NS}/secrets`, { metadata: { name } }), 201);
    for (const name of ['c1', 'c2']) expectStatus(await admin('POST', `${NS}/configmaps`, { metadata: { name } }), 201);
    for (const name of ['sa1', 'sa2']) expectStatus(await admin('POST', `${NS}/serviceaccounts`, { metadata: { name } }), 201);
    expectStatus(await admin('POST', `${NS}/persistentvolumeclaims`, { metadata: { name: 'claim1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }), 201);
    expectStatus(await admin('POST', '/api/v1/persistentvolumes', {
      metadata: { name: 'pv1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], claimRef: { namespace: 't', name: 'claim1' }, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 's3', namespace: 't' } } },
    }), 201);
    const p1 = await admin('POST', `${NS}/pods`, pod('p1', 'n1', {
      serviceAccountName: 'sa1',
      volumes: [{ name: 'v', secret: { secretName: 's1' } }, { name: 'w', persistentVolumeClaim: { claimName: 'claim1' } }],
      containers: [{ name: 'c', image: 'busybox', envFrom: [{ configMapRef: { name: 'c1' } }] }],
    }));
    expectStatus(p1, 201);
    p1Uid = String((p1.json['metadata'] as { uid: string }).uid);
    expectStatus(await admin('POST', `${NS}/pods`, pod('p2', 'n2', { serviceAccountName: 'sa2', volumes: [{ name: 'v', secret: { secretName: 's2' } }] })), 201);
    // The graph follows the watch caches: wait until the last pod is seen.
    for (let i = 0; i < 100 && (await as(n1, 'GET', `${NS}/pods/p1`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(async () => {
    await s.close();
  });

  void it('reads only what the pods bound to the node reference', async () => {
    expectStatus(await as(n1, 'GET', `${NS}/secrets/s1`), 200);
    expectStatus(await as(n1, 'GET', `${NS}/secrets/s3`), 200); // through pvc claim1 → pv1's CSI secret
    expectStatus(await as(n1, 'GET', `${NS}/configmaps/c1`), 200);
    expectStatus(await as(n1, 'GET', `${NS}/persistentvolumeclaims/claim1`), 200);
    expectStatus(await as(n1, 'GET', '/api/v1/persistentvolumes/pv1'), 200);
    expectStatus(await as(n1, 'GET', `${NS}/secrets?fieldSelector=metadata.name%3Ds1`), 200);
    expectStatus(await as(n1, 'GET', `${NS}/secrets/s2`), 403, forbiddenBy('secrets "s2"', 'get', 'resource "secrets" in API group "" in the namespace "t"', NO_RELATION));
    expectStatus(await as(n1, 'GET', `${NS}/configmaps/c2`), 403);
    expectStatus(await as(n1, 'GET', `${NS}/secrets`), 403, forbiddenBy('secrets', 'list', 'resource "secrets" in API group "" in the namespace "t"', 'No Object name found'));
    expectStatus(await as(n1, 'PUT', `${NS}/secrets/s1`, { metadata: { name: 's1' } }), 403, `secrets "s1" is forbidden: User "system:node:n1" cannot update resource "secrets" in API group "" in the namespace "t": can only read resources of this type`);
    expectStatus(await as(n1, 'GET', `${NS}/persistentvolumeclaims`), 403, forbiddenBy('persistentvolumeclaims', 'list', 'resource "persistentvolumeclaims" in API group "" in the namespace "t"', 'can only get individual resources of this type'));
  });

  void it('lists pods only with its spec.nodeName field selector, and reads only its own Node', async () => {
    expectStatus(await as(n1, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1'), 200);
    expectStatus(await as(n1, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3D%3Dn1'), 200);
    expectStatus(await as(n1, 'GET', `${NS}/pods`), 403, forbiddenBy('pods', 'list', 'resource "pods" in API group "" in the namespace "t"', 'can only list/watch pods with spec.nodeName field selector'));
    expectStatus(await as(n1, 'GET', `${NS}/pods/p2`), 403);
    expectStatus(await as(n1, 'GET', '/api/v1/nodes/n1'), 200);
    expectStatus(await as(n1, 'GET', '/api/v1/nodes'), 403, forbiddenBy('nodes', 'list', 'resource "nodes" in API group "" at the cluster scope', "node 'n1' cannot read all nodes, only its own Node object"));
    expectStatus(await as(n1, 'GET', '/api/v1/nodes/n2'), 403, `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`);
    expectStatus(await as(unnamed, 'GET', `${NS}/secrets/s1`), 403, `secrets "s1" is forbidden: User "system:node:" cannot get resource "secrets" in API group "" in the namespace "t": unknown node for user "system:node:"`);
  });

  void it('answers SubjectAccessReviews for nodes, field selectors included', async () => {
    const review = async (attributes: Record<string, unknown>) => {
      const r = await admin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'system:node:n1', groups: ['system:nodes'], resourceAttributes: attributes } });
      return r.json['status'];
    };
    assert.deepEqual(await review({ namespace: 't', verb: 'get', resource: 'secrets', name: 's2' }), { allowed: false, reason: NO_RELATION });
    assert.deepEqual(await review({ namespace: 't', verb: 'get', resource: 'secrets', name: 's1' }), { allowed: true });
    assert.deepEqual(await review({ verb: 'list', resource: 'pods', fieldSelector: { rawSelector: 'spec.nodeName=n1' } }), { allowed: true });
    assert.deepEqual(await review({ verb: 'list', resource: 'pods', fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] } }), { allowed: true });
    assert.deepEqual(await review({ verb: 'list', resource: 'pods' }), { allowed: false, reason: 'can only list/watch pods with spec.nodeName field selector' });
  });

  void it('lets a node change only its own Node, and not its taints or restricted labels', async () => {
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n2', { metadata: { labels: { x: 'y' } } }, MERGE), 403, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n1', { metadata: { labels: { x: 'y', 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/foo': 'z' } } }, MERGE), 200);
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n1', { metadata: { labels: { 'node-restriction.kubernetes.io/a': 'b' } } }, MERGE), 403, 'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/a');
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n1', { metadata: { labels: { 'foo.kubernetes.io/b': 'c', 'example.k8s.io/a': 'b' } } }, MERGE), 403, 'nodes "n1" is forbidden: is not allowed to modify labels: example.k8s.io/a, foo.kubernetes.io/b');
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n1', { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }] } }, MERGE), 403, 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n1/status', { status: { phase: 'Running' } }, MERGE), 200);
    expectStatus(await as(n1, 'PATCH', '/api/v1/nodes/n2/status', { status: { phase: 'Running' } }, MERGE), 403, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    expectStatus(await as(n1, 'POST', '/api/v1/nodes', { metadata: { name: 'n3' } }), 403, 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
  });

  void it('creates only mirror pods of its own, and writes only its own pods', async () => {
    const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1Uid, controller: true };
    const mirror = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations: { 'kubernetes.io/config.mirror': 'x' }, ownerReferences: [owner], ...metadata },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }], ...spec },
    });
    expectStatus(await as(n1, 'POST', `${NS}/pods`, pod('q', 'n1')), 403, 'pods "q" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    expectStatus(await as(n1, 'POST', `${NS}/pods`, mirror('m1', { nodeName: 'n2' })), 403, 'pods "m1" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
    expectStatus(await as(n1, 'POST', `${NS}/pods`, mirror('m2', {}, { ownerReferences: [{ ...owner, uid: 'x' }] })), 403, `pods "m2" is forbidden: node n1 UID mismatch: expected x got ${n1Uid}`);
    expectStatus(await as(n1, 'POST', `${NS}/pods`, mirror('m3', { volumes: [{ name: 'v', configMap: { name: 'c1' } }] })), 403, 'pods "m3" is forbidden: node "n1" can not create pods that reference configmaps');
    expectStatus(await as(n1, 'POST', `${NS}/pods`, mirror('m4')), 201);
    expectStatus(await as(n1, 'PATCH', `${NS}/pods/p1/status`, { status: { message: 'hi' } }, MERGE), 200);
    expectStatus(await as(n1, 'PATCH', `${NS}/pods/p1/status`, { metadata: { labels: { a: 'b' } } }, MERGE), 403, 'pods "p1" is forbidden: node "n1" cannot update labels through pod status');
    expectStatus(await as(n1, 'PATCH', `${NS}/pods/p2/status`, { status: { message: 'hi' } }, MERGE), 403, 'pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    expectStatus(await as(n1, 'POST', `${NS}/pods/p2/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p2' } }), 403, 'pods "p2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself');
    expectStatus(await as(n1, 'POST', `${NS}/pods/zz/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'zz' } }), 404, 'pod "zz" not found');
    expectStatus(await as(n1, 'DELETE', `${NS}/pods/p2`), 403, 'pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    expectStatus(await as(n1, 'DELETE', `${NS}/pods/zz`), 404, 'pods "zz" not found');
  });

  void it('touches only its own Lease and CSINode, and asks tokens only for its pods', async () => {
    const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name } });
    expectStatus(await as(n1, 'POST', leases, lease('n1')), 201);
    expectStatus(await as(n1, 'POST', leases, lease('n2')), 403, 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
    expectStatus(await as(n1, 'GET', `${leases}/n2`), 403);
    expectStatus(await as(n1, 'POST', '/apis/storage.k8s.io/v1/csinodes', { metadata: { name: 'n2' }, spec: { drivers: [] } }), 403, 'csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node');
    const tokenRequest = (ref?: Record<string, unknown>) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { ...(ref !== undefined ? { boundObjectRef: ref } : {}) } });
    expectStatus(await as(n1, 'POST', `${NS}/serviceaccounts/sa1/token`, tokenRequest()), 403, 'serviceaccounts "sa1" is forbidden: node requested token not bound to a pod');
    expectStatus(await as(n1, 'POST', `${NS}/serviceaccounts/sa1/token`, tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p1' })), 403, 'serviceaccounts "sa1" is forbidden: node requested token with a pod binding without a uid');
    expectStatus(await as(n1, 'POST', `${NS}/serviceaccounts/sa1/token`, tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: p1Uid })), 201);
    expectStatus(await as(n1, 'POST', `${NS}/serviceaccounts/sa2/token`, tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p2' })), 403, forbiddenBy('serviceaccounts "sa2"', 'create', 'resource "serviceaccounts/token" in API group "" in the namespace "t"', NO_RELATION));
  });

  void it('forgets what a deleted pod referenced', async () => {
    expectStatus(await admin('DELETE', `${NS}/pods/p1?gracePeriodSeconds=0`), 200);
    for (let i = 0; i < 100 && (await as(n1, 'GET', `${NS}/secrets/s1`)).status === 200; i++) await new Promise((r) => setTimeout(r, 50));
    expectStatus(await as(n1, 'GET', `${NS}/secrets/s1`), 403);
    expectStatus(await as(n1, 'GET', `${NS}/secrets/s3`), 403);
  });
});
