/**
 * Creating a CRD does not unready the server: kube-apiserver 1.32's /readyz stays 200 right
 * after a CRD is created (checked against one). kapi's readyz failed for a moment — the new
 * resource's watch cache (`watch-cache/<plural>.<group>`) was not listed yet, and the garbage
 * collector's new monitor made `informer-sync` false — so a replica would drop out of its
 * load balancer's rotation whenever someone created a CRD (found by the fuzz suite).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CRD_PATH, widgetCrd } from './crd-testing.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

void describe('readyz while CRDs are created', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t.close());

  void it('stays 200 ok through the creation of new CRDs', async () => {
    let polling = true;
    const failures: string[] = [];
    let probes = 0;
    const poller = (async () => {
      while (polling) {
        const res = await t.request('GET', '/readyz?verbose');
        probes++;
        if (res.status !== 200) failures.push(res.text.split('\n').filter((l) => l.startsWith('[-]')).join('; '));
      }
    })();
    for (const plural of ['gadgets', 'gizmos', 'doodads']) {
      const crd = widgetCrd({ metadata: { name: `${plural}.example.com` } });
      const spec = crd['spec'] as Record<string, unknown>;
      spec['names'] = { plural, singular: plural.slice(0, -1), kind: plural.charAt(0).toUpperCase() + plural.slice(1, -1) };
      const res = await t.request('POST', CRD_PATH, { body: crd });
      assert.equal(res.status, 201, res.text);
      // Until the new resource is served (its cache listed, the collector's monitor synced).
      for (let i = 0; i < 200 && (await t.request('GET', `/apis/example.com/v1/namespaces/default/${plural}`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 200));
    }
    polling = false;
    await poller;
    assert.ok(probes > 20, `only ${probes} probes`);
    assert.deepEqual(failures, []);
  });
});
