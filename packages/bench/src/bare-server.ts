#!/usr/bin/env node
/**
 * The physical-limit baselines as a separate process (so it can be pinned to the server's CPU):
 * a bare `node:http` server doing only what the benchmarked server must do at the least.
 *
 *   bare-server.js list <file>   GET (any path) answers the file's bytes, pre-encoded, as JSON
 *   bare-server.js fanout <file> GET (any path) opens a chunked response that stays open (a
 *                                "watcher"); POST /event with a resourceVersion as its body
 *                                encodes the file's event line (the template, `{{RV}}` replaced
 *                                by that resourceVersion) once as a framed HTTP chunk, answers
 *                                `{"metadata":{"resourceVersion":"<rv>"}}` (the ack, as an API
 *                                server acknowledges a write before its watchers see it), then
 *                                writes the chunk to every open watcher's socket — once the
 *                                requests read together have been answered (setImmediate), all
 *                                chunks pending then in one write per watcher, as kapi batches
 *
 * Prints `{"port":<port>}` on stdout once listening on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function listServer(bytes: Buffer) {
  return createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  });
}

/** One HTTP/1.1 chunk (size line, data, CRLF) in a single Buffer. */
function framedChunk(data: string): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

function fanoutServer(template: string) {
  const [before, after] = template.split('{{RV}}') as [string, string];
  const watchers = new Set<ServerResponse>();
  let pending: Buffer[] = [];
  // Serialize once, frame once, one socket write per watcher for everything pending: the floor for any server.
  const flush = () => {
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    for (const w of watchers) w.socket?.write(bytes);
  };
  return createServer((req, res) => {
    if (req.method === 'POST') {
      void readBody(req).then((rv) => {
        if (pending.push(framedChunk(`${before}${rv.trim()}${after}`)) === 1) setImmediate(flush);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"metadata":{"resourceVersion":"${rv.trim()}"}}`);
      });
      return;
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
  });
}

const [mode, file] = process.argv.slice(2);
if ((mode !== 'list' && mode !== 'fanout') || file === undefined) {
  process.stderr.write('usage: bare-server.js list|fanout <file>\n');
  process.exit(2);
}
const server = mode === 'list' ? listServer(readFileSync(file)) : fanoutServer(readFileSync(file, 'utf8'));
server.keepAliveTimeout = 90_000;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
