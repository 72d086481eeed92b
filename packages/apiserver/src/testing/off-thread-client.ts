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
