#!/usr/bin/env node
// @ts-check
/**
 * Container health check (the image has no curl): exits 0 when `GET <url>` answers 200 within
 * the timeout, else 1 with the reason on stderr. TLS verification is off: the check asks "does
 * this replica answer /readyz", not "is its certificate trusted".
 *
 *   node /opt/kapi/deploy/healthcheck.mjs https://127.0.0.1:6443/readyz [timeout-ms]
 */
import http from 'node:http';
import https from 'node:https';

const [url, timeoutArg] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: healthcheck.mjs <url> [timeout-ms]\n');
  process.exit(2);
}
const timeout = Number(timeoutArg ?? 2000);
const send = url.startsWith('https:') ? https.get : http.get;
const req = send(url, { rejectUnauthorized: false, timeout }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (body += chunk));
  res.on('end', () => {
    if (res.statusCode === 200) process.exit(0);
    process.stderr.write(`${url}: ${res.statusCode} ${body.trim().slice(0, 500)}\n`);
    process.exit(1);
  });
});
req.on('timeout', () => req.destroy(new Error(`no answer within ${timeout} ms`)));
req.on('error', (err) => {
  process.stderr.write(`${url}: ${err.message}\n`);
  process.exit(1);
});
