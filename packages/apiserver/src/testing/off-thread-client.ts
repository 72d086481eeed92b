/**
 * Sends HTTP requests from a worker thread, all at once, for the cost tests that measure an
 * in-process server's event loop (loop-block.ts): a client on the server's own thread would
 * count its body copies and response parsing as the server's time.
 */
import { Worker } from 'node:worker_threads';

export interface OffThreadRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
}

export interface OffThreadResponse {
  readonly status: number;
  readonly text: string;
  /** From the request's start to its whole response, in ms (the worker's clock). */
  readonly ms: number;
}

// Runs in the worker: fetches every request concurrently and posts the results in order.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, requests } = workerData;
Promise.all(requests.map(async (r) => {
  const start = performance.now();
  try {
    const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body: r.body });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - start };
  } catch (err) {
    return { status: 0, text: String(err), ms: performance.now() - start };
  }
})).then((results) => parentPort.postMessage(results));
`;

/** Sends `requests` to `url` concurrently from a worker thread; resolves with their responses, in order. */
export function sendFromWorker(url: string, requests: readonly OffThreadRequest[]): Promise<OffThreadResponse[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { url, requests } });
    worker.once('message', (results: OffThreadResponse[]) => {
      resolve(results);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the client thread exited (${code}) before answering`)));
  });
}

// Runs in the worker: GETs the path every intervalMs (after each answer) until told to stop, then posts each probe's latency.
const PROBE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, intervalMs } = workerData;
let stopped = false;
parentPort.once('message', () => (stopped = true));
(async () => {
  const probes = [];
  while (!stopped) {
    const start = performance.now();
    let status = 0;
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      status = res.status;
    } catch {}
    probes.push({ status, ms: performance.now() - start });
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  parentPort.postMessage(probes);
})();
`;

export interface Probe {
  readonly status: number;
  readonly ms: number;
}

/**
 * Probes `url` (a health endpoint) from a worker thread every `intervalMs` until `until`
 * settles, as a kubelet or load balancer would from outside the process: the probe's own
 * client work is not the server's loop's. Resolves with every probe's status and latency.
 */
export async function probeFromWorker(url: string, until: Promise<unknown>, intervalMs = 20): Promise<Probe[]> {
  const worker = new Worker(PROBE_WORKER, { eval: true, workerData: { url, intervalMs } });
  const probes = new Promise<Probe[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the probe thread exited (${code}) before answering`)));
  });
  await until.catch(() => undefined);
  worker.postMessage('stop');
  try {
    return await probes;
  } finally {
    void worker.terminate();
  }
}
