#!/usr/bin/env node
// @ts-check
/**
 * kapi-peer-gate: carries the etcd members' peer (raft) traffic of the local cluster and drops
 * it on demand, to partition a member without root, iptables or network namespaces.
 *
 * Each member listens for peers on its own port but advertises the port of its gate, so every
 * peer connection to member M passes through M's gate. A connection is attributed to its
 * sender by the `X-PeerURLs` header etcd's rafthttp puts on every stream and pipeline request
 * (the sender's advertised peer URL = the sender's gate). Partitioning M drops every connection
 * whose sender or receiver is M: existing ones are cut, new ones are black-holed (accepted, their
 * bytes read and discarded, nothing forwarded), so both directions go silent, as when packets
 * are dropped. Healing cuts the black-holed connections so the members redial at once.
 * Connections without the header (etcd's /version and /members probes) are dropped only when
 * their receiver is partitioned. Client traffic (kapi → etcd) never passes here: a partitioned
 * member still answers clients, as a real partitioned member would.
 *
 *   node deploy/peer-gate.mjs --control=127.0.0.1:16444 \
 *     --gate=etcd-1,127.0.0.1:16454,127.0.0.1:16451 --gate=etcd-2,... --gate=etcd-3,...
 *
 * Control (HTTP on --control): POST /partition/<member>, POST /heal/<member>, POST /heal,
 * GET /status → {"partitioned": [...], "connections": {...}}.
 */
import net from 'node:net';
import http from 'node:http';

/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`kapi-peer-gate: ${message}\n`);
  process.exit(2);
}
/** @param {string} hostPort */
function splitHostPort(hostPort) {
  const i = hostPort.lastIndexOf(':');
  const port = Number(hostPort.slice(i + 1));
  if (i < 0 || !Number.isInteger(port)) fail(`bad address ${JSON.stringify(hostPort)} (want host:port)`);
  return { host: hostPort.slice(0, i), port };
}
const log = (/** @type {string} */ line) => process.stderr.write(`${new Date().toISOString()} kapi-peer-gate: ${line}\n`);

/** @type {{ member: string, listen: { host: string, port: number }, target: { host: string, port: number } }[]} */
const gates = [];
let control;
for (const arg of process.argv.slice(2)) {
  const m = /^--(gate|control)=(.*)$/.exec(arg) ?? fail(`unexpected argument ${JSON.stringify(arg)}`);
  if (m[1] === 'control') control = splitHostPort(m[2] ?? '');
  else {
    const [member, listen, target] = (m[2] ?? '').split(',');
    if (!member || !listen || !target) fail(`--gate wants <member>,<listen host:port>,<member's peer host:port>, got ${JSON.stringify(m[2])}`);
    gates.push({ member, listen: splitHostPort(listen), target: splitHostPort(target) });
  }
}
if (!control || gates.length === 0) fail('--control and at least one --gate are required');

/** Members whose traffic is dropped. */
const partitioned = new Set();
/** @typedef {{ from: string | undefined, to: string, client: net.Socket, upstream?: net.Socket, blackholed: boolean }} Conn */
/** @type {Set<Conn>} */
const conns = new Set();

/** The member whose gate URL appears in an `X-PeerURLs` header of a request head, if any. */
function senderOf(/** @type {string} */ head) {
  const header = /^x-peerurls:\s*(.*)$/im.exec(head)?.[1] ?? '';
  for (const url of header.split(',')) {
    const port = Number(/:(\d+)\/?\s*$/.exec(url.trim())?.[1]);
    const gate = gates.find((g) => g.listen.port === port);
    if (gate) return gate.member;
  }
  return undefined;
}
const dropped = (/** @type {Conn} */ c) => partitioned.has(c.to) || (c.from !== undefined && partitioned.has(c.from));

function blackhole(/** @type {Conn} */ c) {
  c.blackholed = true;
  c.upstream?.destroy();
  c.client.on('data', () => {});
  c.client.resume();
}

for (const gate of gates) {
  const server = net.createServer((client) => {
    /** @type {Conn} */
    const conn = { from: undefined, to: gate.member, client, blackholed: false };
    conns.add(conn);
    client.on('error', () => {});
    client.on('close', () => {
      conn.upstream?.destroy();
      conns.delete(conn);
    });
    let head = Buffer.alloc(0);
    const decide = () => {
      client.removeListener('data', onData);
      clearTimeout(timer);
      client.pause();
      conn.from = senderOf(head.toString('latin1'));
      if (dropped(conn)) return blackhole(conn);
      const upstream = net.connect(gate.target);
      conn.upstream = upstream;
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      upstream.write(head);
      client.pipe(upstream).pipe(client);
      client.resume();
    };
    const onData = (/** @type {Buffer} */ chunk) => {
      head = Buffer.concat([head, chunk]);
      if (head.includes('\r\n\r\n') || head.length > 16384) decide();
    };
    // A connection that sends nothing for a second is not a request from a member: let it through.
    const timer = setTimeout(decide, 1000);
    client.on('data', onData);
  });
  server.on('error', (err) => fail(`cannot listen on ${gate.listen.host}:${gate.listen.port} for ${gate.member}: ${err.message}`));
  server.listen(gate.listen.port, gate.listen.host);
}

const controlServer = http.createServer((req, res) => {
  const [, verb, member] = /^\/(partition|heal|status)(?:\/([^/?]+))?\/?$/.exec(req.url ?? '') ?? [];
  const reply = (/** @type {number} */ code, /** @type {unknown} */ body) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(`${JSON.stringify(body)}\n`);
  };
  if (member !== undefined && !gates.some((g) => g.member === member)) return reply(404, { error: `unknown member ${member}` });
  if (verb === 'status' && req.method === 'GET') {
    /** @type {Record<string, { open: number, dropped: number }>} */
    const connections = {};
    for (const c of conns) {
      const entry = (connections[`${c.from ?? '?'}->${c.to}`] ??= { open: 0, dropped: 0 });
      entry[c.blackholed ? 'dropped' : 'open']++;
    }
    return reply(200, { partitioned: [...partitioned].sort(), connections });
  }
  if (req.method !== 'POST' || (verb === 'partition' && member === undefined)) return reply(405, { error: 'use POST /partition/<member>, POST /heal[/<member>] or GET /status' });
  if (verb === 'partition') {
    partitioned.add(member);
    for (const c of conns) if (!c.blackholed && dropped(c)) c.client.destroy();
    log(`partitioned ${member}`);
  } else {
    for (const m of member === undefined ? [...partitioned] : [member]) partitioned.delete(m);
    for (const c of conns) if (c.blackholed && !dropped(c)) c.client.destroy();
    log(`healed ${member ?? 'all members'}`);
  }
  return reply(200, { partitioned: [...partitioned].sort() });
});
controlServer.on('error', (err) => fail(`cannot listen on control address: ${err.message}`));
controlServer.listen(control.port, control.host, () => log(`gating ${gates.map((g) => g.member).join(', ')}; control on ${control?.host}:${control?.port}`));
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) process.on(signal, () => process.exit(0));
