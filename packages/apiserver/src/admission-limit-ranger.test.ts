/**
 * kube's LimitRanger admission plugin as kapi runs it, against a real etcd: container
 * defaults (and the kubernetes.io/limit-ranger annotation), Container, Pod and
 * PersistentVolumeClaim min/max/ratio checks, with kube-apiserver 1.32.13's texts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './testing/fixture.js';

type Json = Record<string, unknown>;
const pod = (name: string, spec: Json) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const claim = (name: string, storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
const LIMIT_RANGE = {
  apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' },
  spec: {
    limits: [
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' }, default: { memory: '512Mi' }, maxLimitRequestRatio: { cpu: '4' } },
      { type: 'Pod', max: { memory: '1536Mi' } },
      { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } },
    ],
  },
};

void describe('LimitRanger admission', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lr' } } })).status, 201);
    for (let i = 0; i < 200 && (await t.request('GET', '/api/v1/namespaces/lr/serviceaccounts/default')).status !== 200; i++) await new Promise((r) => setTimeout(r, 25));
    const created = await t.request('POST', '/api/v1/namespaces/lr/limitranges', { body: LIMIT_RANGE });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await t.close();
  });

  void it('defaults containers from the Container limits and says so in an annotation', async () => {
    const created = await t.request('POST', '/api/v1/namespaces/lr/pods', {
      body: pod('p5', {
        containers: [{ name: 'c', image: 'b', resources: { requests: { cpu: '1' } } }, { name: 'd', image: 'b', resources: { limits: { cpu: '1', memory: '100Mi' } } }],
        initContainers: [{ name: 'i', image: 'b', resources: { requests: { cpu: '1', memory: '10Mi' }, limits: { cpu: '2' } } }],
      }),
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(((created.json['metadata'] as Json)['annotations'] as Json | undefined)?.['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: memory request for container c; cpu, memory limit for container c; memory limit for init container i');
    const spec = created.json['spec'] as { containers: Json[]; initContainers: Json[] };
    assert.deepEqual(spec.containers.map((c) => c['resources']), [
      { limits: { cpu: '2', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
      { limits: { cpu: '1', memory: '100Mi' }, requests: { cpu: '1', memory: '100Mi' } },
    ]);
    assert.deepEqual(spec.initContainers[0]!['resources'], { limits: { cpu: '2', memory: '512Mi' }, requests: { cpu: '1', memory: '10Mi' } });
  });

  void it('refuses pods and claims outside the limits with kube\'s messages', async () => {
    const cases: [string, unknown, string][] = [
      ['pods', pod('p1', { containers: [{ name: 'c', image: 'b' }], initContainers: [{ name: 'i', image: 'b', resources: { requests: { cpu: '200m' } } }] }),
        'pods "p1" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 10.000000'],
      ['pods', pod('p2', { containers: [{ name: 'c', image: 'b', resources: { requests: { cpu: '50m' }, limits: { cpu: '3', memory: '2Gi' } } }] }),
        'pods "p2" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per Container is 2, but limit is 3, maximum memory usage per Container is 1Gi, but limit is 2Gi, cpu max limit to request ratio per Container is 4, but provided ratio is 60.000000, maximum memory usage per Pod is 1536Mi, but limit is 2Gi]'],
      ['pods', pod('p3', { containers: [{ name: 'c', image: 'b', resources: { requests: { cpu: '0.1' }, limits: { cpu: '1' } } }] }),
        'pods "p3" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 10.000000'],
      ['pods', pod('p4', { containers: [{ name: 'a', image: 'b', resources: { limits: { memory: '1Gi' } } }, { name: 'c', image: 'b', resources: { limits: { memory: '1Gi' } } }] }),
        'pods "p4" is forbidden: maximum memory usage per Pod is 1536Mi, but limit is 2Gi'],
      ['persistentvolumeclaims', claim('c1', '500Mi'), 'persistentvolumeclaims "c1" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'],
      ['persistentvolumeclaims', claim('c2', '20Gi'), 'persistentvolumeclaims "c2" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'],
    ];
    for (const [resource, body, message] of cases) {
      const refused = await t.request('POST', `/api/v1/namespaces/lr/${resource}`, { body });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.json['message'], message);
    }
    assert.equal((await t.request('POST', '/api/v1/namespaces/lr/persistentvolumeclaims', { body: claim('ok', '2Gi') })).status, 201);
  });
});
