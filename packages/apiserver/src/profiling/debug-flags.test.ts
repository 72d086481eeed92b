/**
 * /debug/flags as kube-apiserver 1.32 serves it with --profiling (answers compared with the
 * v1.32.13 binary): the index page, and PUT /debug/flags/v changing the log verbosity of the
 * running server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../logger.js';
import { startSecureServer, type SecureServer } from '../testing/secure-server.js';
import { parseGoUint32 } from './debug-flags.js';

const INDEX = '<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n\n<tr>v<br>\n\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n';

void it("parseGoUint32: Go's strconv.ParseUint(s, 10, 32) results and error texts", () => {
  assert.equal(parseGoUint32('3'), 3);
  assert.equal(parseGoUint32('007'), 7);
  assert.equal(parseGoUint32('4294967295'), 4294967295);
  assert.equal(parseGoUint32('4294967296'), 'strconv.ParseUint: parsing "4294967296": value out of range');
  assert.equal(parseGoUint32('3\n'), 'strconv.ParseUint: parsing "3\\n": invalid syntax');
  for (const bad of ['', '-1', '+1', '1_0', 'abc', ' 1']) assert.equal(parseGoUint32(bad), `strconv.ParseUint: parsing ${JSON.stringify(bad)}: invalid syntax`);
});

void describe('/debug/flags with --profiling (the default)', () => {
  let s: SecureServer;
  const lines: string[] = [];
  before(async () => {
    s = await startSecureServer({ logger: createLogger({ verbosity: 0, format: 'json', write: (line) => lines.push(line) }) });
  });
  after(async () => {
    await s?.close();
  });

  void it('serves the index page for /debug/flags and every path under it, any method', async () => {
    for (const [method, path] of [['GET', '/debug/flags'], ['GET', '/debug/flags/'], ['GET', '/debug/flags/x'], ['POST', '/debug/flags'], ['GET', '/debug/flags/v/']]) {
      const res = await s.request({ cert: s.admin }, method!, path!);
      assert.equal(res.status, 200, `${method} ${path}`);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.text, INDEX);
    }
  });

  void it('PUT /debug/flags/v sets the running log verbosity; other methods are 406, bad numbers 400 with Go\'s text', async () => {
    const admin = { cert: s.admin };
    const get = await s.request(admin, 'GET', '/debug/flags/v');
    assert.equal(get.status, 406);
    assert.equal(get.text, 'unsupported http method\n');
    assert.equal(get.headers['content-type'], 'text/plain');
    assert.equal(get.headers['x-content-type-options'], 'nosniff');

    // The body is sent as JSON by the test client: a string arrives quoted.
    const bad = await s.request(admin, 'PUT', '/debug/flags/v', { body: 'abc' });
    assert.equal(bad.status, 400);
    assert.equal(bad.text, 'strconv.ParseUint: parsing "\\"abc\\"": invalid syntax\n');
    const big = await s.request(admin, 'PUT', '/debug/flags/v', { body: 99999999999 });
    assert.equal(big.text, 'strconv.ParseUint: parsing "99999999999": value out of range\n');

    // At verbosity 0 requests are not logged; from 3 on every request is.
    lines.length = 0;
    await s.request(admin, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(lines.filter((l) => l.includes('/api/v1/namespaces/default/configmaps')).length, 0);
    const set = await s.request(admin, 'PUT', '/debug/flags/v', { body: 3 });
    assert.equal(set.status, 200);
    assert.equal(set.text, 'successfully set klog.logging.verbosity to 3\n');
    await s.request(admin, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(lines.filter((l) => l.includes('/api/v1/namespaces/default/configmaps')).length, 1, lines.join(''));
    await s.request(admin, 'PUT', '/debug/flags/v', { body: 0 });
    lines.length = 0;
    await s.request(admin, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(lines.filter((l) => l.includes('/api/v1/namespaces/default/configmaps')).length, 0);
  });

  void it('is for cluster admins only: anonymous is refused before the verbosity changes', async () => {
    const res = await s.request('anonymous', 'PUT', '/debug/flags/v', { body: 9 });
    assert.equal(res.status, 401);
    lines.length = 0;
    await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(lines.filter((l) => l.includes('/api/v1/namespaces/default/configmaps')).length, 0);
  });
});
