// CPU per unary etcd call of kapi's own gRPC client (packages/storage/dist/etcd/grpc): a real
// etcd on free ports (the storage tests' fixture), --count quorum Ranges of one 1 KiB key and
// --count create-shaped Txns (compare mod_revision = 0, put 1 KiB, failure range) at
// --concurrency, after --warmup unmeasured calls of each; this process's CPU time
// (process.cpuUsage, user + system) per call, --rounds times alternating the two. etcd runs
// pinned to the last core and this process to the first when --pin is given (taskset).
//   node scripts/bench-etcd-client.mjs [--root DIR] [--count 20000] [--warmup 5000]
//        [--concurrency 16] [--rounds 3] [--tls] [--pin] [--transport http2|frames|both]
// --transport both measures the two transports of createEtcdUnaryClient in this one process,
// rounds alternating them too. With --cpu-prof-dir DIR, one extra profiled round of each call
// (and transport) goes to DIR (node:inspector).
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const flag = (name) => process.argv.includes(`--${name}`);
const root = resolve(arg('root', new URL('..', import.meta.url).pathname));
const count = Number(arg('count', '20000'));
const warmup = Number(arg('warmup', '5000'));
const rounds = Number(arg('rounds', '3'));
const concurrency = Number(arg('concurrency', '16'));
const transportArg = arg('transport', 'http2');
const transports = transportArg === 'both' ? ['http2', 'frames'] : [transportArg];
const profileDir = arg('cpu-prof-dir', undefined);

const { startEtcd } = await import(`${root}/packages/storage/dist/testing/index.js`);
const { createEtcdUnaryClient } = await import(`${root}/packages/storage/dist/etcd/grpc/unary-client.js`);

const etcd = await startEtcd({ tls: flag('tls') });
if (flag('pin')) {
  const last = cpus().length - 1;
  const pids = execFileSync('pgrep', ['-f', '--', `--data-dir=${etcd.dataDir}`], { encoding: 'utf8' }).trim().split('\n');
  for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', String(last), pid], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}
const tls = etcd.tls !== undefined ? { caFile: etcd.tls.caFile, certFile: etcd.tls.certFile, keyFile: etcd.tls.keyFile } : undefined;
const clients = Object.fromEntries(transports.map((transport) => [transport, createEtcdUnaryClient(etcd.endpoints, { ...(tls !== undefined ? { tls } : {}), transport })]));
const T = 10_000;
const value = Buffer.alloc(1024, 'v');
const readKey = Buffer.from('/registry/configmaps/default/bench-read');
await clients[transports[0]].put({ key: readKey, value }, T);
let serial = 0;
const calls = {
  range: async (client) => {
    const res = await client.range({ key: readKey }, T);
    if (res.kvs.length !== 1 || res.kvs[0].value.length !== value.length) throw new Error('range: unexpected answer');
  },
  txn: async (client) => {
    const key = Buffer.from(`/registry/configmaps/default/bench-${serial++}`);
    const res = await client.txn(
      {
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key, value } }],
        failure: [{ request_range: { key } }],
      },
      T,
    );
    if (!res.succeeded) throw new Error('txn: unexpected answer');
  },
};

async function run(op, transport, n) {
  const client = clients[transport];
  const call = calls[op];
  let left = n;
  const worker = async () => {
    while (left-- > 0) await call(client);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function measure(op, transport, n) {
  const start = process.cpuUsage();
  const wall = process.hrtime.bigint();
  await run(op, transport, n);
  const cpu = process.cpuUsage(start);
  const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
  return { op, transport, userUs: cpu.user / n, systemUs: cpu.system / n, cpuUs: (cpu.user + cpu.system) / n, perSecond: n / seconds };
}

const fmt = (r) => `${r.op.padEnd(5)} ${r.transport.padEnd(6)} ${r.cpuUs.toFixed(1).padStart(6)} µs CPU/call (user ${r.userUs.toFixed(1)}, sys ${r.systemUs.toFixed(1)})  ${r.perSecond.toFixed(0)} calls/s`;
try {
  for (const transport of transports) {
    await run('range', transport, warmup);
    await run('txn', transport, warmup);
  }
  const results = new Map();
  const pairs = transports.flatMap((transport) => ['range', 'txn'].map((op) => [op, transport]));
  for (let round = 0; round < rounds; round++) {
    for (const [op, transport] of round % 2 === 0 ? pairs : pairs.toReversed()) {
      const r = await measure(op, transport, count);
      results.set(`${op} ${transport}`, [...(results.get(`${op} ${transport}`) ?? []), r]);
      console.log(`round ${round + 1}: ${fmt(r)}`);
    }
  }
  for (const [name, rs] of results) {
    const sorted = rs.map((r) => r.cpuUs).sort((a, b) => a - b);
    console.log(`${name}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs CPU/call (min ${sorted[0].toFixed(1)}, max ${sorted.at(-1).toFixed(1)}) over ${rounds} rounds of ${count}, concurrency ${concurrency}${flag('tls') ? ', TLS' : ''}`);
  }
  if (profileDir !== undefined) {
    mkdirSync(profileDir, { recursive: true });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    for (const [op, transport] of pairs) {
      await session.post('Profiler.start');
      await run(op, transport, count);
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(profileDir, `${op}-${transport}.cpuprofile`), JSON.stringify(profile));
    }
    session.disconnect();
    console.log(`profiles: ${profileDir}/{range,txn}-{${transports.join(',')}}.cpuprofile`);
  }
} finally {
  for (const client of Object.values(clients)) client.close();
  await etcd.stop();
}
