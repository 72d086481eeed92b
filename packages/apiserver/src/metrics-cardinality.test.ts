/**
 * Metric labels come from a bounded set: requests for paths no route serves are not counted
 * (kube-apiserver 1.32.13 records none of them either), and requests refused before routing
 * are counted without path-derived labels. A flood of made-up paths leaves /metrics as it was.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, get, request } from 'node:http';
import { startTestServer, type TestServer } from './testing/fixture.js';

const CM = '/api/v1/namespaces/default/configmaps';

/** The series lines of a /metrics text (no comments). */
const seriesOf = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

/** The apiserver request series: those a request's labels can add. */
const requestSeries = (text: string): string[] => seriesOf(text).filter((l) => /^apiserver_(request|response|longrunning|requested|watch_events)/.test(l));

void describe('metric cardinality', () => {
  let t: TestServer;
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  before(async () => {
    t = await startTestServer({ maxMutatingRequestsInflight: 1 });
    assert.equal((await t.request('POST', CM, { body: { metadata: { name: 'x' } } })).status, 201);
  });
  after(async () => {
    agent.destroy();
    await t.close();
  });

  const status = (method: string, path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      request(t.url + path, { method, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
        .on('error', reject)
        .end();
    });

  void it('paths no route serves are not counted: series stay the same through 2,000 made-up paths', async () => {
    const bogus = [
      (i: number) => `${CM}/x/sub${i}`, // unknown subresource of a served resource
      (i: number) => `/api/v1/namespaces/ns${i}/things${i}`, // unknown resource
      (i: number) => `/apis/g${i}.example.com/v1/things`, // unknown group
      (i: number) => `/openapi/x${i}`, // outside the OpenAPI v3 tree
      (i: number) => `/made-up-${i}`, // no route at all
      (i: number) => `${CM}/x/status/extra${i}`, // too many segments
    ];
    // One of each first, so that every bounded series that could appear exists before counting.
    for (const path of bogus) assert.equal(await status('GET', path(0)), 404);
    assert.equal(await status('GET', CM), 200);
    assert.equal(await status('GET', '/metrics'), 200);
    const before = requestSeries((await t.request('GET', '/metrics')).text);
    let next = 1;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next <= 2000) {
          const i = next++;
          assert.equal(await status('GET', bogus[i % bogus.length]!(i)), 404);
        }
      }),
    );
    const text = (await t.request('GET', '/metrics')).text;
    assert.doesNotMatch(text, /sub\d|things\d|example\.com|made-up|extra\d|\/openapi\/x\d/);
    const afterFlood = requestSeries(text);
    assert.equal(afterFlood.length, before.length, `series grew: ${afterFlood.filter((l) => !before.some((b) => b.split(' ')[0] === l.split(' ')[0])).slice(0, 5).join('\n')}`);
    // Served routes are still counted as before.
    assert.match(text, /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"\} 1$/m);
  });

  void it('a prototype name is a path like any other: 404, not a 500', async () => {
    for (const path of ['/constructor', '/__proto__', '/toString', '/hasOwnProperty', '/api/v1/constructor', '/apis/__proto__', `${CM}/x/constructor`]) {
      assert.equal(await status('GET', path), 404, path);
    }
    assert.doesNotMatch((await t.request('GET', '/metrics')).text, /constructor|__proto__|toString|hasOwnProperty/);
  });

  void it('refused with 429 before routing: a made-up path is counted without its path', async () => {
    // Holds the only mutating seat: a POST whose body never finishes.
    const held = request(`${t.url}${CM}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 100 } });
    held.on('error', () => {});
    held.write('{');
    held.flushHeaders();
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      for (let i = 0; i < 50; i++) assert.equal(await status('POST', `/api/v1/namespaces/default/made-up-${i}`), 429);
      assert.equal(await status('POST', CM), 429);
      const text = (await t.request('GET', '/metrics')).text;
      assert.doesNotMatch(text, /made-up/);
      const unrouted = 'verb="POST",dry_run="",group="",version="",resource="",subresource="",scope="resource",component="apiserver",code="429"';
      assert.match(text, new RegExp(`^apiserver_request_total\\{${unrouted}\\} 50$`, 'm'));
      assert.match(text, /^apiserver_request_total\{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"\} 1$/m);
    } finally {
      held.destroy();
    }
  });

  void it('a scrape stays cheap: /readyz answers while /metrics is read', async () => {
    const started = Date.now();
    const [metrics, readyz] = await Promise.all([
      t.request('GET', '/metrics'),
      new Promise<number>((resolve, reject) => {
        get(`${t.url}/readyz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(Date.now() - started));
        }).on('error', reject);
      }),
    ]);
    assert.equal(metrics.status, 200);
    assert.ok(metrics.text.length < 1_000_000, `/metrics is ${metrics.text.length} bytes`);
    assert.ok(readyz < 1000, `/readyz took ${readyz} ms during a scrape`);
  });
});
