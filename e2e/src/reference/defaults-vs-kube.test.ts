/**
 * kube's per-kind defaulting, compared with a real kube-apiserver v1.32.13: every sample of
 * defaults-samples.ts is created on both servers (each on an empty etcd) and the two answers
 * must be the same after the differential suite's normalization, but for the values each
 * server assigns (cluster IPs, node ports) and the managedFields `"."` entries the
 * differential suite declares. Skipped, with the reason, when the kube-apiserver binary is
 * missing. KAPI_DEFAULTS_DUMP=<file> writes both answers of every sample.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { kubeReferenceBinary, REFERENCE_TOKEN, startKubeReference, type KubeReference } from '../harness/kube-reference.js';
import { differences, view } from './differential/compare.js';
import { send } from './differential/send.js';
import { DEFAULTS_SAMPLES, SERVICE_ACCOUNT } from './defaults-samples.js';

const binary = kubeReferenceBinary();

/** Values each server assigns on its own, and the managedFields entries declared elsewhere. */
const ASSIGNED = [/^body\.spec\.clusterIPs?(\.|$)/, /^body\.spec\.ports\.\d+\.nodePort$/, /^body\.metadata\.managedFields\.\d+\.fieldsV1\..*\.\.$/];

void describe('defaulting: kapi creates each object as kube-apiserver 1.32 does', { skip: binary === undefined ? 'no kube-apiserver binary (set KAPI_KUBE_APISERVER)' : false }, () => {
  let kube: KubeReference;
  let kapi: TestCluster;
  before(async () => {
    const controllers = '--controllers=*,-serviceaccount-controller,-root-ca-certificate-publisher-controller';
    [kube, kapi] = await Promise.all([startKubeReference(binary!), startCluster({ server: { extraArgs: [controllers] } })]);
  });
  after(async () => {
    await Promise.all([kube?.stop(), kapi?.stop()]);
  });

  void it('every sample is created the same', async () => {
    const kapiUrl = kapi.servers[0]!.url;
    for (const base of [kube.url, kapiUrl]) {
      const created = await send(base, REFERENCE_TOKEN, { method: 'POST', path: SERVICE_ACCOUNT.path, body: SERVICE_ACCOUNT.body });
      assert.equal(created.status, 201, `${base}: the service account: ${JSON.stringify(created.body)}`);
    }
    const problems: string[] = [];
    const dump: unknown[] = [];
    for (const sample of DEFAULTS_SAMPLES) {
      const name = (sample.body['metadata'] as { name: string }).name;
      // The create answer, then the object as stored (read back).
      for (const [step, request] of [['create', { method: 'POST', path: sample.path, body: sample.body }], ['get', { method: 'GET', path: `${sample.path}/${name}` }]] as const) {
        const [kubeAnswer, kapiAnswer] = await Promise.all([send(kube.url, REFERENCE_TOKEN, request), send(kapiUrl, REFERENCE_TOKEN, request)]);
        dump.push({ sample: sample.name, step, kube: view(kubeAnswer), kapi: view(kapiAnswer) });
        if (kubeAnswer.status !== (step === 'create' ? 201 : 200)) problems.push(`${sample.name} ${step}: kube answered ${kubeAnswer.status} (the sample must be valid): ${JSON.stringify(kubeAnswer.body).slice(0, 300)}`);
        for (const d of differences(view(kubeAnswer), view(kapiAnswer))) {
          if (d.path === 'audit-id' || ASSIGNED.some((p) => p.test(d.path))) continue;
          problems.push(`${sample.name} ${step}: ${d.text}`);
        }
      }
    }
    if (process.env.KAPI_DEFAULTS_DUMP) writeFileSync(process.env.KAPI_DEFAULTS_DUMP, JSON.stringify(dump, null, 1));
    assert.deepEqual(problems, []);
  });
});
