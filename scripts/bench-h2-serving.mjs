// CPU per request of a bare node:http2 TLS server answering a fixed 1 KiB body, through Node's
// compatibility API (request/response objects, as kapi's handlers get) and through the
// 'stream' event (one respond() and end()), and the latter over cleartext h2 (what TLS adds).
// A node:http2 client in another process keeps --concurrency streams open on one connection.
// Modes run in turn, --rounds times; the server's own CPU (process.cpuUsage) over --count
// requests after a warm-up. For deciding where HTTP/2 serving's CPU goes (issue 21):
//   node scripts/bench-h2-serving.mjs [--rounds 3] [--count 15000] [--concurrency 16] [--modes compat,stream,stream-h2c]
import { Buffer } from 'node:buffer';
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const self = fileURLToPath(import.meta.url);
const role = process.argv[2];

if (role === 'server') {
  const mode = process.argv[3];
  const body = Buffer.alloc(1024, 'x');
  const tls = JSON.parse(readFileSync(process.argv[4], 'utf8'));
  const settings = { maxConcurrentStreams: 100, initialWindowSize: 256 * 1024, maxFrameSize: 256 * 1024 };
  const server = mode === 'stream-h2c' ? http2.createServer({ settings }) : http2.createSecureServer({ ...tls, allowHTTP1: true, settings });
  if (mode === 'compat') {
    server.on('request', (req, res) => {
      void req.headers['accept'];
      res.setHeader('Audit-Id', '6f1c');
      res.writeHead(200, { 'Content-Type': 'application/vnd.kubernetes.protobuf', 'Cache-Control': 'no-cache, private', 'Content-Length': '1024' });
      res.end(body);
    });
  } else {
    server.on('stream', (stream, headers) => {
      void headers['accept'];
      stream.respond({ ':status': 200, 'content-type': 'application/vnd.kubernetes.protobuf', 'audit-id': '6f1c', 'cache-control': 'no-cache, private', 'content-length': 1024 });
      stream.end(body);
    });
  }
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  let start;
  process.on('message', (m) => {
    if (m === 'start') {
      start = process.cpuUsage();
      process.send('started');
    } else if (m === 'stop') {
      const used = process.cpuUsage(start);
      process.send({ cpuUs: used.user + used.system });
      process.exit(0);
    }
  });
} else if (role === 'client') {
  const [url, concurrency, count] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
  const session = http2.connect(url, { rejectUnauthorized: false });
  let started = 0;
  let done = 0;
  await new Promise((resolve, reject) => {
    const next = () => {
      if (started >= count) return;
      started++;
      const stream = session.request({ ':path': '/api/v1/namespaces/default/configmaps/x', accept: 'application/vnd.kubernetes.protobuf' });
      stream.on('data', () => {});
      stream.on('error', reject);
      stream.on('end', () => (++done === count ? resolve() : next()));
      stream.end();
    };
    for (let i = 0; i < concurrency; i++) next();
  });
  session.close();
} else {
  const rounds = Number(arg('rounds', '3'));
  const count = Number(arg('count', '15000'));
  const concurrency = Number(arg('concurrency', '16'));
  const modes = arg('modes', 'compat,stream,stream-h2c').split(',');
  const dir = mkdtempSync(join(tmpdir(), 'h2-serving-'));
  const tlsFile = join(dir, 'tls.json');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  writeFileSync(tlsFile, JSON.stringify({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') }));
  const client = (url, n) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [self, 'client', url, String(concurrency), String(n)], { stdio: 'inherit' });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited ${code}`))));
    });
  const results = Object.fromEntries(modes.map((m) => [m, []]));
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      const server = fork(self, ['server', mode, tlsFile]);
      const ask = (m) => new Promise((resolve) => (server.once('message', resolve), server.send(m)));
      const { port } = await new Promise((resolve) => server.once('message', resolve));
      const url = `${mode === 'stream-h2c' ? 'http' : 'https'}://localhost:${port}`;
      await client(url, Math.max(2000, count / 5));
      await ask('start');
      const t0 = process.hrtime.bigint();
      await client(url, count);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const { cpuUs } = await ask('stop');
      results[mode].push(cpuUs / count);
      console.log(`round ${round + 1} ${mode.padEnd(10)} ${(cpuUs / count).toFixed(1)} µs CPU/request, ${Math.round((count / ms) * 1000)} requests/s`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const mode of modes) console.log(`${mode.padEnd(10)} median ${median(results[mode]).toFixed(1)} µs CPU/request (${results[mode].map((x) => x.toFixed(1)).join(', ')})`);
  rmSync(dir, { recursive: true, force: true });
}
