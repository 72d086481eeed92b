import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPort, listensOn } from './free-port.js';

export interface StartEtcdOptions {
  /** The etcd binary; default `$KAPI_ETCD_BIN` or `etcd` from PATH. */
  binary?: string;
  /** Extra command-line flags, for example `['--auto-compaction-retention=1']`. */
  extraArgs?: string[];
  /**
   * How often etcd sends progress notifications to quiet watches that asked for them
   * (`--experimental-watch-progress-notify-interval`; etcd's default is 10 minutes). Watch
   * tests that wait for BOOKMARKs set it short, e.g. 250.
   */
  watchProgressNotifyIntervalMs?: number;
  /** How long to wait for etcd to report healthy; default 20000 ms. */
  startTimeoutMs?: number;
  /** Copy etcd's output to this process's stderr (default false; `KAPI_ETCD_VERBOSE=1` too). */
  verbose?: boolean;
  /**
   * Serve clients over TLS and require a client certificate signed by a test CA (etcd's
   * `--client-cert-auth`): the endpoints are `https://`, and `tls` on the result holds the CA
   * and a client certificate and key. Default false.
   */
  tls?: boolean;
}

/** PEM files (made with openssl) for an etcd started with `tls: true`. */
export interface TestEtcdTls {
  /** The CA that signed etcd's serving certificate and the client certificate. */
  readonly caFile: string;
  /** A client certificate etcd accepts (CN=kapi-etcd-client) and its key. */
  readonly certFile: string;
  readonly keyFile: string;
  /** The folder holding them (removed by `stop`). */
  readonly dir: string;
}

/** A real etcd started for a test, on free loopback ports with a temporary data dir. */
export interface TestEtcd {
  /** Client URLs, e.g. `["http://127.0.0.1:40123"]`. Stable across `kill`/`restart`. */
  readonly endpoints: string[];
  /** The temporary data directory (removed by `stop`). */
  readonly dataDir: string;
  /** With `tls: true`: the CA and client certificate files. */
  readonly tls?: TestEtcdTls;
  /** Whether the etcd process is currently running. */
  running(): boolean;
  /**
   * Stops etcd (SIGTERM, then SIGKILL after 5 s) and deletes the data dir. Idempotent; the
   * instance cannot be restarted afterwards.
   */
  stop(): Promise<void>;
  /**
   * Sends `signal` (default SIGKILL) and waits for the process to exit. Keeps the data dir
   * and ports so that `restart()` brings the same cluster back. Used to inject faults.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Freezes etcd (SIGSTOP) and returns once every thread has stopped: connections stay open but nothing answers — a hung server. */
  pause(): void;
  /** Unfreezes etcd after `pause()` (SIGCONT). */
  resume(): void;
  /** Stops etcd if it is running (SIGTERM) and starts it again on the same ports and data. */
  restart(): Promise<void>;
}

const live = new Set<{ child: ChildProcess | undefined; dataDir: string; certDir?: string }>();
let exitHandlersInstalled = false;

/** Last-resort cleanup: kill every etcd we started and delete its data, synchronously. */
function cleanupAllSync(): void {
  for (const entry of live) {
    try {
      entry.child?.kill('SIGKILL');
    } catch {
      // already gone
    }
    rmSync(entry.dataDir, { recursive: true, force: true });
    if (entry.certDir !== undefined) rmSync(entry.certDir, { recursive: true, force: true });
  }
  live.clear();
}

function installExitHandlers(): void {
  if (exitHandlersInstalled) return;
  exitHandlersInstalled = true;
  process.on('exit', cleanupAllSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      cleanupAllSync();
      // Re-raise with the default action now that our handler is gone.
      process.kill(process.pid, signal);
    });
  }
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A CA, a serving certificate for 127.0.0.1/localhost and a client certificate, with openssl. */
function makeEtcdCertificates(): TestEtcdTls & { serverCertFile: string; serverKeyFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-etcd-tls-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...newKey, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=kapi-etcd-test-ca']);
  const sign = (name: string, subject: string, extensions: string) => {
    run(['req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    writeFileSync(join(dir, `${name}.ext`), extensions);
    run(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '1', '-extfile', `${name}.ext`]);
  };
  sign('server', '/CN=etcd', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  sign('client', '/CN=kapi-etcd-client', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'client.crt'),
    keyFile: join(dir, 'client.key'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
  };
}

function isHealthyTls(clientUrl: string, tls: TestEtcdTls): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${clientUrl}/health`, {
      ca: readFileSync(tls.caFile),
      cert: readFileSync(tls.certFile),
      key: readFileSync(tls.keyFile),
      timeout: 1000,
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 && (JSON.parse(body) as { health?: string }).health === 'true');
        } catch {
          resolve(false);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function isHealthy(clientUrl: string, tls?: TestEtcdTls): Promise<boolean> {
  if (tls !== undefined) return isHealthyTls(clientUrl, tls);
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Launches the real `etcd` binary as a single-member cluster on free 127.0.0.1 ports (client
 * and peer) with a fresh temporary data dir, and resolves once `/health` reports healthy.
 * Retries with new ports when the chosen ports were taken. The process and data dir are
 * removed by `stop()`, and also when this process exits or gets SIGINT/SIGTERM/SIGHUP.
 * Rejects (after cleaning up) if etcd does not become healthy within `startTimeoutMs`.
 */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<TestEtcd> {
  installExitHandlers();
  const binary = options.binary ?? process.env.KAPI_ETCD_BIN ?? 'etcd';
  const verbose = options.verbose ?? process.env.KAPI_ETCD_VERBOSE === '1';
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const dataDir = mkdtempSync(join(tmpdir(), 'kapi-etcd-'));
  const certs = options.tls === true ? makeEtcdCertificates() : undefined;
  const entry: { child: ChildProcess | undefined; dataDir: string; certDir?: string } = { child: undefined, dataDir, ...(certs ? { certDir: certs.dir } : {}) };
  live.add(entry);
  const scheme = certs !== undefined ? 'https' : 'http';

  let clientUrl = '';
  let peerUrl = '';
  let stopped = false;

  const launch = async (): Promise<void> => {
    const name = 'kapi-test';
    const args = [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${name}=${peerUrl}`,
      '--initial-cluster-state=new',
      ...(certs !== undefined
        ? [`--cert-file=${certs.serverCertFile}`, `--key-file=${certs.serverKeyFile}`, `--trusted-ca-file=${certs.caFile}`, '--client-cert-auth']
        : []),
      '--logger=zap',
      `--log-level=${verbose ? 'info' : 'error'}`,
      ...(options.watchProgressNotifyIntervalMs !== undefined
        ? [`--experimental-watch-progress-notify-interval=${options.watchProgressNotifyIntervalMs}ms`]
        : []),
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    entry.child = child;
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (verbose) process.stderr.write(chunk);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    let spawnError: Error | undefined;
    child.once('error', (err) => {
      spawnError = err;
    });
    // Do not keep the event loop alive just for etcd.
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();

    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (spawnError) throw new Error(`could not start etcd (${binary}): ${spawnError.message}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`etcd exited early (code ${child.exitCode}, signal ${child.signalCode}):\n${output}`);
      }
      if (await isHealthy(clientUrl, certs)) {
        // Healthy may be another process's etcd on a port this one failed to bind.
        if (child.pid === undefined || listensOn(child.pid, Number(new URL(clientUrl).port))) return;
        child.kill('SIGKILL');
        await waitForExit(child);
        throw new Error(`etcd did not bind ${clientUrl}: another server answers there`);
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await waitForExit(child);
        throw new Error(`etcd did not become healthy within ${startTimeoutMs} ms:\n${output}`);
      }
      await sleep(50);
    }
  };

  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    const child = entry.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    child.kill('SIGCONT'); // a paused etcd must run to act on the signal
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await waitForExit(child);
    clearTimeout(timer);
  };

  const cleanup = async (): Promise<void> => {
    await terminate('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    if (certs !== undefined) rmSync(certs.dir, { recursive: true, force: true });
    live.delete(entry);
  };

  let lastError: unknown;
  for (let attempt = 0; attempt < 4; attempt++) {
    clientUrl = `${scheme}://127.0.0.1:${await freshPort()}`;
    peerUrl = `http://127.0.0.1:${await freshPort()}`;
    try {
      await launch();
      lastError = undefined;
      break;
    } catch (err) {
      lastError = err;
      await terminate('SIGKILL');
      // A failed first start may leave a half-initialised member dir behind.
      rmSync(dataDir, { recursive: true, force: true });
      if (String((err as Error).message).startsWith('could not start etcd')) break;
    }
  }
  if (lastError !== undefined) {
    await cleanup();
    throw lastError;
  }

  return {
    endpoints: [clientUrl],
    dataDir,
    ...(certs !== undefined ? { tls: { caFile: certs.caFile, certFile: certs.certFile, keyFile: certs.keyFile, dir: certs.dir } } : {}),
    running: () => {
      const child = entry.child;
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate('SIGTERM');
      await cleanup();
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      await terminate(signal);
    },
    pause() {
      const child = entry.child;
      if (child?.kill('SIGSTOP') !== true || child.pid === undefined) return;
      waitUntilStopped(child.pid);
    },
    resume() {
      entry.child?.kill('SIGCONT');
    },
    async restart() {
      if (stopped) throw new Error('etcd was stopped; start a new one');
      await terminate('SIGTERM');
      await launch();
    },
  };
}

/**
 * Returns once every thread of `pid` is stopped (state T in /proc), at most ~1 s: SIGSTOP is
 * delivered to each thread as it next enters the kernel, so on a busy machine a thread can
 * still answer a request sent right after kill() returned.
 */
function waitUntilStopped(pid: number): void {
  const deadline = Date.now() + 1000;
  const stopped = (): boolean => {
    try {
      return readdirSync(`/proc/${pid}/task`).every((task) => {
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
      });
    } catch {
      return true; // gone, or no /proc: nothing to wait for
    }
  };
  while (!stopped() && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
}
