import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports this process was given. `freshPort` also claims each one for the whole machine with a
 * file under the temporary folder, so that test files running in parallel processes never
 * start two servers on one port: the kernel hands a released port out again at once, and an
 * etcd that failed to bind it would otherwise look healthy through the other process's etcd.
 */
const handedOut = new Set<number>();
const claimDir = join(tmpdir(), 'kapi-port-claims');
let releaseInstalled = false;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims `port` for this process unless another live process holds it; true when claimed. */
export function claimPort(port: number): boolean {
  mkdirSync(claimDir, { recursive: true });
  const file = join(claimDir, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no claims here: this process's set still applies
  }
  let holder = NaN;
  try {
    holder = Number(readFileSync(file, 'utf8'));
  } catch {
    // released meanwhile
  }
  if (Number.isInteger(holder) && holder > 0 && alive(holder)) return false;
  // The holder is gone: take the claim over.
  writeFileSync(file, String(process.pid));
  return true;
}

function releaseClaims(): void {
  for (const port of handedOut) {
    const file = join(claimDir, String(port));
    try {
      if (readFileSync(file, 'utf8') === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // not ours, or gone
    }
  }
}

/**
 * Like `freePort`, but never returns a port this process or another live process was already
 * given this way, so concurrent callers (and the client/peer pair of one etcd) never collide.
 */
export async function freshPort(): Promise<number> {
  if (!releaseInstalled) {
    releaseInstalled = true;
    process.on('exit', releaseClaims);
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (!handedOut.has(port) && claimPort(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not find a fresh free port');
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: binds port 0, reads the port the
 * kernel chose, and releases it. Another process may take it before the caller binds it, so
 * callers that spawn servers on it should retry on a bind failure.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the bound port'));
        return;
      }
      const port = address.port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether process `pid` holds the listening TCP socket on `port` (Linux: its socket inodes in
 * /proc/PID/fd against the LISTEN rows of /proc/net/tcp and tcp6). A server that answers on a
 * port is not necessarily the one just started: when its bind failed, another process's server
 * answers there. Where /proc cannot be read, assumes it does.
 */
export function listensOn(pid: number, port: number): boolean {
  let inodes: Set<string>;
  try {
    inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return true;
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      if (cols.length < 10 || cols[3] !== '0A') continue;
      if (cols[1]!.endsWith(`:${hexPort}`) && inodes.has(cols[9]!)) return true;
    }
  }
  return false;
}
