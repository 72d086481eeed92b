import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, customResourceDefinitions } from '@kapi/registry';
import { delayedCheck, type HealthCheck } from './health.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

async function waitFor(predicate: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

// One watch cache per key prefix (events.k8s.io Events share core's), CRDs included.
const served = [...builtinDefinitions, customResourceDefinitions];
const cacheChecks = served
  .filter((d, i) => served.findIndex((o) => (o.storagePrefix ?? o.plural) === (d.storagePrefix ?? d.plural)) === i)
  .map((d) => `watch-cache/${d.group === '' ? d.plural : `${d.plural}.${d.group}`}`);
const hook = 'poststarthook/start-system-namespaces-controller';

void describe('health checks', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    // The watch caches finish their initial lists shortly after start.
    await waitFor(async () => (await t.request('GET', '/readyz')).status === 200);
  });
  after(async () => {
    await t.close();
  });

  void it('answers ok on healthz, livez and readyz and on every single check', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'ok', path);
    }
    const single = [
      '/livez/ping', '/livez/log', '/livez/etcd', `/livez/${hook}`,
      '/healthz/ping', '/healthz/log', '/healthz/etcd', `/healthz/${hook}`,
      '/readyz/ping', '/readyz/log', '/readyz/etcd', '/readyz/etcd-readiness', `/readyz/${hook}`, '/readyz/poststarthook/scheduling/bootstrap-system-priority-classes', '/readyz/poststarthook/priority-and-fairness-config-producer', '/readyz/autoregister-completion', '/readyz/shutdown',
      ...cacheChecks.map((c) => `/readyz/${c}`),
    ];
    for (const path of single) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'ok', path);
    }
    // Checks that belong to readyz only are not on livez; unknown checks are 404.
    assert.equal((await t.request('GET', '/livez/shutdown')).status, 404);
    assert.equal((await t.request('GET', '/livez/etcd-readiness')).status, 404);
    assert.equal((await t.request('GET', '/readyz/nope')).status, 404);
  });

  void it('lists every check in kube order with ?verbose', async () => {
    const livez = await t.request('GET', '/livez?verbose');
    assert.equal(livez.text, `[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]${hook} ok\nlivez check passed\n`);
    const healthz = await t.request('GET', '/healthz?verbose=1');
    assert.equal(healthz.text, `[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]${hook} ok\nhealthz check passed\n`);
    const readyz = await t.request('GET', '/readyz?verbose');
    assert.equal(
      readyz.text,
      ['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', 'poststarthook/crd-informer-synced', hook, 'poststarthook/scheduling/bootstrap-system-priority-classes', 'poststarthook/priority-and-fairness-config-producer', 'autoregister-completion', ...cacheChecks, 'shutdown'].map((c) => `[+]${c} ok\n`).join('') + 'readyz check passed\n',
    );
  });

  void it('excludes several checks, and warns about exclusions that match nothing', async () => {
    const res = await t.request('GET', '/readyz?verbose&exclude=etcd&exclude=shutdown&exclude=nope');
    assert.equal(res.status, 200);
    assert.match(res.text, /\n\[\+\]etcd excluded: ok\n/);
    assert.match(res.text, /\n\[\+\]shutdown excluded: ok\n/);
    assert.match(res.text, /\[\+\]etcd-readiness ok\n/);
    assert.match(res.text, /warn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n$/);
  });

  void it('fails etcd checks while etcd is down (livez too, as kube) and recovers after', async () => {
    await t.etcd.kill();
    try {
      // Each etcd check probes at most once a second and answers its last result meanwhile (as kube's): wait until both have seen it.
      await waitFor(async () => /\[-\]etcd failed: .*\n\[-\]etcd-readiness failed/.test((await t.request('GET', '/readyz?verbose')).text));
      const res = await t.request('GET', '/readyz');
      assert.equal(res.status, 500);
      assert.match(res.text, /^\[\+\]ping ok\n\[\+\]log ok\n\[-\]etcd failed: reason withheld\n\[-\]etcd-readiness failed: reason withheld\n/);
      // The watch caches lost their feed too and re-list (not ready meanwhile).
      assert.match(res.text, /\[-\]watch-cache\/configmaps failed: reason withheld\n/);
      assert.match(res.text, /readyz check failed\n$/);
      const single = await t.request('GET', '/readyz/etcd');
      assert.equal(single.status, 500);
      assert.match(single.text, /^internal server error: /);
      await waitFor(async () => (await t.request('GET', '/livez')).status === 500);
      assert.match((await t.request('GET', '/livez')).text, /\[-\]etcd failed: reason withheld\n\[\+\]poststarthook\/start-system-namespaces-controller ok\nlivez check failed\n$/);
      assert.equal((await t.request('GET', '/livez?exclude=etcd')).status, 200);
      const all = ['etcd', 'etcd-readiness', ...cacheChecks].map((c) => `exclude=${c}`).join('&');
      const excluded = await t.request('GET', `/readyz?${all}`);
      assert.equal(excluded.status, 200, excluded.text);
      const write = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'down' } } });
      assert.ok(write.status >= 500 && write.json['kind'] === 'Status', write.text);
    } finally {
      await t.etcd.restart();
    }
    await waitFor(async () => (await t.request('GET', '/readyz')).status === 200);
    assert.equal((await t.request('GET', '/livez')).status, 200);
  });
});

void describe('livez grace period', () => {
  void it('treats a failing check as healthy until the grace period has passed', async () => {
    let now = 1000;
    const failing: HealthCheck = { name: 'poststarthook/x', check: () => Promise.reject(new Error('not yet')) };
    const graced = delayedCheck(failing, 1000, 5000, () => now);
    await graced.check();
    now = 5999;
    await graced.check();
    now = 6000;
    await assert.rejects(graced.check(), /not yet/);
    assert.equal(delayedCheck(failing, 1000, 0), failing);
  });
});
