// Server CPU per create of a 3-container Pod and of a ConfigMap (1 KiB of data): one etcd, one
// kapi-apiserver (the build under --root, default this checkout), a keep-alive JSON client at
// --concurrency; the server's own CPU time (/proc, user + system) over --count creates after
// --warmup unmeasured ones, --rounds times alternating the kinds. For comparing builds:
//   node scripts/bench-create-cpu.mjs [--root DIR] [--count 1500] [--warmup 500] [--rounds 2]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Agent, fetch, setGlobalDispatcher } from 'undici';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const root = resolve(arg('root', new URL('..', import.meta.url).pathname));
const count = Number(arg('count', '1500'));
const warmup = Number(arg('warmup', '500'));
const rounds = Number(arg('rounds', '2'));
const concurrency = Number(arg('concurrency', '8'));

const { startEtcd } = await import(`${root}/packages/storage/dist/testing/index.js`);
const { startComparedKapi } = await import(`${root}/packages/bench/dist/kube-server.js`);

setGlobalDispatcher(new Agent({ connections: concurrency, pipelining: 1, connect: { rejectUnauthorized: false } }));

const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, clock ticks (1/100 s)
};

const container = (i) => ({
  name: `c${i}`, image: `registry.example/app:${i}`, command: ['/bin/app'], args: ['--port', '8080'],
  ports: [{ name: 'http', containerPort: 8080 + i, protocol: 'TCP' }],
  env: [{ name: 'A', value: '1' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
  resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
  volumeMounts: [{ name: 'data', mountPath: '/data' }],
  livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
});
const bodies = {
  pod: (n) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n, labels: { app: 'bench' } }, spec: { automountServiceAccountToken: false, containers: [container(0), container(1), container(2)], volumes: [{ name: 'data', emptyDir: {} }] } }),
  configmap: (n) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(1024) } }),
};
const paths = { pod: 'pods', configmap: 'configmaps' };

const etcd = await startEtcd();
const server = await startComparedKapi({ etcdServers: etcd.endpoints, workers: 1 });
const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'user-agent': 'bench-create-cpu' };
let serial = 0;
async function post(path, body) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
}
async function creates(kind, n) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) await post(`/api/v1/namespaces/default/${paths[kind]}`, bodies[kind](`${kind}-${serial++}`));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
try {
  await post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'default' } }).catch(() => {});
  const results = { pod: [], configmap: [] };
  for (const kind of ['pod', 'configmap']) await creates(kind, warmup);
  for (let r = 0; r < rounds; r++) {
    for (const kind of ['pod', 'configmap']) {
      const pid = server.pid();
      const before = cpuTicks(pid);
      const start = process.hrtime.bigint();
      await creates(kind, count);
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      const cpuMs = ((cpuTicks(pid) - before) * 10) / count;
      results[kind].push(cpuMs);
      process.stdout.write(`${root} round ${r + 1} ${kind}: ${(cpuMs * 1000).toFixed(0)} µs server CPU per create, ${(count / wall).toFixed(0)} creates/s\n`);
    }
  }
  for (const kind of ['pod', 'configmap']) {
    const v = results[kind];
    process.stdout.write(`${root} ${kind}: mean ${((v.reduce((a, b) => a + b, 0) / v.length) * 1000).toFixed(0)} µs/create, min ${(Math.min(...v) * 1000).toFixed(0)}\n`);
  }
} finally {
  await server.stop();
  await etcd.stop();
}
