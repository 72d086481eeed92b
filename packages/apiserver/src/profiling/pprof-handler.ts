/**
 * kube-apiserver's `/debug/pprof` (served while --profiling is on, its default): Go's
 * net/http/pprof handlers as kube installs them, answered from V8 (`v8-profiles.ts`) with Go's
 * status codes, headers and texts. What kube serves and kapi answers:
 *
 * - `/debug/pprof` → 302 to `/debug/pprof/`; `/debug/pprof/` → the index page.
 * - `profile?seconds=N` → V8's CPU profile of the main thread over N s (default 30, also for a
 *   value that is not a positive integer, as Go), gzip'd profile.proto; 500 `Could not enable
 *   CPU profiling: cpu profiling already in use` while one runs.
 * - `heap`, `allocs` → V8's sampled live heap (no allocation totals: V8 forgets collected
 *   samples); `gc=1` collects garbage first.
 * - `goroutine` → the event loop's active handles and requests by type (Node's nearest thing to
 *   goroutines); `threadcreate` → the process's thread count, without creation stacks;
 *   `block`, `mutex` → empty (JavaScript never blocks on a lock; Go's are empty too unless
 *   enabled, and kapi has no --contention-profiling).
 * - `?seconds=N` on those → the change over N s (`<name>-delta`), with Go's 400s for a bad
 *   value and for `debug` alongside.
 * - `debug=N` (N ≠ 0) → a plain-text listing instead of protobuf.
 * - `symbol` → `num_symbols: 0` (profiles carry function names; there are no addresses).
 * - `trace` → 500 `Could not enable tracing: …` (V8 has no Go execution tracer).
 * - `cmdline` and every other name → 404 `Unknown profile` (kube does not route cmdline).
 *
 * Every method is served, as kube's non-REST mux does. kube runs these as long-running
 * requests (no deadline, no in-flight seat: server.ts); a profile ends early when the client
 * goes away or the server shuts down.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { encodePprof, emptyPprof, pprofDelta, type PprofProfile } from '@kapi/machinery';
import { collectGarbage, cpuProfile, heapProfile } from './v8-profiles.js';

/** The names Go's index lists, in its order, with its descriptions. */
const PROFILES: readonly [string, string][] = [
  ['allocs', 'A sampling of all past memory allocations'],
  ['block', 'Stack traces that led to blocking on synchronization primitives'],
  ['cmdline', 'The command line invocation of the current program'],
  ['goroutine', 'Stack traces of all current goroutines. Use debug=2 as a query parameter to export in the same format as an unrecovered panic.'],
  ['heap', 'A sampling of memory allocations of live objects. You can specify the gc GET parameter to run GC before taking the heap sample.'],
  ['mutex', 'Stack traces of holders of contended mutexes'],
  ['profile', 'CPU profile. You can specify the duration in the seconds GET parameter. After you get the profile file, use the go tool pprof command to investigate the profile.'],
  ['symbol', "Maps given program counters to function names. Counters can be specified in a GET raw query or POST body, multiple counters are separated by '+'."],
  ['threadcreate', 'Stack traces that led to the creation of new OS threads'],
  ['trace', 'A trace of execution of the current program. You can specify the duration in the seconds GET parameter. After you get the trace file, use the go tool trace command to investigate the trace.'],
];

/** Whether `path` is one kube's profiling routes serve (the rest of /debug is 404 page not found). */
export function isPprofPath(path: string): boolean {
  return path === '/debug/pprof' || path.startsWith('/debug/pprof/');
}

interface ParsedUrl {
  readonly path: string;
  readonly query: URLSearchParams;
}

const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' };
const TEXT = 'text/plain; charset=utf-8';

/** Answers as Go's handlers under /debug do: no-cache, `headers`, the body's length. */
export function send(res: ServerResponse, code: number, body: string | Buffer, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(code, { 'Cache-Control': 'no-cache, private', ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** Go's serveError: plain text, marked as pprof's own answer. */
function serveError(res: ServerResponse, code: number, text: string): void {
  send(res, code, `${text}\n`, { ...NOSNIFF, 'Content-Type': TEXT, 'X-Go-Pprof': '1' });
}

function sendProfile(res: ServerResponse, profile: PprofProfile, filename: string): void {
  send(res, 200, encodePprof(profile), { ...NOSNIFF, 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${filename}"` });
}

/** Go's strconv.ParseInt(s, 10, 64): undefined when it fails. */
function parseGoInt(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Go's strconv.Atoi with the error ignored: 0 for anything that is not an integer. */
const atoi = (text: string | null): number => parseGoInt(text ?? '') ?? 0;

/** Resolves after `ms`, or with false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const end = (completed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      resolve(completed);
    };
    const abort = () => end(false);
    const timer = setTimeout(() => end(true), ms);
    signal.addEventListener('abort', abort);
  });
}

/** The threads of this process (Linux /proc), 0 where that cannot be read. */
function threadCount(): number {
  try {
    return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** A one-frame stack naming what a count is of. */
const counted = (what: string, count: number) => ({ stack: [{ function: what, file: '', line: 0 }], values: [count] });

/** The profiles Go's pprof.Lookup knows, as kapi can take them. */
const SNAPSHOTS: Readonly<Record<string, (query: URLSearchParams) => Promise<PprofProfile>>> = {
  heap: async (query) => {
    if (atoi(query.get('gc')) > 0) await collectGarbage();
    return heapProfile();
  },
  allocs: () => heapProfile(),
  goroutine: () => {
    const byType = new Map<string, number>();
    for (const type of process.getActiveResourcesInfo()) byType.set(type, (byType.get(type) ?? 0) + 1);
    const profile = emptyPprof([['goroutine', 'count']], { timeNanos: Date.now() * 1e6, periodType: ['goroutine', 'count'], period: 1, comments: ['kapi: no goroutines in Node.js; the event loop\'s active handles and requests by type'] });
    for (const [type, count] of [...byType].sort(([a], [b]) => a.localeCompare(b))) profile.samples.push(counted(type, count));
    return Promise.resolve(profile);
  },
  threadcreate: () => {
    const profile = emptyPprof([['threadcreate', 'count']], { timeNanos: Date.now() * 1e6, periodType: ['threadcreate', 'count'], period: 1, comments: ['kapi: the process\'s threads (V8, libuv, workers); Node.js records no creation stacks'] });
    const threads = threadCount();
    if (threads > 0) profile.samples.push(counted('(threads)', threads));
    return Promise.resolve(profile);
  },
  block: () => Promise.resolve(emptyPprof([['contentions', 'count'], ['delay', 'nanoseconds']], { timeNanos: Date.now() * 1e6, periodType: ['contentions', 'count'], period: 1 })),
  mutex: () => Promise.resolve(emptyPprof([['contentions', 'count'], ['delay', 'nanoseconds']], { timeNanos: Date.now() * 1e6, periodType: ['contentions', 'count'], period: 1 })),
};

/** Go's legacy text form (`debug=1`), as far as kapi has its parts: counts, then each stack's frames. */
function legacyText(name: string, profile: PprofProfile): string {
  const lines: string[] = [];
  const total = profile.samples.reduce((t, s) => t + (s.values[0] ?? 0), 0);
  if (name === 'heap' || name === 'allocs') {
    const bytes = profile.samples.reduce((t, s) => t + (s.values[1] ?? 0), 0);
    // Go's [allocated] pair: kapi samples no allocation totals.
    lines.push(`heap profile: ${total}: ${bytes} [0: 0] @ heap/${2 * profile.period}`);
    for (const s of profile.samples) lines.push(`${s.values[0]}: ${s.values[1]} [0: 0] @`, ...s.stack.map((f) => `#\t${f.function}\t${f.file}:${f.line}`), '');
    const memory = process.memoryUsage();
    lines.push('', '# process.memoryUsage()', ...Object.entries(memory).map(([k, v]) => `# ${k} = ${v}`));
  } else if (name === 'block' || name === 'mutex') {
    lines.push('--- contention:', 'cycles/second=1000000000');
  } else {
    lines.push(`${name} profile: total ${total}`);
    for (const s of profile.samples) lines.push(`${s.values[0]} @`, ...s.stack.map((f) => `#\t${f.function}`), '');
  }
  for (const c of profile.comments) lines.push(`# ${c}`);
  return `${lines.join('\n')}\n`;
}

function indexPage(counts: Readonly<Record<string, number>>): string {
  const rows = PROFILES.map(([name]) => `<tr><td>${counts[name] ?? 0}</td><td><a href='${name}?debug=1'>${name}</a></td></tr>\n`).join('');
  const descriptions = PROFILES.map(([name, text]) => `<li><div class=profile-name>${name}: </div> ${text.replace(/'/g, '&#39;')}</li>\n`).join('');
  return `<html>
<head>
<title>/debug/pprof/</title>
<style>
.profile-name{
\tdisplay:inline-block;
\twidth:6rem;
}
</style>
</head>
<body>
/debug/pprof/
<br>
<p>Set debug=1 as a query parameter to export in legacy text format</p>
<br>
Types of profiles available:
<table>
<thead><td>Count</td><td>Profile</td></thead>
${rows}</table>
<a href="goroutine?debug=2">full goroutine stack dump</a>
<br>
<p>
Profile Descriptions:
<ul>
${descriptions}</ul>
</p>
</body>
</html>`;
}

export interface PprofHandlerOptions {
  /** Aborted when the server shuts down: a running profile ends then. */
  readonly shutdown: AbortSignal;
}

/** The handler for every path {@link isPprofPath} accepts. */
export function createPprofHandler(options: PprofHandlerOptions): (req: IncomingMessage, res: ServerResponse, url: ParsedUrl) => Promise<void> {
  /** Aborted when the client goes away or the server shuts down. */
  const requestSignal = (res: ServerResponse): AbortSignal => {
    const gone = new AbortController();
    // Before the answer is written, a closed response is a client that went away.
    res.once('close', () => gone.abort());
    return AbortSignal.any([gone.signal, options.shutdown]);
  };

  const serveCpuProfile = async (res: ServerResponse, query: URLSearchParams) => {
    const given = parseGoInt(query.get('seconds') ?? '');
    const seconds = given === undefined || given <= 0 ? 30 : given;
    let profile: PprofProfile;
    try {
      profile = await cpuProfile(seconds * 1000, requestSignal(res));
    } catch (err) {
      return serveError(res, 500, `Could not enable CPU profiling: ${err instanceof Error ? err.message : String(err)}`);
    }
    sendProfile(res, profile, 'profile');
  };

  const serveNamed = async (res: ServerResponse, name: string, query: URLSearchParams) => {
    const snapshot = SNAPSHOTS[name];
    if (snapshot === undefined) return serveError(res, 404, 'Unknown profile');
    const secondsText = query.get('seconds') ?? '';
    const debug = atoi(query.get('debug'));
    if (secondsText !== '') {
      const seconds = parseGoInt(secondsText);
      if (seconds === undefined || seconds <= 0) return serveError(res, 400, 'invalid value for "seconds" - must be a positive integer');
      if (debug !== 0) return serveError(res, 400, 'seconds and debug params are incompatible');
      // As Go's: a delta takes no other parameter (no `gc`).
      const none = new URLSearchParams();
      const before = await snapshot(none);
      if (!(await sleep(seconds * 1000, requestSignal(res)))) return serveError(res, 500, 'context canceled');
      return sendProfile(res, pprofDelta(before, await snapshot(none)), `${name}-delta`);
    }
    const profile = await snapshot(query);
    if (debug !== 0) return send(res, 200, legacyText(name, profile), { ...NOSNIFF, 'Content-Type': TEXT });
    sendProfile(res, profile, name);
  };

  return async (req, res, url) => {
    if (url.path === '/debug/pprof') {
      // Go's http.Redirect: a body (and its type) for GET and HEAD only.
      const page = req.method === 'GET' || req.method === 'HEAD';
      return send(res, 302, req.method === 'GET' ? '<a href="/debug/pprof/">Found</a>.\n\n' : '', { Location: '/debug/pprof/', ...(page ? { 'Content-Type': 'text/html; charset=utf-8' } : {}) });
    }
    const name = url.path.slice('/debug/pprof/'.length);
    switch (name) {
      case '': {
        const counts: Record<string, number> = {};
        for (const [n, take] of Object.entries(SNAPSHOTS)) counts[n] = (await take(new URLSearchParams())).samples.reduce((t, s) => t + (n === 'threadcreate' || n === 'goroutine' ? (s.values[0] ?? 0) : 1), 0);
        return send(res, 200, indexPage(counts), { ...NOSNIFF, 'Content-Type': 'text/html; charset=utf-8' });
      }
      case 'profile':
        return serveCpuProfile(res, url.query);
      case 'symbol':
        // Profiles carry function names already; there are no program counters to look up.
        return send(res, 200, 'num_symbols: 0\n', { ...NOSNIFF, 'Content-Type': TEXT });
      case 'trace':
        return serveError(res, 500, 'Could not enable tracing: kapi runs on V8, which has no Go execution tracer (/debug/pprof/profile has its CPU profile)');
      default:
        return serveNamed(res, name, url.query);
    }
  };
}
