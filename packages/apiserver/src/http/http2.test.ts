/**
 * The HTTP/2 request class: a request whose stream ended with its headers is complete when the
 * handler sees it (as on HTTP/1.1), so draining it reads nothing; a request with a body is
 * complete only once the body has been read; either way the stream and the response close.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHttp2SecureServer } from './http2.js';
import { serverCertificate } from '../testing/webhook-server.js';

void test('an HTTP/2 request without a body is complete at once; one with a body once it is read', async () => {
  const { cert, key } = serverCertificate(['localhost']);
  const seen: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const atStart = req.complete;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push(`${req.method} ${String(atStart)} ${String(req.complete)} ${body}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(req.method);
    });
    if (atStart) {
      // Nothing to read: answer without waiting for 'end', as kapi's handlers do.
      req.removeAllListeners('end');
      req.removeAllListeners('data');
      seen.push(`${req.method} ${String(atStart)}`);
      res.once('close', () => seen.push(`${req.method} closed`));
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(req.method);
    }
  };
  const server = createHttp2SecureServer({ cert, key }, handler, {}, { idleMs: 0, receiveMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect(`https://localhost:${(server.address() as AddressInfo).port}`, { rejectUnauthorized: false });
  try {
    const ask = (method: string, body?: string) =>
      new Promise<string>((resolve, reject) => {
        const stream = client.request({ ':method': method, ':path': '/' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => (text += c));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
        stream.end(body);
      });
    assert.equal(await ask('GET'), 'GET');
    assert.equal(await ask('POST', 'hello'), 'POST');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['GET true', 'GET closed', 'POST false true hello']);
  } finally {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
