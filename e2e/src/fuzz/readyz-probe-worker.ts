/** The worker of readyz-probe.ts: probes `workerData.url` until told to stop. */
import { request } from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';
import type { ProbeReport, SlowProbe } from './readyz-probe.js';

const { url, intervalMs, limitMs } = workerData as { url: string; intervalMs: number; limitMs: number };
const times: number[] = [];
const slow: SlowProbe[] = [];
let stopped = false;

function probe(): Promise<void> {
  const at = Date.now();
  const started = performance.now();
  return new Promise((resolve) => {
    let finished = false;
    const finish = (status: number, error?: string) => {
      if (finished) return;
      finished = true;
      const ms = performance.now() - started;
      times.push(ms);
      if (ms > limitMs || status !== 200 || error !== undefined) slow.push({ at, ms, status, ...(error !== undefined ? { error } : {}) });
      resolve();
    };
    // A new connection each time (agent: false), as a kubelet probe makes.
    const req = request(url, { agent: false, rejectUnauthorized: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => (res.statusCode === 200 && body.trim() === 'ok' ? finish(200) : finish(res.statusCode ?? 0, body.slice(0, 2000))));
      res.on('error', (err) => finish(0, err.message));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (err) => finish(0, err.message));
    req.end();
  });
}

function report(): ProbeReport {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    probes: times.length,
    maxMs: sorted.at(-1) ?? 0,
    p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
    slow: [...slow],
  };
}

parentPort!.on('message', (command: string) => {
  if (command === 'stop') stopped = true;
  parentPort!.postMessage(report());
});

async function loop(): Promise<void> {
  while (!stopped) {
    const next = Date.now() + intervalMs;
    await probe();
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
  }
}
void loop();
