// Differential test of packages/machinery's goYamlMarshal against sigs.k8s.io/yaml v1.4.0:
// random JSON values whose strings (map values, keys, list items) are built from YAML edge
// characters go through both; every difference is printed. Needs `npx tsc -b` first and Go
// (the module cache must hold sigs.k8s.io/yaml v1.4.0).
//   node scripts/go-yaml-diff/run.mjs [cases=20000] [seed=1] [all|breaks|scalars|control]
// Where Go fails (a raw control character, a key holding U+0085, U+0085 before `--- `), kapi must
// throw a 500 StatusError with Go's message.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// GO_YAML_MODULE: another build of go-yaml.js to test (an older one, to count what changed).
const { goYamlMarshal } = await import(process.env.GO_YAML_MODULE ?? join(here, '../../packages/machinery/dist/go-yaml.js'));
const n = Number(process.argv[2] ?? 20000);
let seed = Number(process.argv[3] ?? 1);
const mode = process.argv[4] ?? 'all';
/** mulberry32: a seeded generator in 32-bit integer arithmetic. */
const random = (k) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * k);
};
const scalars = ['0', '1', '9', '_', '.', 'e', 'E', '+', '-', 'x', 'X', 'o', 'b', 'B', ':', 'T', 'Z', ' ', '2006-01-02', '12', '5', '59', '60', 'inf', 'nan', 'Inf', 'NaN', 'y', 'Y', 'n', 'on', 'off', 'OFF', 'True', 'NULL', '<<', '=', '~', 'ф', '中', '\u00a0', "'", '#', '0x', '0o', '0b'];
const pieces = mode === 'scalars' ? scalars : mode === 'breaks'
  ? ['\u2028', '\u2029', '\u0085', ' ', '  ', '   ', "'", 'a', 'word', 'longerword', '#', ':', '-', '---', '...', '\ufeff', 'é', '😀', '\n', '\t', 'yes', '1e3']
  : ['\n', '\r', '\r\n', '\u0085', '\u2028', '\u2029', '\t', ' ', '  ', "'", '"', '#', ':', '-', '?', '{', '}', '[', ']', ',', '&', '*', '!', '|', '>', '%', '@', '`', '\\',
    '😀', '\ufeff', '\u0000', '\u0001', '\u001b', '\u00a0', 'é', 'yes', 'no', '~', 'null', '1e3', 'true', '12:30', '0x1F', '.5', '---', '...',
    'a', 'b', 'x', 'word', 'longerword', 'Ünïcödé', '123', '-1', 'abcdefghijklmnopqrstuvwxyz'];
// `control`: the lot, and characters go-yaml's reader refuses.
if (mode === 'control') pieces.push('\u007f', '\u0080', '\u009f', '\ufffe', '\uffff');
const weights = pieces.map((p) => (/^[a-z]+$/.test(p) ? 4 : 1));
const total = weights.reduce((a, b) => a + b, 0);
function piece() {
  let r = random(total);
  for (let i = 0; i < pieces.length; i++) if ((r -= weights[i]) < 0) return pieces[i];
  return 'a';
}
function str() {
  const kind = random(10);
  const length = kind < 6 ? 1 + random(6) : kind < 9 ? 5 + random(30) : 40 + random(80);
  let s = '';
  for (let i = 0; i < length; i++) s += piece();
  return s;
}
/** Words (to fold past column 80) with now and then an edge piece between two. */
function words() {
  let s = '';
  const count = 10 + random(40);
  for (let i = 0; i < count; i++) s += (i ? (random(8) === 0 ? piece() : ' ') : '') + ['word', 'x', 'longerword', 'a', "it's"][random(5)];
  return s;
}
function value(depth) {
  const k = random(depth > 2 ? 3 : 7);
  if (k === 0) return str();
  if (k === 1) return words();
  if (k === 2) return random(2) ? str() : random(5) === 0 ? null : random(3) === 0 ? true : random(1000) - 500;
  if (k <= 4) {
    const o = {};
    const count = 1 + random(3);
    for (let i = 0; i < count; i++) o[random(3) ? str() : `key${i}`] = value(depth + 1);
    return o;
  }
  return Array.from({ length: 1 + random(3) }, () => value(depth + 1));
}
const cases = Array.from({ length: n }, (_, i) =>
  i % 4 === 0 ? { k: str() } : i % 4 === 1 ? { [str()]: 'v' } : i % 4 === 2 ? [str(), { k: [str()] }] : value(0));
function inGoOrder(value) {
  if (Array.isArray(value)) return value.map(inGoOrder);
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return Object.fromEntries(keys.map((key) => [key, inGoOrder(value[key])]));
}
const dir = mkdtempSync(join(tmpdir(), 'go-yaml-diff-'));
writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
execFileSync('go', ['run', '.', join(dir, 'cases.json'), join(dir, 'go.json')], { cwd: here, stdio: 'inherit', env: { ...process.env, GOFLAGS: '-mod=mod' } });
const go = JSON.parse(readFileSync(join(dir, 'go.json'), 'utf8'));
let errors = 0;
let differences = 0;
for (let i = 0; i < cases.length; i++) {
  if (go[i].err) errors++;
  let kapi;
  try {
    // Keys in Go's map order (by bytes), which only the line of an error depends on.
    kapi = goYamlMarshal(go[i].err ? inGoOrder(cases[i]) : cases[i]);
  } catch (err) {
    kapi = { err: err.message, code: err.status?.code };
  }
  if (go[i].err) {
    // kube-apiserver answers such an object with a 500 Status carrying the error's text.
    if (kapi.err !== go[i].err || kapi.code !== 500) {
      if (differences++ < 10) console.log(JSON.stringify({ input: cases[i], go: go[i], kapi }));
    }
    continue;
  }
  if (kapi !== go[i].out && differences++ < 10) console.log(JSON.stringify({ input: cases[i], go: go[i].out, kapi }));
}
console.log(`cases ${cases.length}, Go errors ${errors}, differences ${differences}`);
process.exitCode = differences === 0 ? 0 : 1;
