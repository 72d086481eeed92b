/**
 * kube's default storage, networking and certificates admission plugins against a real etcd,
 * with the controllers that go with them: StorageObjectInUseProtection and the
 * persistentvolumeclaim/persistentvolume protection controllers, DefaultStorageClass,
 * PersistentVolumeClaimResize, DefaultIngressClass, CertificateSubjectRestriction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, startTestServer, type TestServer } from './testing/fixture.js';

type Json = Record<string, unknown>;
const NS = '/api/v1/namespaces/default';
const claim = (name: string, extra: Json = {}) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra } });
const spec = (obj: Json) => obj['spec'] as Json;
// PEM CSRs (base64, as spec.request holds them): O=system:masters,O=other,CN=evil and O=devs,CN=alice.
const MASTERS_CSR = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIek1JR2FBZ0VBTURneEZ6QVZCZ05WQkFvTURuTjVjM1JsYlRwdFlYTjBaWEp6TVE0d0RBWURWUVFLREFWdgpkR2hsY2pFTk1Bc0dBMVVFQXd3RVpYWnBiREJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCRXhWCk1mRzF1QmdWS20weTJyajRrWnhiSHpzTjFvWDZOZEZlM2JuNDJrR1lTWTJDSVlMRTNhUmczT0tKMnpEWTRqNnIKTXYrYjZuNXAzVmJlRzFDT3RQQ2dBREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUVBMERBbWdwL09Dc3piR3l3Vgo0OVA3VWVsTmw2OEp4Q3FiV0lpL1ljVEFPVThDSUI4NEdDeVB2aE12TDU2M0dTVVRkRU53RDEwQTRQWXNBSlo5CmRxV1NqdzhyCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';
const ALICE_CSR = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0JBZ0VBTUI4eERUQUxCZ05WQkFvTUJHUmxkbk14RGpBTUJnTlZCQU1NQldGc2FXTmxNRmt3RXdZSApLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFNk5RUys3a1hNS2tZc1BHSmVFVnZ5bFh2UjZqM1RacWtRc0JXCkJpL01YYWc3THJOeXoxOGdWSVlUR3R3RFkzQ1R1NDl2bFVzRFhEeDFnTjJuelRxdFRhQUFNQW9HQ0NxR1NNNDkKQkFNQ0EwZ0FNRVVDSURZTWxobWVLdnZIcktXMkxyZGJhUkVUQXF5RFdGZEQyOE83MEFzUHdHdkZBaUVBNktnQgptb2V5aE40ZDQrT3R6TG9rUVhzMk9WRCtYWmV0R1ZTNmxrMWpiNUE9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';

void describe('storage, networking and certificates admission (kube 1.32 defaults)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await eventually('the default service account', async () => (await t.request('GET', `${NS}/serviceaccounts/default`)).status === 200);
  });
  after(async () => {
    await t.close();
  });

  void it('protects a claim while a scheduled pod uses it, and a volume until it is deleted', async () => {
    const created = await t.request('POST', `${NS}/persistentvolumeclaims`, { body: claim('data') });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((created.json['metadata'] as Json)['finalizers'], ['kubernetes.io/pvc-protection']);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'user' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] } };
    assert.equal((await t.request('POST', `${NS}/pods`, { body: pod })).status, 201);
    const deleted = await t.request('DELETE', `${NS}/persistentvolumeclaims/data`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.ok((deleted.json['metadata'] as Json)['deletionTimestamp']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await t.request('GET', `${NS}/persistentvolumeclaims/data`)).status, 200, 'in use: kept');
    assert.equal((await t.request('DELETE', `${NS}/pods/user?gracePeriodSeconds=0`)).status, 200);
    await eventually('the claim is gone once no pod uses it', async () => (await t.request('GET', `${NS}/persistentvolumeclaims/data`)).status === 404);

    const volume = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv1' } } };
    const pv = await t.request('POST', '/api/v1/persistentvolumes', { body: volume });
    assert.deepEqual((pv.json['metadata'] as Json)['finalizers'], ['kubernetes.io/pv-protection']);
    assert.equal((await t.request('DELETE', '/api/v1/persistentvolumes/pv1')).status, 200);
    await eventually('an unbound volume is gone', async () => (await t.request('GET', '/api/v1/persistentvolumes/pv1')).status === 404);
  });

  void it('a namespace with claims is deleted: the claims\' finalizers do not hold it', async () => {
    assert.equal((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'storage' } } })).status, 201);
    for (const name of ['a', 'b']) assert.equal((await t.request('POST', '/api/v1/namespaces/storage/persistentvolumeclaims', { body: claim(name) })).status, 201);
    assert.equal((await t.request('DELETE', '/api/v1/namespaces/storage')).status, 200);
    await eventually('the namespace is gone', async () => (await t.request('GET', '/api/v1/namespaces/storage')).status === 404);
  });

  void it('DefaultStorageClass and PersistentVolumeClaimResize', async () => {
    const sc = (name: string, extra: Json) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, ...extra }, provisioner: 'example.com/p' });
    assert.equal((await t.request('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: sc('plain', {}) })).status, 201);
    assert.equal((await t.request('POST', '/apis/storage.k8s.io/v1/storageclasses', { body: sc('fast', { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }) })).status, 201);
    await eventually('the default class is seen', async () => {
      const probe = await t.request('POST', `${NS}/persistentvolumeclaims?dryRun=All`, { body: claim('probe') });
      return spec(probe.json)['storageClassName'] === 'fast';
    });
    const explicit = await t.request('POST', `${NS}/persistentvolumeclaims`, { body: claim('none', { storageClassName: '' }) });
    assert.equal(spec(explicit.json)['storageClassName'], '');
    const defaulted = await t.request('POST', `${NS}/persistentvolumeclaims`, { body: claim('grow') });
    assert.equal(spec(defaulted.json)['storageClassName'], 'fast');

    const grow = () => t.request('PATCH', `${NS}/persistentvolumeclaims/grow`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { resources: { requests: { storage: '2Gi' } } } } });
    // (Growing an unbound claim is refused by kube's validation before admission: 422.)
    const bound = await t.request('PATCH', `${NS}/persistentvolumeclaims/grow/status`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { status: { phase: 'Bound' } } });
    assert.equal(bound.status, 200, bound.text);
    const refused = await grow();
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json['message'], 'persistentvolumeclaims "grow" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    assert.equal((await t.request('PATCH', '/apis/storage.k8s.io/v1/storageclasses/fast', { headers: { 'content-type': 'application/merge-patch+json' }, body: { allowVolumeExpansion: true } })).status, 200);
    await eventually('the class allows expansion', async () => (await grow()).status === 200);
  });

  void it('DefaultIngressClass', async () => {
    const ic = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'example.com/ingress' } };
    assert.equal((await t.request('POST', '/apis/networking.k8s.io/v1/ingressclasses', { body: ic })).status, 201);
    const ingress = (name: string, annotations: Json = {}) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, annotations }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } });
    await eventually('the default ingress class is used', async () => {
      const created = await t.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/ingresses?dryRun=All', { body: ingress('probe') });
      return spec(created.json)['ingressClassName'] === 'nginx';
    });
    const annotated = await t.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/ingresses', { body: ingress('legacy', { 'kubernetes.io/ingress.class': 'other' }) });
    assert.equal(annotated.status, 201, annotated.text);
    assert.equal(spec(annotated.json)['ingressClassName'], undefined);
  });

  void it('CertificateSubjectRestriction refuses system:masters for the kube-apiserver-client signer', async () => {
    const csr = (name: string, request: string, signerName: string) => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName, usages: ['client auth'] } });
    const refused = await t.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', { body: csr('evil', MASTERS_CSR, 'kubernetes.io/kube-apiserver-client') });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json['message'], 'certificatesigningrequests.certificates.k8s.io "evil" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    assert.equal((await t.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', { body: csr('other-signer', MASTERS_CSR, 'example.com/signer') })).status, 201);
    assert.equal((await t.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', { body: csr('alice', ALICE_CSR, 'kubernetes.io/kube-apiserver-client') })).status, 201);
  });
});
