#!/usr/bin/env node
// How long kapi-apiserver takes to start: process start → first HTTP answer (/livez), and →
// the ConfigMap watch cache answering an RV=0 list, with the CPU the process had used at each
// (wall time on a loaded machine varies; CPU time much less). Starts its own etcd, stores
// N ConfigMaps of 1 KiB straight into it (copies of one created through the API), then starts
// the server R times on the same etcd.
//
//   node scripts/boot-time.mjs [--objects 50000] [--runs 5] [--binary path/to/entry.js] [--binary other.js ...]
//     [--node-arg --cpu-prof --sigterm]   (a profile needs a graceful exit)
//
// With several --binary the runs alternate between them. Prints one line per run and a summary.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startEtcd, freePort } from '@kapi/storage/testing';
import { defaultApiserverBinary } from '@kapi/apiserver/testing';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../packages/storage/package.json', import.meta.url));
const { Etcd3 } = require('etcd3');

const args = process.argv.slice(2);
let objects = 50_000;
let runs = 5;
const binaries = [];
const nodeArgs = [];
let stopSignal = 'SIGKILL';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--objects') objects = Number(args[++i]);
  else if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--binary') binaries.push(args[++i]);
  else if (args[i] === '--node-arg') nodeArgs.push(args[++i]);
  else if (args[i] === '--sigterm') stopSignal = 'SIGTERM';
  else throw new Error(`unknown argument ${args[i]}`);
}
if (binaries.length === 0) binaries.push(defaultApiserverBinary);

const get = (url) =>
  new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
const send = (url, method, body) =>
  new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });

/** utime+stime of pid in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

// One --cert-dir for every start: the first generates the serving pair, the others reuse it (as a restart does).
const certDir = mkdtempSync(join(tmpdir(), 'kapi-boot-'));

async function startServer(binary, etcd, port) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, binary, `--etcd-servers=${etcd}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, `--insecure-port=${port}`, '--insecure-bind-address=127.0.0.1', `--cert-dir=${certDir}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  let listening = 0;
  let listeningCpu = Number.NaN;
  let ready = 0;
  let readyCpu = Number.NaN;
  const deadline = t0 + 120_000;
  const livez = (async () => {
    while (listening === 0 && performance.now() < deadline && child.exitCode === null) {
      try {
        await get(`${url}/livez`);
        listening = performance.now();
        listeningCpu = cpuMs(child.pid);
      } catch {
        await sleep(5);
      }
    }
  })();
  const cache = (async () => {
    while (ready === 0 && performance.now() < deadline && child.exitCode === null) {
      try {
        const res = await get(`${url}/api/v1/configmaps?resourceVersion=0&labelSelector=none%3Dnone`);
        if (res.status === 200) {
          ready = performance.now();
          readyCpu = cpuMs(child.pid);
        } else await sleep(5);
      } catch {
        await sleep(5);
      }
    }
  })();
  await Promise.all([livez, cache]);
  if (ready === 0) throw new Error(`server did not get ready: ${stderr.slice(-2000)}`);
  const fallback = /^kapi-apiserver: starting from dist\/bin\.js.*$/m.exec(stderr);
  if (fallback !== null) process.stderr.write(`${binary}: ${fallback[0]}\n`);
  let fillMs = Number.NaN;
  const metrics = (await get(`${url}/metrics`)).body.split('\n').find((l) => l.startsWith('apiserver_watch_cache_initialization_duration_seconds_sum{') && l.includes('resource="configmaps"'));
  if (metrics !== undefined) fillMs = Number(metrics.slice(metrics.lastIndexOf(' ') + 1)) * 1000;
  return {
    url,
    // bootMs: start → the ConfigMap cache created (its fill, from the server's metric, is the rest).
    result: { listeningMs: listening - t0, listeningCpuMs: listeningCpu, readyMs: ready - t0, readyCpuMs: readyCpu, fillMs, bootMs: ready - t0 - fillMs },
    async stop() {
      // The SIGTERM handler is installed once the server has started (after its post-start hooks).
      if (stopSignal === 'SIGTERM') await sleep(5000);
      child.kill(stopSignal);
      const code = await exited;
      if (stopSignal === 'SIGTERM' && code !== 0) process.stderr.write(`server exit ${code}: ${stderr.slice(-1000)}\n`);
    },
  };
}

const etcd = await startEtcd();
const endpoint = etcd.endpoints[0];
const port = await freePort();
try {
  // A first start writes the serving pair into the cert dir (and the first binary's code
  // cache, a second after it started), and stores the objects.
  const s = await startServer(binaries[0], endpoint, port);
  if (objects === 0) {
    await sleep(3000);
    await s.stop();
  } else {
    // Names of one length: the copies are the stored bytes (protobuf or JSON) with the name,
    // namespace and uid replaced in place.
    const namespaces = Array.from({ length: 100 }, (_, i) => `boot-${String(i).padStart(2, '0')}`);
    const name = (j) => `cm-${String(j).padStart(6, '0')}`;
    for (const ns of namespaces) await send(`${s.url}/api/v1/namespaces`, 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const res = await send(`${s.url}/api/v1/namespaces/${namespaces[0]}/configmaps`, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(0) }, data: { d: 'x'.repeat(1024) } });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.body}`);
    const uid = JSON.parse(res.body).metadata.uid;
    const client = new Etcd3({ hosts: endpoint, grpcOptions: { 'grpc.max_receive_message_length': 2 ** 31 - 1 } });
    const stored = await client.get(`/registry/configmaps/${namespaces[0]}/${name(0)}`).buffer();
    const replaceAll = (buf, from, to) => {
      for (let at = buf.indexOf(from); at >= 0; at = buf.indexOf(from, at + to.length)) to.copy(buf, at);
    };
    for (let i = 1; i < objects; i += 100) {
      const ops = [];
      for (let j = i; j < Math.min(objects, i + 100); j++) {
        const ns = namespaces[j % namespaces.length];
        const copy = Buffer.from(stored);
        replaceAll(copy, Buffer.from(name(0)), Buffer.from(name(j)));
        replaceAll(copy, Buffer.from(namespaces[0]), Buffer.from(ns));
        replaceAll(copy, Buffer.from(uid), Buffer.from(randomUUID()));
        ops.push(client.put(`/registry/configmaps/${ns}/${name(j)}`).value(copy));
      }
      await client.if('/registry/none', 'Version', '==', 0).then(...ops).commit();
    }
    client.close();
    await s.stop();
    process.stderr.write(`stored ${objects} ConfigMaps\n`);
  }
  const all = new Map(binaries.map((b) => [b, []]));
  for (let r = 0; r < runs; r++) {
    for (const binary of binaries) {
      const s = await startServer(binary, endpoint, port);
      await s.stop();
      all.get(binary).push(s.result);
      const x = s.result;
      console.log(`${binary}: listening ${x.listeningMs.toFixed(0)} ms (cpu ${x.listeningCpuMs}), cache ready ${x.readyMs.toFixed(0)} ms (cpu ${x.readyCpuMs}), fill ${x.fillMs.toFixed(0)} ms, boot before the fill ${x.bootMs.toFixed(0)} ms`);
    }
  }
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  };
  for (const [binary, rs] of all) {
    const col = (k) => `${k} median ${med(rs.map((r) => r[k])).toFixed(0)} min ${Math.min(...rs.map((r) => r[k])).toFixed(0)}`;
    console.log(`${binary} (${rs.length} runs): ${['listeningMs', 'listeningCpuMs', 'readyMs', 'readyCpuMs', 'fillMs', 'bootMs'].map(col).join('; ')}`);
  }
} finally {
  await etcd.stop();
  rmSync(certDir, { recursive: true, force: true });
}
