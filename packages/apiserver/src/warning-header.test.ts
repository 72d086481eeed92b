/**
 * Warning headers that quote request data: kube writes the text's UTF-8 bytes; kapi used to
 * hand Node a string Node refuses (a character past U+00FF or a control character), which
 * threw while writing the response and ended the process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestServer, type TestServer } from './testing/fixture.js';

/** POSTs `body` and resolves the status and the Warning header values as UTF-8 text. */
function post(url: string, path: string, body: string): Promise<{ status: number; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => {
        const warnings: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i]!.toLowerCase() === 'warning') warnings.push(Buffer.from(res.rawHeaders[i + 1]!, 'latin1').toString('utf8'));
        }
        resolve({ status: res.statusCode ?? 0, warnings });
      });
    });
    req.setTimeout(5_000, () => req.destroy(new Error('no response within 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

void describe('Warning headers with text from the request', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  void it('an unknown field named in CJK, emoji and control characters: 201 with the warning in UTF-8, and the server stays up', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w1"},"漢😀é":1,"x\\u0001y":2}';
    const res = await post(t.url, '/api/v1/namespaces/default/configmaps?fieldValidation=Warn', body);
    assert.equal(res.status, 201);
    assert.equal(res.warnings.length, 2, res.warnings.join('\n'));
    assert.equal(res.warnings[0], '299 - "unknown field \\"漢😀é\\""');
    assert.match(res.warnings[1]!, /^299 - "unknown field \\"x.*y\\""$/);
    assert.ok(![...res.warnings[1]!].some((c) => c < ' ' && c !== '\t'), res.warnings[1]);
    const again = await post(t.url, '/api/v1/namespaces/default/configmaps', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w2"}}');
    assert.equal(again.status, 201);
  });
});
