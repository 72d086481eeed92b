/**
 * The minimal objects kapi's catalogue round trips use (MINIMAL_OBJECTS of
 * @kapi/apiserver/testing) are valid for a real kube-apiserver v1.32.13: each is created there,
 * and each sample status is accepted by its /status subresource, so the round trips keep
 * passing as per-kind validation lands in kapi. Skipped, with the reason, when the
 * kube-apiserver binary is missing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { MINIMAL_OBJECTS } from '@kapi/apiserver/testing';
import { kubeReferenceBinary, REFERENCE_TOKEN, startKubeReference, type KubeReference } from '../harness/kube-reference.js';

function send(kube: KubeReference, method: string, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const data = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${kube.url}${path}`,
      { method, rejectUnauthorized: false, headers: { authorization: `Bearer ${REFERENCE_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const binary = kubeReferenceBinary();

void describe('the minimal objects of the catalogue round trips', { skip: binary === undefined ? 'no kube-apiserver binary (set KAPI_KUBE_APISERVER)' : false }, () => {
  let kube: KubeReference;
  before(async () => {
    kube = await startKubeReference(binary!);
  });
  after(async () => {
    await kube?.stop();
  });

  void it('are created by kube-apiserver 1.32, and their statuses accepted', async () => {
    const discovery = JSON.parse((await kube.get('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).body) as {
      items: { metadata: { name: string }; versions: { version: string; resources: { resource: string; scope: string }[] }[] }[];
    };
    const problems: string[] = [];
    for (const [key, sample] of Object.entries(MINIMAL_OBJECTS)) {
      const [group, plural] = key.split('/') as [string, string];
      const gv = group === '' ? { version: 'v1', namespaced: true } : (() => {
        const version = discovery.items.find((g) => g.metadata.name === group)!.versions[0]!;
        return { version: version.version, namespaced: version.resources.find((r) => r.resource === plural)!.scope === 'Namespaced' };
      })();
      const coreScoped = new Set(['nodes', 'persistentvolumes']);
      const namespaced = group === '' ? !coreScoped.has(plural) : gv.namespaced;
      const base = group === '' ? `/api/v1` : `/apis/${group}/${gv.version}`;
      const collection = `${base}${namespaced ? '/namespaces/default' : ''}/${plural}`;
      const created = await send(kube, 'POST', collection, sample.object);
      if (created.status !== 201) {
        problems.push(`${key}: ${created.status} ${String(created.json['message'])}`);
        continue;
      }
      if (sample.status === undefined) continue;
      const name = (sample.object['metadata'] as { name: string }).name;
      // kube-apiserver's own controllers write some statuses too (the priority-and-fairness
      // config controller sets FlowSchema conditions), so a conflict means: read, try again.
      let current = created.json;
      let updated = await send(kube, 'PUT', `${collection}/${name}/status`, { ...current, status: sample.status });
      for (let attempt = 0; updated.status === 409 && attempt < 5; attempt++) {
        current = (await send(kube, 'GET', `${collection}/${name}`, undefined)).json;
        updated = await send(kube, 'PUT', `${collection}/${name}/status`, { ...current, status: sample.status });
      }
      if (updated.status !== 200) problems.push(`${key}/status: ${updated.status} ${String(updated.json['message'])}`);
    }
    assert.deepEqual(problems, []);
  });
});
