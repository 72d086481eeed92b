/**
 * HEAD as kube-apiserver 1.32 answers it (checked against a real one): 405 MethodNotAllowed
 * on its go-restful routes (`/api`, group-version discovery, `/version`, every resource path),
 * 200 on its plain handlers (`/apis`, `/apis/<group>`, health, OpenAPI, metrics). kapi served
 * HEAD as GET everywhere, so a HEAD watch streamed events after a body-less response and the
 * next request on that keep-alive connection never got its answer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startTestServer, type TestServer } from './testing/fixture.js';

function send(agent: Agent, url: string, method: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`${method} ${url}: no response within 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

void describe('HEAD requests', () => {
  let t: TestServer;
  let agent: Agent;
  before(async () => {
    t = await startTestServer();
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  after(async () => {
    agent.destroy();
    await t.close();
  });

  void it('405 on go-restful routes, 200 on plain handlers, 404 where nothing is served', async () => {
    const expected: [string, number][] = [
      ['/api', 405],
      ['/api/v1', 405],
      ['/apis', 200],
      ['/apis/coordination.k8s.io', 200],
      ['/apis/coordination.k8s.io/v1', 405],
      ['/version', 405],
      ['/healthz', 200],
      ['/livez', 200],
      ['/readyz', 200],
      ['/openapi/v3', 200],
      ['/metrics', 200],
      ['/api/v1/namespaces', 405],
      ['/api/v1/namespaces/default', 405],
      ['/api/v1/namespaces/default/configmaps', 405],
      ['/api/v1/namespaces/default/configmaps/absent', 405],
      ['/api/v1/namespaces/default/bogus', 404],
      ['/apis/nope.example.com/v1', 404],
    ];
    const got: [string, number][] = [];
    for (const [path] of expected) got.push([path, await send(agent, `${t.url}${path}`, 'HEAD')]);
    assert.deepEqual(got, expected);
  });

  void it('a HEAD watch is refused, so the keep-alive connection answers the next request', async () => {
    assert.equal(await send(agent, `${t.url}/api/v1/namespaces/default/configmaps?watch=1`, 'HEAD'), 405);
    assert.equal(await send(agent, `${t.url}/api/v1/namespaces/default/configmaps`, 'GET'), 200);
  });
});
