import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, goDuration } from './logger.js';
import { startTestServer } from './testing/fixture.js';

void describe('logs', () => {
  void it('writes one JSON object a line, with v, msg, fields and err', () => {
    const lines: string[] = [];
    const log = createLogger({ verbosity: 2, format: 'json', write: (l) => lines.push(l) });
    log.info('started', { port: 6443 });
    log.debug(2, 'visible');
    log.debug(3, 'hidden');
    log.warn('careful');
    log.error('failed', new Error('boom'));
    assert.equal(lines.length, 4);
    assert.ok(lines.every((l) => l.endsWith('\n')));
    const [info, debug, warn, error] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(typeof info!['ts'], 'number');
    assert.deepEqual({ ...info, ts: 0 }, { ts: 0, msg: 'started', v: 0, port: 6443 });
    assert.equal(debug!['v'], 2);
    assert.equal(warn!['severity'], 'warning');
    assert.equal(error!['v'], undefined);
    assert.match(String(error!['err']), /^Error: boom/);
    assert.equal(log.enabled?.(2), true);
    assert.equal(log.enabled?.(3), false);
  });

  void it('writes klog text with key="value" pairs, and reports a failing sink as unhealthy', () => {
    const lines: string[] = [];
    const log = createLogger({ format: 'text', write: (l) => lines.push(l) });
    log.info('HTTP', { verb: 'GET', resp: 200 });
    assert.match(lines[0]!, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ HTTP verb="GET" resp=200\n$/);
    let fail = true;
    const broken = createLogger({ write: () => {
      if (fail) throw new Error('EPIPE');
    } });
    broken.info('x');
    assert.equal(broken.healthy?.(), false);
    fail = false;
    broken.info('y');
    assert.equal(broken.healthy?.(), true);
  });

  void it('formats latencies as Go durations', () => {
    assert.equal(goDuration(0), '0s');
    assert.equal(goDuration(350), '350ns');
    assert.equal(goDuration(350_000), '350µs');
    assert.equal(goDuration(2_115_855), '2.115855ms');
    assert.equal(goDuration(1_500_000_000n), '1.5s');
  });

  void it('logs one line per request at -v=3 with verb, URI, latency, user agent and code', async () => {
    const lines: string[] = [];
    const t = await startTestServer({ logger: createLogger({ verbosity: 3, write: (l) => lines.push(l) }) });
    try {
      lines.length = 0;
      const res = await t.request('GET', '/api/v1/namespaces/default/configmaps/nope', { headers: { 'user-agent': 'kubectl/v1.32.0 (linux/amd64)' } });
      assert.equal(res.status, 404);
      const http = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e['msg'] === 'HTTP');
      assert.equal(http.length, 1, lines.join(''));
      const entry = http[0]!;
      assert.equal(entry['v'], 3);
      assert.equal(entry['verb'], 'GET');
      assert.equal(entry['URI'], '/api/v1/namespaces/default/configmaps/nope');
      assert.equal(entry['resp'], 404);
      assert.equal(entry['userAgent'], 'kubectl/v1.32.0 (linux/amd64)');
      assert.match(String(entry['latency']), /^\d+(\.\d+)?(ns|µs|ms|s)$/);
      assert.match(String(entry['srcIP']), /^(127\.0\.0\.1|::ffff:127\.0\.0\.1|::1):\d+$/);
    } finally {
      await t.close();
    }
  });

  void it('logs no request lines below -v=3', async () => {
    const lines: string[] = [];
    const t = await startTestServer({ logger: createLogger({ verbosity: 2, write: (l) => lines.push(l) }) });
    try {
      lines.length = 0;
      await t.request('GET', '/api/v1/namespaces/default/configmaps');
      assert.equal(lines.filter((l) => l.includes('"msg":"HTTP"')).length, 0);
    } finally {
      await t.close();
    }
  });

  void it('logs the reasons a health check withholds from its response', async () => {
    const lines: string[] = [];
    const t = await startTestServer({ shutdownDelayMs: 300, logger: createLogger({ write: (l) => lines.push(l) }) });
    try {
      const closing = t.server.close();
      const res = await t.request('GET', '/readyz');
      assert.equal(res.status, 500);
      assert.doesNotMatch(res.text, /shutting down/);
      const entry = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e['msg'] === 'readyz check failed');
      assert.deepEqual(entry?.['failed'], ['shutdown: process is shutting down']);
      await closing;
    } finally {
      await t.close();
    }
  });
});
