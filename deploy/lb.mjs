#!/usr/bin/env node
// @ts-check
/**
 * kapi-lb: a TCP pass-through load balancer for kapi-apiserver replicas (TLS ends at the
 * replicas). New connections go round-robin to the replicas whose `GET <health-path>` answered
 * 200 at the last probe (every --health-interval). A connection that cannot reach its replica
 * is moved to the next one before any byte was exchanged, so a replica killed between two
 * probes costs no client an error. With no healthy replica it tries all of them (Envoy's "panic
 * mode"): clients then see the servers' own answers, e.g. a 500 from /readyz, not a reset.
 *
 *   node deploy/lb.mjs --listen=127.0.0.1:16443 --backends=kapi-1=127.0.0.1:16445,...
 *                      [--health-path=/readyz] [--health-interval=1s]
 */
import net from 'node:net';
import https from 'node:https';

/** @type {Record<string, string>} */
const flags = Object.fromEntries(
  process.argv.slice(2).map((a) => {
    const m = /^--([a-z-]+)=(.*)$/.exec(a);
    if (!m) fail(`unexpected argument ${JSON.stringify(a)} (flags are --name=value)`);
    return [m[1], m[2]];
  }),
);
/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`kapi-lb: ${message}\n`);
  process.exit(2);
}
/** @param {string} hostPort */
function splitHostPort(hostPort) {
  const i = hostPort.lastIndexOf(':');
  const port = Number(hostPort.slice(i + 1));
  if (i < 0 || !Number.isInteger(port)) fail(`bad address ${JSON.stringify(hostPort)} (want host:port)`);
  return { host: hostPort.slice(0, i), port };
}

const listen = splitHostPort(flags.listen ?? fail('--listen is required'));
const healthPath = flags['health-path'] ?? '/readyz';
const interval = /^(\d+)(ms|s)$/.exec(flags['health-interval'] ?? '1s');
if (!interval || Number(interval[1]) === 0) fail('--health-interval must look like 1s or 500ms');
const intervalMs = Number(interval[1]) * (interval[2] === 's' ? 1000 : 1);
const backends = (flags.backends ?? fail('--backends is required')).split(',').map((spec) => {
  const [name, address] = spec.includes('=') ? spec.split('=') : [spec, spec];
  return { name: name ?? spec, ...splitHostPort(address ?? spec), healthy: false };
});
const log = (/** @type {string} */ line) => process.stderr.write(`${new Date().toISOString()} kapi-lb: ${line}\n`);

/** @param {(typeof backends)[number]} backend @param {boolean} healthy @param {string} why */
function setHealth(backend, healthy, why) {
  if (backend.healthy !== healthy) log(`${backend.name} (${backend.host}:${backend.port}) is now ${healthy ? 'healthy' : `unhealthy: ${why}`}`);
  backend.healthy = healthy;
}

function probeAll() {
  for (const b of backends) {
    const req = https.get({ host: b.host, port: b.port, path: healthPath, rejectUnauthorized: false, timeout: intervalMs, agent: false }, (res) => {
      res.resume();
      setHealth(b, res.statusCode === 200, `${healthPath} answered ${res.statusCode}`);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${intervalMs} ms`)));
    req.on('error', (err) => setHealth(b, false, err.message));
  }
}

let next = 0;
/** The order in which to try replicas for one new connection: healthy ones round-robin, or all. */
function candidates() {
  const healthy = backends.filter((b) => b.healthy);
  const pool = healthy.length > 0 ? healthy : backends;
  const start = next++ % pool.length;
  return [...pool.slice(start), ...pool.slice(0, start)];
}

const server = net.createServer((client) => {
  client.pause();
  client.on('error', () => {});
  const order = candidates();
  const attempt = (/** @type {number} */ i) => {
    const b = order[i];
    if (!b || client.destroyed) return void client.destroy();
    const upstream = net.connect({ host: b.host, port: b.port });
    upstream.setNoDelay(true);
    upstream.once('error', (err) => {
      setHealth(b, false, err.message);
      attempt(i + 1);
    });
    upstream.once('connect', () => {
      if (client.destroyed) return void upstream.destroy();
      upstream.removeAllListeners('error');
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    });
  };
  client.setNoDelay(true);
  attempt(0);
});
server.on('error', (err) => fail(`cannot listen on ${listen.host}:${listen.port}: ${err.message}`));
server.listen(listen.port, listen.host, () => {
  log(`listening on ${listen.host}:${listen.port}, balancing over ${backends.map((b) => b.name).join(', ')}`);
  probeAll();
  setInterval(probeAll, intervalMs).unref();
});
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
  process.on(signal, () => {
    log(`${signal}: closing`);
    server.close();
    process.exit(0);
  });
}
