/** The closing report of a fuzz run: totals, the readyz probe, known-open counts, shapes and each violation with its replay. */
import { ACCEPTED_SERVER_ERRORS } from './invariants.js';
import { KNOWN_OPEN, signature } from './known-open.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzSummary, Recorded } from './run.js';

/** The exact request, for a bug report or a replay by hand. */
export function describeRequest(req: FuzzRequest): string {
  const body = req.body === undefined ? '(none)' : `${req.body.length} bytes, base64 ${req.body.length > 4096 ? `${req.body.subarray(0, 4096).toString('base64')}… (first 4 KiB)` : req.body.toString('base64')}`;
  return [`    ${req.method} ${req.path.length > 2000 ? `${req.path.slice(0, 2000)}…` : req.path}`, `    headers: ${JSON.stringify(req.headers).slice(0, 3000)}`, `    body: ${body}`].join('\n');
}

function describeViolation(v: Recorded, n: number): string {
  const { finding } = v;
  const lines = [`  #${n} ${finding.invariant}: ${finding.detail.slice(0, 4000)}`];
  if (v.replay) lines.push(`    replay: make fuzz FUZZ_SEED=${v.replay.seed} FUZZ_PATH=${v.replay.path}`);
  if (finding.request) lines.push(describeRequest(finding.request));
  const res = finding.response;
  if (res) lines.push(`    response after ${res.ms.toFixed(0)} ms: ${res.status} ${res.body.toString('utf8', 0, 500)}`);
  if (res?.connection) lines.push(`    connection: ${res.connection}`);
  if (res?.previousOnConnection) lines.push(`    the request before it on the same connection (idle ${res.idleMs?.toFixed(0) ?? '?'} ms in between):\n${describeRequest(res.previousOnConnection)}`);
  for (const s of (finding.suspects ?? []).slice(0, 5)) lines.push(`    in flight:\n${describeRequest(s)}`);
  return lines.join('\n');
}

export function formatSummary(s: FuzzSummary, seed: number, streams: number): string {
  const bySignature = new Map<string, Recorded[]>();
  for (const v of s.violations) {
    const key = signature(v.finding);
    bySignature.set(key, [...(bySignature.get(key) ?? []), v]);
  }
  const lines = [
    `fuzz: seed ${seed} (streams use seeds ${seed}..${seed + streams - 1}), ${s.seconds.toFixed(1)} s, ${s.requests} requests sent (${(s.requests / s.seconds).toFixed(1)}/s), ${s.violations.length} invariant violations in ${bySignature.size} classes, ${s.restarts} server restarts`,
    `readyz probe: ${s.probe.probes} probes, max ${s.probe.maxMs.toFixed(0)} ms, p99 ${s.probe.p99Ms.toFixed(0)} ms, ${s.probe.slow.length} over 1 s or failed` +
      ` (${s.slowUnderLoad.count} of them answered 200 while the server's thread ran under 1 s of CPU — the machine's load, not violations; slowest ${s.slowUnderLoad.maxMs.toFixed(0)} ms, most CPU ${s.slowUnderLoad.maxCpuMs.toFixed(0)} ms)`,
    `typed decode check: ${s.typedChecks} runs, ${s.storedObjects} objects at the last`,
    `accepted 5xx: ${ACCEPTED_SERVER_ERRORS.map((a) => a.id).join(', ')}`,
    `known open (findings filtered): ${KNOWN_OPEN.map((k) => `${k.id} ${s.known.get(k.id) ?? 0}`).join(', ')}`,
    'shapes seen:',
    ...s.shapes.lines().map((l) => `  ${l}`),
  ];
  if (s.knownExamples.size > 0) {
    lines.push('known open classes seen (the first finding of each):');
    let n = 0;
    for (const [id, example] of s.knownExamples) {
      lines.push(`- ${id}`);
      lines.push(describeViolation(example, ++n));
    }
  }
  if (bySignature.size > 0) {
    lines.push('violations by class (count, then the first of each):');
    let n = 0;
    for (const [key, list] of bySignature) {
      lines.push(`- ${list.length}× ${key}`);
      lines.push(describeViolation(list[0]!, ++n));
    }
  }
  return lines.join('\n');
}
