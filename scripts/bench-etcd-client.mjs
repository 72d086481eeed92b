// CPU per unary etcd call of kapi's own gRPC client (packages/storage/dist/etcd/grpc): a real
// etcd on free ports (the storage tests' fixture), --count quorum Ranges of one 1 KiB key and
// --count create-shaped Txns (compare mod_revision = 0, put 1 KiB, failure range) at
// --concurrency, after --warmup unmeasured calls of each; this process's CPU time
// (process.cpuUsage, user + system) per call, --rounds times alternating the two. etcd runs
// pinned to the last core and this process to the first when --pin is given (taskset).
//   node scripts/bench-etcd-client.mjs [--root DIR] [--count 20000] [--warmup 5000]
//        [--concurrency 16] [--rounds 3] [--tls] [--pin] [--transport http2|frames]
// With --cpu-prof-dir DIR, one extra profiled round of each goes to DIR (node:inspector).
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
const transport = arg('transport', undefined);
const profileDir = arg('cpu-prof-dir', undefined);

const { startEtcd } = await import(`${root}/packages/storage/dist/testing/index.js`);
const { createEtcdUnaryClient } = await import(`${root}/packages/storage/dist/etcd/grpc/unary-client.js`);

const etcd = await startEtcd({ tls: flag('tls') });
if (flag('pin')) {
  const last = cpus().length - 1;
  const pids = execFileSync('pgrep', ['-f', `--data-dir ${etcd.dataDir}`], { encoding: 'utf8' }).trim().split('\n');
  for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', String(last), pid], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}
const tls = etcd.tls !== undefined ? { caFile: etcd.tls.caFile, certFile: etcd.tls.certFile, keyFile: etcd.tls.keyFile } : undefined;
const client = createEtcdUnaryClient(etcd.endpoints, { ...(tls !== undefined ? { tls } : {}), ...(transport !== undefined ? { transport } : {}) });
const T = 10_000;
const value = Buffer.alloc(1024, 'v');
const readKey = Buffer.from('/registry/configmaps/default/bench-read');
await client.put({ key: readKey, value }, T);
let serial = 0;
const ops = {
  range: () => client.range({ key: readKey }, T),
  txn: () => {
    const key = Buffer.from(`/registry/configmaps/default/bench-${serial++}`);
    return client.txn(
      {
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key, value } }],
        failure: [{ request_range: { key } }],
      },
      T,
    );
  },
};

async function run(op, n) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) await ops[op]();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function measure(op, n) {
  const start = process.cpuUsage();
  const wall = process.hrtime.bigint();
  await run(op, n);
  const cpu = process.cpuUsage(start);
  const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
  return { op, userUs: cpu.user / n, systemUs: cpu.system / n, cpuUs: (cpu.user + cpu.system) / n, perSecond: n / seconds };
}

const fmt = (r) => `${r.op.padEnd(5)} ${r.cpuUs.toFixed(1).padStart(6)} µs CPU/call (user ${r.userUs.toFixed(1)}, sys ${r.systemUs.toFixed(1)})  ${r.perSecond.toFixed(0)} calls/s`;
try {
  await run('range', warmup);
  await run('txn', warmup);
  const results = { range: [], txn: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['range', 'txn'] : ['txn', 'range'];
    for (const op of order) {
      const r = await measure(op, count);
      results[op].push(r);
      console.log(`round ${round + 1}: ${fmt(r)}`);
    }
  }
  for (const op of ['range', 'txn']) {
    const sorted = results[op].map((r) => r.cpuUs).sort((a, b) => a - b);
    console.log(`${op}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs CPU/call (min ${sorted[0].toFixed(1)}, max ${sorted.at(-1).toFixed(1)}) over ${rounds} rounds of ${count}, concurrency ${concurrency}${flag('tls') ? ', TLS' : ''}${transport !== undefined ? `, transport ${transport}` : ''}`);
  }
  if (profileDir !== undefined) {
    mkdirSync(profileDir, { recursive: true });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    for (const op of ['range', 'txn']) {
      await session.post('Profiler.start');
      await run(op, count);
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(profileDir, `${op}.cpuprofile`), JSON.stringify(profile));
    }
    session.disconnect();
    console.log(`profiles: ${profileDir}/{range,txn}.cpuprofile`);
  }
} finally {
  client.close();
  await etcd.stop();
}
