/**
 * kube 1.32's AllowUnsafeMalformedObjectDeletion gate (issue 26): kube-apiserver v1.32.13 and
 * kapi, both with the gate on, on one etcd holding a value that does not decode. The same
 * requests get the same answers from both, byte for byte (one etcd: the same keys and
 * revisions in the messages): a get's and a delete's corrupt-object error, a list's
 * StorageReadError naming every unreadable key, the 422s of the option, and the unsafe delete
 * itself, which removes the key without decoding it (finalizers skipped).
 *
 * kube-apiserver 1.32.13 runs without admission plugins here: with any plugin that handles
 * deletes (the default chain has several) its unsafe delete dereferences the missing object
 * and the connection is dropped (a panic, fixed in later releases by skipping admission,
 * which is what kapi does). Skipped, with the reason, without the kube-apiserver binary.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { startKapiServer, type KapiServer } from '@kapi/apiserver/testing';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { kubeReferenceBinary, REFERENCE_TOKEN, startKubeReference, type KubeReference } from '../harness/kube-reference.js';
import { RestClient } from '../harness/rest.js';

const binary = kubeReferenceBinary();
const GATE = '--feature-gates=AllowUnsafeMalformedObjectDeletion=true';
const NO_ADMISSION =
  '--disable-admission-plugins=NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,PodSecurity,Priority,DefaultTolerationSeconds,DefaultStorageClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,RuntimeClass,CertificateApproval,CertificateSigning,ClusterTrustBundleAttest,CertificateSubjectRestriction,DefaultIngressClass,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota';
const NS = 'unsafe';
const core = `/api/v1/namespaces/${NS}`;
const UNSAFE = { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

void describe('AllowUnsafeMalformedObjectDeletion: kube-apiserver 1.32 and kapi on one etcd', { skip: binary === undefined ? 'no kube-apiserver binary (set KAPI_KUBE_APISERVER)' : false }, () => {
  let etcd: TestEtcd;
  let etcdClient: Etcd3;
  let kube: KubeReference;
  let kapi: KapiServer;
  let kubeClient: RestClient;
  let kapiClient: RestClient;
  const corrupt = (name: string, value: string) => etcdClient.put(`/registry/configmaps/${NS}/${name}`).value(Buffer.from(value));

  before(async () => {
    etcd = await startEtcd();
    etcdClient = new Etcd3({ hosts: etcd.endpoints });
    kube = await startKubeReference(binary!, { etcd, extraArgs: [GATE, NO_ADMISSION] });
    kapi = await startKapiServer({ etcdServers: etcd.endpoints, insecure: true, extraArgs: [GATE], startTimeoutMs: 90_000 });
    kubeClient = new RestClient(kube.url, { headers: { authorization: `Bearer ${REFERENCE_TOKEN}` } });
    kapiClient = new RestClient(kapi.insecureUrl!);
    await kubeClient.expect(201, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const name of ['healthy', 'broken-a', 'broken-b', 'broken-c']) {
      await kubeClient.expect(201, 'POST', `${core}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, finalizers: ['example.com/keep'] }, data: { a: '1' } });
    }
    await corrupt('broken-a', 'k8s\0garbage');
    // (Not JSON: kapi's JSON parser words its errors differently from Go's encoding/json.)
    await corrupt('broken-b', 'k8s\0\n\x05ab');
    await corrupt('broken-c', 'k8s:enc:aescbc:v1:k1:abcdefghijklmnopqrstuvwxyz0123456789');
  });
  after(async () => {
    kubeClient?.close();
    kapiClient?.close();
    await kapi?.stop();
    await kube?.stop();
    etcdClient?.close();
    await etcd?.stop();
  });

  /** Sends the request to both servers and checks they answer alike; returns kapi's answer. */
  async function same(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const fromKube = await kubeClient.request(method, path, body);
    const fromKapi = await kapiClient.request(method, path, body);
    assert.equal(fromKapi.status, fromKube.status, `${method} ${path}: ${fromKapi.text} vs kube's ${fromKube.text}`);
    assert.deepEqual(fromKapi.body, fromKube.body, `${method} ${path}`);
    return fromKapi;
  }

  void it('reads of an unreadable value answer as kube does with the gate: the corrupt-object error, a list naming every key', async () => {
    const get = await same('GET', `${core}/configmaps/broken-a`);
    assert.equal(get.status, 500);
    assert.match(get.text, /StorageError: corrupt object, Code: 7, Key: \/configmaps\/unsafe\/broken-a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=\d+: proto: illegal wireType 7/);
    await same('GET', `${core}/configmaps/broken-b`);
    const undecryptable = await same('GET', `${core}/configmaps/broken-c`);
    assert.match(undecryptable.text, /data from the storage is not transformable revision=0: /);
    // With a limit and no selector both serve a list from etcd while their caches cannot list
    // (kube 1.32's ResilientWatchCacheInitialization); without one kube's choice depends on
    // whether etcd orders progress notifications (429 when it does, etcd when not), kapi's is 429.
    const list = await same('GET', `${core}/configmaps?limit=500`);
    assert.equal(list.status, 500);
    assert.match(list.text, /"reason":"StorageReadError"/);
    await same('GET', `${core}/configmaps?limit=1`);
    await same('PUT', `${core}/configmaps/broken-a`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'broken-a' }, data: { a: '2' } });
    await same('DELETE', `${core}/configmaps/broken-a`);
  });

  void it("the option is refused as kube refuses it: with other options, on DELETECOLLECTION, on a readable or absent object, where kube's storage has no deleter", async () => {
    const refusals: [string, unknown][] = [
      [`${core}/configmaps/broken-a`, { ...UNSAFE, dryRun: ['All'] }],
      [`${core}/configmaps/broken-a`, { ...UNSAFE, preconditions: { uid: 'x' }, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }],
      [`${core}/configmaps/broken-a`, { ...UNSAFE, orphanDependents: true }],
      [`${core}/configmaps?labelSelector=none%3Dx`, UNSAFE],
      [`${core}/configmaps/healthy`, UNSAFE],
      [`${core}/configmaps/absent`, UNSAFE],
    ];
    for (const [path, body] of refusals) assert.equal((await same('DELETE', path, body)).status, 422, path);
    assert.equal((await same('DELETE', `${core}/configmaps/broken-a?ignoreStoreReadErrorWithClusterBreakingPotential=true&dryRun=All`)).status, 422);
    assert.equal((await same('DELETE', `/api/v1/namespaces/${NS}`, UNSAFE)).status, 500);
    assert.equal((await same('DELETE', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles/absent`, UNSAFE)).status, 500);
    assert.equal((await etcdClient.get(`/registry/configmaps/${NS}/healthy`).buffer()) !== null, true);
  });

  void it('the unsafe delete removes the unreadable key without decoding it, finalizers and all, and answers as kube does', async () => {
    const byKube = await kubeClient.request('DELETE', `${core}/configmaps/broken-a`, UNSAFE);
    const byKapi = await kapiClient.request('DELETE', `${core}/configmaps/broken-b?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    assert.equal(byKube.status, 200, byKube.text);
    assert.equal(byKapi.status, 200, byKapi.text);
    assert.deepEqual(byKapi.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'broken-b', kind: 'ConfigMap' }, code: 200 });
    assert.deepEqual(byKapi.body, { ...(byKube.body as object), details: { name: 'broken-b', kind: 'ConfigMap' } });
    assert.equal((await kapiClient.request('DELETE', `${core}/configmaps/broken-c`, UNSAFE)).status, 200);
    for (const name of ['broken-a', 'broken-b', 'broken-c']) assert.equal(await etcdClient.get(`/registry/configmaps/${NS}/${name}`).buffer(), null, name);
    // Gone for both: the key is absent, so the option is refused again, and the lists come back
    // (kube's cache and kapi's re-list once the value is gone; kapi's answers at once).
    assert.equal((await same('DELETE', `${core}/configmaps/broken-a`, UNSAFE)).status, 422);
    // kube's cache serves what it held before the values went bad until its watch gives up
    // (30 s) and it re-lists; kapi's re-lists as soon as its change feed meets one, and
    // again until the list reads.
    const names = async (client: RestClient): Promise<string> => {
      const listed = await client.request<{ items?: { metadata: { name: string } }[] }>('GET', `${core}/configmaps?resourceVersion=0`);
      return listed.status === 200 ? (listed.body.items ?? []).map((i) => i.metadata.name).join(',') : String(listed.status);
    };
    const started = Date.now();
    for (const client of [kapiClient, kubeClient]) {
      while ((await names(client)) !== 'healthy' && Date.now() - started < 90_000) await sleep(500);
      assert.equal(await names(client), 'healthy');
    }
    assert.equal((await same('GET', `${core}/configmaps?limit=500`)).status, 200);
  });
});
