/**
 * The HTTP/2 request class: a request whose stream ended with its headers is complete when the
 * handler sees it (as on HTTP/1.1), so draining it reads nothing; a request with a body is
 * complete only once the body has been read; either way the stream and the response close.
 * The response class sends no trailers: its last DATA frame ends the stream.
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

void test('an HTTP/2 response ends with its last DATA frame: no trailers, with its status, headers and Date', async () => {
  const { cert, key } = serverCertificate(['localhost']);
  const sent: unknown[] = [];
  const handler = (_req: IncomingMessage, res: ServerResponse): void => {
    const stream = (res as unknown as { stream: { sentTrailers?: unknown; once(event: 'close', listener: () => void): void } }).stream;
    stream.once('close', () => sent.push(stream.sentTrailers));
    res.setHeader('Audit-Id', 'a1');
    res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': '2' });
    res.end('{}');
  };
  const server = createHttp2SecureServer({ cert, key }, handler, {}, { idleMs: 0, receiveMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect(`https://localhost:${(server.address() as AddressInfo).port}`, { rejectUnauthorized: false });
  try {
    const answer = await new Promise<{ headers: Record<string, unknown>; body: string; trailers: boolean }>((resolve, reject) => {
      const stream = client.request({ ':method': 'POST', ':path': '/' });
      let headers: Record<string, unknown> = {};
      let body = '';
      let trailers = false;
      stream.setEncoding('utf8');
      stream.on('response', (h) => (headers = h));
      stream.on('trailers', () => (trailers = true));
      stream.on('data', (c: string) => (body += c));
      stream.on('end', () => resolve({ headers, body, trailers }));
      stream.on('error', reject);
      stream.end('x');
    });
    assert.equal(answer.headers[':status'], 201);
    assert.equal(answer.headers['content-type'], 'application/json');
    assert.equal(answer.headers['audit-id'], 'a1');
    assert.equal(typeof answer.headers['date'], 'string');
    assert.equal(answer.body, '{}');
    assert.equal(answer.trailers, false);
    while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // Node's compat response asks for trailers and sends an empty set ({}) after the body.
    assert.deepEqual(sent, [undefined]);
  } finally {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
