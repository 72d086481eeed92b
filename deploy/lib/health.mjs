// @ts-check
/** HTTP(S) health probes of the local cluster's processes, with deadlines. No dependencies. */
import http from 'node:http';
import net from 'node:net';
import https from 'node:https';

/**
 * GET `url` (TLS verification off unless `ca` is given). Resolves {status, body}; rejects on a
 * socket error or after `timeoutMs`.
 * @param {string} url
 * @param {{ timeoutMs?: number, ca?: string, method?: string }} [options]
 * @returns {Promise<{ status: number, body: string }>}
 */
export function httpGet(url, options = {}) {
  const timeoutMs = options.timeoutMs ?? 2000;
  const send = url.startsWith('https:') ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: options.method ?? 'GET', timeout: timeoutMs, agent: false, rejectUnauthorized: options.ca !== undefined, ...(options.ca ? { ca: options.ca } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** etcd's /health answers {"health":"true"} once the member has a leader and serves reads. */
export async function etcdHealthy(/** @type {string} */ clientURL) {
  try {
    const res = await httpGet(`${clientURL}/health`);
    return res.status === 200 && /"health":\s*"true"/.test(res.body);
  } catch {
    return false;
  }
}

/** kapi's /readyz (directly or through the balancer) answers 200 `ok`. */
export async function kapiReady(/** @type {string} */ url) {
  try {
    const res = await httpGet(`${url}/readyz`);
    return res.status === 200 && res.body.trim() === 'ok';
  } catch {
    return false;
  }
}

/**
 * Polls `check` every 100 ms until it resolves true; rejects with `what` after `timeoutMs`, or
 * at once when `alive()` says the process being waited for has exited.
 * @param {string} what
 * @param {() => Promise<boolean>} check
 * @param {{ timeoutMs: number, alive?: () => boolean }} options
 */
export async function waitFor(what, check, options) {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await check()) return;
    if (options.alive && !options.alive()) throw new Error(`${what}: the process exited`);
    if (Date.now() > deadline) throw new Error(`${what}: not within ${options.timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** True when `port` on `host` cannot be bound (another process listens there). */
export function portInUse(/** @type {number} */ port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}
