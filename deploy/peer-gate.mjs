#!/usr/bin/env node
// @ts-check
/**
 * kapi-peer-gate: carries the etcd members' peer (raft) traffic of the local cluster and drops
 * it on demand, to partition a member without root, iptables or network namespaces. The gates
 * are `openPeerGates` of @kapi/storage (packages/storage/src/testing/peer-gate.ts, which the
 * storage tests' etcd clusters use too; needs `make build`); this file is their command line
 * and HTTP control.
 *
 *   node deploy/peer-gate.mjs --control=127.0.0.1:16444 \
 *     --gate=etcd-1,127.0.0.1:16454,127.0.0.1:16451 --gate=etcd-2,... --gate=etcd-3,... [--tls=member.crt,member.key,ca.crt]
 *
 * Control (HTTP on --control): POST /partition/<member>, POST /heal/<member>, POST /heal,
 * GET /status → {"partitioned": [...], "connections": {...}}.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { openPeerGates } from '@kapi/storage/testing/peer-gate';

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

/** @type {import('@kapi/storage/testing/peer-gate').PeerGateSpec[]} */
const specs = [];
let control;
/** @type {{ cert: string, key: string, ca: string } | undefined} */
let tls;
for (const arg of process.argv.slice(2)) {
  const m = /^--(gate|control|tls)=(.*)$/.exec(arg) ?? fail(`unexpected argument ${JSON.stringify(arg)}`);
  if (m[1] === 'control') control = splitHostPort(m[2] ?? '');
  else if (m[1] === 'tls') {
    // --tls=<cert file>,<key file>,<ca file>: peer traffic is mutual TLS (the gate ends and re-opens it).
    const [cert, key, ca] = (m[2] ?? '').split(',');
    if (!cert || !key || !ca) fail(`--tls wants <cert>,<key>,<ca> files, got ${JSON.stringify(m[2])}`);
    tls = { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8'), ca: readFileSync(ca, 'utf8') };
  }
  else {
    const [member, listen, target] = (m[2] ?? '').split(',');
    if (!member || !listen || !target) fail(`--gate wants <member>,<listen host:port>,<member's peer host:port>, got ${JSON.stringify(m[2])}`);
    specs.push({ member, listen: splitHostPort(listen), target: splitHostPort(target) });
  }
}
if (!control || specs.length === 0) fail('--control and at least one --gate are required');

const gates = await openPeerGates(specs, tls !== undefined ? { tls } : {}).catch((/** @type {Error} */ err) => fail(err.message));

const controlServer = http.createServer((req, res) => {
  const [, verb, member] = /^\/(partition|heal|status)(?:\/([^/?]+))?\/?$/.exec(req.url ?? '') ?? [];
  const reply = (/** @type {number} */ code, /** @type {unknown} */ body) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(`${JSON.stringify(body)}\n`);
  };
  if (member !== undefined && !specs.some((g) => g.member === member)) return reply(404, { error: `unknown member ${member}` });
  if (verb === 'status' && req.method === 'GET') return reply(200, { partitioned: gates.partitioned(), connections: gates.connections() });
  if (req.method !== 'POST' || (verb === 'partition' && member === undefined)) return reply(405, { error: 'use POST /partition/<member>, POST /heal[/<member>] or GET /status' });
  if (verb === 'partition') {
    gates.partition(/** @type {string} */ (member));
    log(`partitioned ${member}`);
  } else {
    gates.heal(member);
    log(`healed ${member ?? 'all members'}`);
  }
  return reply(200, { partitioned: gates.partitioned() });
});
controlServer.on('error', (err) => fail(`cannot listen on control address: ${err.message}`));
controlServer.listen(control.port, control.host, () => log(`gating ${specs.map((g) => g.member).join(', ')}; control on ${control?.host}:${control?.port}`));
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) process.on(signal, () => process.exit(0));
