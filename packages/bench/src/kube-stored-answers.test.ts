// kapi's protobuf GET answers made from etcd's bytes (machinery's stored-answer.ts) against
// kube-apiserver's on the same etcd data: kube-apiserver writes objects of built-in kinds, then
// kapi reads the same keys, and both answer a protobuf GET with the same bytes. Skipped without
// the kube-apiserver binary ($KAPI_KUBE_APISERVER or ~/.cache/kapi-ref/bin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { request } from 'node:https';
import { decodeObject, encodeObjectGo } from '@kapi/machinery';
import { startEtcd } from '@kapi/storage/testing';
import { kubeApiserverBinary, startComparedKapi, startKubeApiserver, type ComparedServer } from './kube-server.js';

const PB = 'application/vnd.kubernetes.protobuf';

/** One HTTPS request to a server under test (self-signed certificate, its bearer token). */
function call(server: ComparedServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, rejectUnauthorized: false, headers: { authorization: `Bearer ${server.token}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ns = '/api/v1/namespaces/default';
const OBJECTS: readonly { path: string; body: Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> } } }[] = [
  { path: `${ns}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cmp-cm', labels: { a: 'b' } }, data: { k: 'v', empty: '', 'k.2': 'é' }, binaryData: { bin: 'AP8=' } } },
  { path: `${ns}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cmp-secret' }, type: 'Opaque', stringData: { password: 'p' } } },
  { path: `${ns}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'cmp-sa' }, automountServiceAccountToken: false } },
  { path: `${ns}/services`, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'cmp-svc' }, spec: { selector: { app: 'x' }, ports: [{ port: 80, targetPort: 8080 }] } } },
  { path: `${ns}/pods`, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'cmp-pod', labels: { app: 'x' } }, spec: { serviceAccountName: 'cmp-sa', containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m', memory: '64Mi' } }, ports: [{ containerPort: 80 }] }] } } },
  {
    path: '/apis/apps/v1/namespaces/default/deployments',
    body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'cmp-deploy' }, spec: { replicas: 2, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cmp-role' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } },
  { path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cmp-ns', labels: { team: 'a' } } } },
  { path: '/apis/scheduling.k8s.io/v1/priorityclasses', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'cmp-priority' }, value: 1000, description: 'd' } },
  { path: '/apis/coordination.k8s.io/v1/namespaces/default/leases', body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'cmp-lease' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } } },
];

void test("kapi answers a protobuf GET of objects kube-apiserver wrote with kube-apiserver's bytes", { skip: existsSync(kubeApiserverBinary()) ? false : `no kube-apiserver at ${kubeApiserverBinary()}`, timeout: 300_000 }, async () => {
  const etcd = await startEtcd();
  try {
    const kubeAnswers = new Map<string, Buffer>();
    const kube = await startKubeApiserver({ binary: kubeApiserverBinary(), etcdServers: etcd.endpoints });
    try {
      for (const { path, body } of OBJECTS) {
        const created = await call(kube, 'POST', path, { 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify(body));
        assert.equal(created.status, 201, `${body.kind}: ${created.body.toString()}`);
        const answer = await call(kube, 'GET', `${path}/${body.metadata.name}`, { accept: PB });
        assert.equal(answer.status, 200, body.kind);
        kubeAnswers.set(path, answer.body);
      }
    } finally {
      await kube.stop();
    }
    const kapi = await startComparedKapi({ etcdServers: etcd.endpoints, workers: 1 });
    try {
      for (const { path, body } of OBJECTS) {
        const type = { apiVersion: body.apiVersion, kind: body.kind };
        const expected = kubeAnswers.get(path)!;
        // Twice: a quorum read, then again once the watch cache certainly holds the object.
        for (const round of [1, 2]) {
          const answer = await call(kapi, 'GET', `${path}/${body.metadata.name}`, { accept: PB });
          assert.equal(answer.status, 200, body.kind);
          const object = decodeObject(answer.body, type).object;
          assert.deepEqual(object, decodeObject(expected, type).object, `${body.kind} (${round}): the same object`);
          assert.deepEqual(answer.body, expected, `${body.kind} (${round}): kube-apiserver's bytes`);
          assert.deepEqual(answer.body, encodeObjectGo(object), `${body.kind} (${round}): kapi's Go-form encoding`);
        }
      }
    } finally {
      await kapi.stop();
    }
  } finally {
    await etcd.stop();
  }
});
