#!/usr/bin/env node
// @ts-check
/**
 * The local HA cluster without containers (`make cluster`): three etcd members whose peer
 * traffic passes through a peer gate, three kapi-apiserver replicas and the kapi-lb balancer,
 * all on 127.0.0.1, in the background. Commands come from deploy/topology.mjs.
 *
 *   deploy/cluster.sh up                     start whatever is not running; return when all is ready
 *   deploy/cluster.sh down [--purge]         stop everything (--purge also deletes the data)
 *   deploy/cluster.sh status | info          a table | JSON (pids, ports, URLs)
 *   deploy/cluster.sh kill <name> [SIGNAL]   SIGKILL (or SIGNAL) one process: etcd-2, kapi-1, lb, ...
 *   deploy/cluster.sh stop|start|restart <name>
 *   deploy/cluster.sh partition <etcd-N>     drop all peer traffic to and from a member
 *   deploy/cluster.sh heal [<etcd-N>]        undo partitions
 *
 * Environment: KAPI_CLUSTER_DIR [.data/cluster], KAPI_CLUSTER_BASE_PORT [16443] (14 consecutive
 * ports; the balancer gets the base port), ETCD_BIN [etcd], KAPI_APISERVER_BIN
 * [packages/apiserver/dist/bundled.js]. The directory remembers its base port (cluster.json).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { etcdHealthy, httpGet, kapiReady, portInUse, waitFor } from './lib/health.mjs';
import { ProcessTable } from './lib/processes.mjs';
import {
  balancer, defaultLocalBasePort, etcdCommand, etcdMembers, kapiCommand, kapiReplicas, lbCommand, localLayout, peerGate,
} from './topology.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const say = (/** @type {string} */ line) => process.stderr.write(`[cluster] ${line}\n`);

/** @typedef {ReturnType<typeof localLayout>} LocalLayout */

/** The cluster directory and base port from the environment and `<dir>/cluster.json`. */
function configure() {
  const envDir = process.env.KAPI_CLUSTER_DIR;
  const dir = envDir ? (isAbsolute(envDir) ? envDir : resolve(process.cwd(), envDir)) : join(root, '.data', 'cluster');
  const stateFile = join(dir, 'cluster.json');
  const envPort = process.env.KAPI_CLUSTER_BASE_PORT ? Number(process.env.KAPI_CLUSTER_BASE_PORT) : undefined;
  if (envPort !== undefined && !(Number.isInteger(envPort) && envPort > 0 && envPort < 65536 - 14)) {
    throw new Error(`KAPI_CLUSTER_BASE_PORT=${process.env.KAPI_CLUSTER_BASE_PORT} is not a usable port`);
  }
  /** @type {{ basePort: number } | undefined} */
  let state;
  if (existsSync(stateFile)) state = JSON.parse(readFileSync(stateFile, 'utf8'));
  if (state && envPort !== undefined && envPort !== state.basePort) {
    throw new Error(`${dir} holds a cluster on base port ${state.basePort}, not ${envPort}: \`deploy/cluster.sh down --purge\` it first or unset KAPI_CLUSTER_BASE_PORT`);
  }
  const basePort = state?.basePort ?? envPort ?? defaultLocalBasePort;
  return { dir, stateFile, basePort, layout: localLayout({ dir, basePort }), table: new ProcessTable(dir) };
}

/** @param {LocalLayout} layout */
function peerGateArgs(layout) {
  return [
    `--control=127.0.0.1:${layout.ports.gateControl}`,
    ...etcdMembers.map((m) => `--gate=${m},127.0.0.1:${layout.ports.etcdGate[m]},127.0.0.1:${layout.ports.etcdPeer[m]}`),
    // Peer traffic is mutual TLS: the gate ends it (to read which member sends) and re-opens it.
    `--tls=${layout.etcdCertDir}/member.crt,${layout.etcdCertDir}/member.key,${layout.etcdCertDir}/ca.crt`,
  ];
}

/**
 * Every process: its command line, the ports it binds, and how to tell it is ready.
 * @param {LocalLayout} layout
 */
function components(layout) {
  const node = process.execPath;
  const apiserver = process.env.KAPI_APISERVER_BIN ?? join(root, 'packages/apiserver/dist/bundled.js');
  const etcd = process.env.ETCD_BIN ?? 'etcd';
  // Extra flags for every replica of this local cluster only (e.g. `--v=3` to log each request while debugging).
  const extraKapiArgs = (process.env.KAPI_CLUSTER_APISERVER_ARGS ?? '').split(/\s+/).filter((a) => a !== '');
  const lbURL = `https://127.0.0.1:${layout.ports.lb}`;
  /** @type {Map<string, { argv: string[], ports: number[], url?: string, ready: () => Promise<boolean> }>} */
  const all = new Map();
  all.set(peerGate, {
    argv: [node, join(root, 'deploy/peer-gate.mjs'), ...peerGateArgs(layout)],
    ports: [layout.ports.gateControl, ...etcdMembers.map((m) => /** @type {number} */ (layout.ports.etcdGate[m]))],
    url: `http://127.0.0.1:${layout.ports.gateControl}`,
    ready: async () => (await httpGet(`http://127.0.0.1:${layout.ports.gateControl}/status`).catch(() => ({ status: 0 }))).status === 200,
  });
  for (const m of etcdMembers) {
    const url = layout.etcd(m).clientURL;
    // Clients must present a certificate on the client port: health is read from the metrics port.
    const health = layout.etcd(m).metricsURL;
    all.set(m, {
      argv: [etcd, ...etcdCommand(m, layout).args],
      ports: [/** @type {number} */ (layout.ports.etcdClient[m]), /** @type {number} */ (layout.ports.etcdPeer[m]), /** @type {number} */ (layout.ports.etcdMetrics[m])],
      url,
      ready: () => etcdHealthy(health),
    });
  }
  for (const r of kapiReplicas) {
    const url = `https://127.0.0.1:${layout.ports.kapi[r]}`;
    all.set(r, { argv: [node, apiserver, ...kapiCommand(r, layout).args, ...extraKapiArgs], ports: [/** @type {number} */ (layout.ports.kapi[r])], url, ready: () => kapiReady(url) });
  }
  all.set(balancer, { argv: [node, join(root, 'deploy/lb.mjs'), ...lbCommand(layout).args], ports: [layout.ports.lb], url: lbURL, ready: () => kapiReady(lbURL) });
  return all;
}

/** @param {ReturnType<typeof configure>} cfg @param {string} name */
function component(cfg, name) {
  const c = components(cfg.layout).get(name);
  if (!c) throw new Error(`unknown process ${JSON.stringify(name)}; one of: ${[...components(cfg.layout).keys()].join(', ')}`);
  return c;
}

/**
 * Starts `name` unless it runs, and waits until it is ready.
 * @param {ReturnType<typeof configure>} cfg @param {string} name
 */
async function startOne(cfg, name, timeoutMs = 60_000) {
  const c = component(cfg, name);
  if (!cfg.table.running(name)) {
    for (const port of c.ports) {
      if (await portInUse(port)) throw new Error(`${name}: port ${port} on 127.0.0.1 is in use (another cluster? set KAPI_CLUSTER_BASE_PORT)`);
    }
    if (name.startsWith('etcd-')) mkdirSync(cfg.layout.etcd(name).dataDir, { recursive: true, mode: 0o700 });
    await cfg.table.start(name, c.argv, { cwd: root });
  }
  try {
    await waitFor(`${name} ready`, c.ready, { timeoutMs, alive: () => cfg.table.running(name) });
  } catch (err) {
    throw new Error(`${/** @type {Error} */ (err).message}; last log lines (${cfg.table.logFile(name)}):\n${cfg.table.logTail(name)}`);
  }
}

/** The kubeconfig at `<dir>/kubeconfig`: the balancer, trusting the replicas' shared certificate when it verifies. */
async function writeKubeconfig(/** @type {ReturnType<typeof configure>} */ cfg) {
  const server = `https://127.0.0.1:${cfg.layout.ports.lb}`;
  const caFile = join(cfg.layout.certDir, 'apiserver.crt');
  let tls = '    insecure-skip-tls-verify: true';
  if (existsSync(caFile)) {
    const verified = await httpGet(`${server}/readyz`, { ca: readFileSync(caFile, 'utf8') }).then((r) => r.status === 200, () => false);
    if (verified) tls = `    certificate-authority: ${caFile}`;
    else say('the shared serving certificate does not verify for 127.0.0.1; the kubeconfig skips TLS verification');
  }
  const path = join(cfg.dir, 'kubeconfig');
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: kapi-cluster
  cluster:
    server: ${server}
${tls}
users:
- name: kapi-admin
  user:
    client-certificate: ${join(cfg.layout.kapiCertDir, 'admin.crt')}
    client-key: ${join(cfg.layout.kapiCertDir, 'admin.key')}
contexts:
- name: kapi-cluster
  context:
    cluster: kapi-cluster
    user: kapi-admin
current-context: kapi-cluster
preferences: {}
`,
    { mode: 0o600 },
  );
  return path;
}

async function up(/** @type {ReturnType<typeof configure>} */ cfg) {
  const started = Date.now();
  const apiserver = /** @type {string} */ (component(cfg, kapiReplicas[0] ?? '').argv[1]);
  if (!existsSync(apiserver)) throw new Error(`${apiserver} is missing (run \`make build\`)`);
  mkdirSync(cfg.dir, { recursive: true });
  writeFileSync(cfg.stateFile, `${JSON.stringify({ basePort: cfg.basePort }, null, 2)}\n`);
  try {
    // etcd's client and peer traffic is mutual TLS: its CA and certificates, made once.
    execFileSync(process.execPath, [join(root, 'deploy/etcd-certs.mjs'), cfg.layout.etcdCertDir, 'localhost', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'inherit'] });
    await startOne(cfg, peerGate);
    say(`etcd: ${etcdMembers.map((m) => `${m} ${cfg.layout.etcd(m).clientURL}`).join(', ')}`);
    await Promise.all(etcdMembers.map((m) => startOne(cfg, m)));
    // The first replica generates the serving pair in the shared --cert-dir; the others reuse it,
    // so all replicas behind the balancer present one certificate.
    const [first, ...rest] = kapiReplicas;
    if (!existsSync(join(cfg.layout.certDir, 'apiserver.crt')) && first) await startOne(cfg, first);
    say(`kapi: ${kapiReplicas.map((r) => `${r} https://127.0.0.1:${cfg.layout.ports.kapi[r]}`).join(', ')}`);
    await Promise.all([first, ...rest].map((r) => startOne(cfg, /** @type {string} */ (r))));
    await startOne(cfg, balancer);
  } catch (err) {
    say(`error: ${/** @type {Error} */ (err).message}`);
    say('stopping what was started');
    await down(cfg, false);
    process.exitCode = 1;
    return;
  }
  const kubeconfig = await writeKubeconfig(cfg);
  const shown = relative(process.cwd(), kubeconfig).startsWith('..') ? kubeconfig : relative(process.cwd(), kubeconfig);
  process.stdout.write(`
  kapi cluster is up in ${((Date.now() - started) / 1000).toFixed(1)} s: https://127.0.0.1:${cfg.layout.ports.lb} (kapi-lb over kapi-1..3, etcd-1..3)

    kubectl --kubeconfig ${shown} get ns
    export KUBECONFIG=${kubeconfig}

    deploy/cluster.sh status                 processes, pids, health
    deploy/cluster.sh kill etcd-2            (or kapi-1, lb, ...); restart etcd-2
    deploy/cluster.sh partition etcd-3       drop its peer traffic; heal etcd-3
    make cluster-down                        stop everything (data stays in ${cfg.dir})

  Logs: ${cfg.table.logDir}
`);
}

/**
 * Stops the balancer, the replicas, etcd and the gate, in that order. etcd members stop one at
 * a time: stopped together, a leader waits seconds for a leadership transfer nobody can take.
 */
async function down(/** @type {ReturnType<typeof configure>} */ cfg, purge = false) {
  const stages = [[balancer], [...kapiReplicas], ...etcdMembers.map((m) => [m]), [peerGate]];
  const stopped = [];
  for (const stage of stages) {
    const results = await Promise.all(stage.map(async (name) => ((await cfg.table.stop(name)) ? name : undefined)));
    stopped.push(...results.filter((n) => n !== undefined));
  }
  const left = [...components(cfg.layout).keys()].filter((n) => cfg.table.running(n));
  if (left.length > 0) throw new Error(`still running: ${left.join(', ')}`);
  say(stopped.length > 0 ? `stopped ${stopped.join(', ')}` : 'nothing was running');
  if (purge && existsSync(cfg.stateFile)) {
    rmSync(cfg.dir, { recursive: true, force: true });
    say(`deleted ${cfg.dir}`);
  }
}

async function info(/** @type {ReturnType<typeof configure>} */ cfg) {
  /** @type {Record<string, unknown>} */
  const procs = {};
  for (const [name, c] of components(cfg.layout)) {
    procs[name] = { pid: cfg.table.pid(name) ?? null, url: c.url ?? null, ports: c.ports, log: cfg.table.logFile(name), argv: cfg.table.record(name)?.argv ?? c.argv };
  }
  return {
    dir: cfg.dir,
    basePort: cfg.basePort,
    kubeconfig: join(cfg.dir, 'kubeconfig'),
    server: `https://127.0.0.1:${cfg.layout.ports.lb}`,
    certDir: cfg.layout.certDir,
    // The admin client certificate (system:masters) the kubeconfig uses.
    clientCertificate: join(cfg.layout.kapiCertDir, 'admin.crt'),
    clientKey: join(cfg.layout.kapiCertDir, 'admin.key'),
    processes: procs,
  };
}

async function status(/** @type {ReturnType<typeof configure>} */ cfg) {
  const rows = await Promise.all(
    [...components(cfg.layout)].map(async ([name, c]) => {
      const pid = cfg.table.pid(name);
      const health = pid === undefined ? '-' : (await c.ready()) ? 'ready' : 'NOT READY';
      return [name, pid === undefined ? 'stopped' : String(pid), health, c.url ?? ''];
    }),
  );
  const gate = await httpGet(`http://127.0.0.1:${cfg.layout.ports.gateControl}/status`).then((r) => JSON.parse(r.body), () => undefined);
  const widths = [10, 9, 10];
  process.stdout.write(`${['NAME', 'PID', 'HEALTH', 'URL'].map((h, i) => h.padEnd(widths[i] ?? 0)).join(' ')}\n`);
  for (const row of rows) process.stdout.write(`${row.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' ')}\n`);
  if (gate && gate.partitioned.length > 0) process.stdout.write(`partitioned: ${gate.partitioned.join(', ')}\n`);
}

/** POSTs to the peer gate's control endpoint. */
async function gateControl(/** @type {ReturnType<typeof configure>} */ cfg, /** @type {string} */ path) {
  const res = await httpGet(`http://127.0.0.1:${cfg.layout.ports.gateControl}${path}`, { method: 'POST' }).catch((err) => {
    throw new Error(`the peer gate does not answer (is the cluster up?): ${err.message}`);
  });
  if (res.status !== 200) throw new Error(`peer gate: ${res.body.trim()}`);
  return JSON.parse(res.body);
}

async function main() {
  const [verb, ...args] = process.argv.slice(2);
  const cfg = configure();
  const name = args[0] ?? '';
  switch (verb) {
    case 'up':
      return up(cfg);
    case 'down':
      return down(cfg, args.includes('--purge'));
    case 'status':
      return status(cfg);
    case 'info':
      return void process.stdout.write(`${JSON.stringify(await info(cfg), null, 2)}\n`);
    case 'kill':
    case 'stop': {
      component(cfg, name);
      const signal = /** @type {NodeJS.Signals} */ (args[1] ?? (verb === 'kill' ? 'SIGKILL' : 'SIGTERM'));
      const pid = cfg.table.pid(name);
      const wasRunning = await cfg.table.stop(name, { signal });
      return say(wasRunning ? `${name} (pid ${pid}) stopped with ${signal}` : `${name} was not running`);
    }
    case 'start':
      await startOne(cfg, name);
      return say(`${name} is running (pid ${cfg.table.pid(name)}) and ready`);
    case 'restart':
      component(cfg, name);
      await cfg.table.stop(name);
      await startOne(cfg, name);
      return say(`${name} restarted (pid ${cfg.table.pid(name)}) and ready`);
    case 'partition': {
      if (!etcdMembers.includes(/** @type {never} */ (name))) throw new Error(`partition takes an etcd member: ${etcdMembers.join(', ')}`);
      const result = await gateControl(cfg, `/partition/${name}`);
      return say(`partitioned: ${result.partitioned.join(', ')}`);
    }
    case 'heal': {
      const result = await gateControl(cfg, name ? `/heal/${name}` : '/heal');
      return say(result.partitioned.length > 0 ? `still partitioned: ${result.partitioned.join(', ')}` : 'no partitions');
    }
    default:
      process.stderr.write(`usage: deploy/cluster.sh up | down [--purge] | status | info | kill <name> [SIGNAL] | stop|start|restart <name> | partition <etcd-N> | heal [<etcd-N>]
names: ${[...components(cfg.layout).keys()].join(', ')}\n`);
      process.exitCode = 2;
  }
}

main().catch((err) => {
  say(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
