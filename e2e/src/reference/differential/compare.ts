/**
 * Normalizing answers (what legitimately differs between two servers on two etcds: uids,
 * resource versions, timestamps, generated names, continue tokens) and listing where two
 * normalized answers differ, as `field path: kube value | kapi value` lines.
 */
import type { Answer } from './send.js';

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function normalizeString(key: string, value: string): string {
  if (TIME.test(value)) return '<time>';
  if (key === 'uid' && value !== '') return '<uid>';
  if (key === 'resourceVersion' && value !== '') return '<rv>';
  if (key === 'continue' && value !== '') return '<continue>';
  return value.replace(UID, '<uid>').replace(/(resource version|ResourceVersion|resourceVersion)(:?) \d+/g, '$1$2 <rv>').replace(/current: \d+/g, 'current: <rv>').replace(/ResourceVersion in record \(\d+\)/g, 'ResourceVersion in record (<rv>)');
}

/** A whole text body (YAML): the same placeholders, keeping the quoting of each server. */
function normalizeText(text: string): string {
  // Names made from a generateName end in 5 random characters.
  for (const [, prefix] of text.matchAll(/^\s*generateName: (\S+)$/gm)) {
    text = text.replaceAll(new RegExp(`^(\\s*name: )${prefix!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[a-z0-9]{5}$`, 'gm'), `$1${prefix!}<random>`);
  }
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<time>')
    .replace(UID, '<uid>')
    .replace(/(resourceVersion|continue): ("?)[^"\n]+\2$/gm, '$1: $2<rv>$2');
}

/** A copy of `value` with the server-specific parts replaced by placeholders. */
export function normalize(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    // A Table's age cells depend on when each server was asked.
    if (key === 'cells' && /^(\d+[smhd])+$/.test(value)) return '<age>';
    return key === '' ? normalizeText(value) : normalizeString(key, value);
  }
  if (Array.isArray(value)) return value.map((v) => normalize(v, key));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) out[k] = normalize(v, k);
  // kube orders managedFields by operation, then time (in seconds), then manager: with times
  // normalized away, whether two writes fell in the same second is timing, not behaviour.
  if (Array.isArray(out['managedFields'])) {
    const key = (e: unknown) => { const m = e as Record<string, unknown>; return `${String(m['operation'])}/${String(m['manager'])}/${String(m['subresource'] ?? '')}/${String(m['apiVersion'])}`; };
    out['managedFields'] = [...(out['managedFields'] as unknown[])].sort((a, b) => key(a).localeCompare(key(b)));
  }
  const generateName = object['generateName'];
  if (typeof generateName === 'string' && typeof object['name'] === 'string' && object['name'].startsWith(generateName)) {
    out['name'] = `${generateName}<random>`;
  }
  return out;
}

/** The parts of an answer compared: status, the headers clients read, the normalized body. */
export function view(answer: Answer): Record<string, unknown> {
  return {
    status: answer.status,
    'content-type': answer.contentType,
    warning: answer.warning === undefined ? undefined : normalizeString('', answer.warning),
    'audit-id': answer.auditId,
    body: normalize(answer.body),
  };
}

function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** Where `kube` and `kapi` differ, one `{path, kube, kapi}` per leaf (arrays compared by index). */
export function differences(kube: unknown, kapi: unknown, path = ''): { path: string; text: string }[] {
  if (kube === kapi) return [];
  const bothObjects = kube !== null && kapi !== null && typeof kube === 'object' && typeof kapi === 'object' && Array.isArray(kube) === Array.isArray(kapi);
  if (typeof kube === 'string' && typeof kapi === 'string' && (kube.length > 160 || kapi.length > 160)) {
    // Long texts (YAML bodies): show where they start to differ.
    let i = 0;
    while (i < kube.length && kube[i] === kapi[i]) i++;
    const from = Math.max(0, i - 60);
    return [{ path, text: `${path}: differ from character ${i}: kube …${JSON.stringify(kube.slice(from, i + 100))} | kapi …${JSON.stringify(kapi.slice(from, i + 100))}` }];
  }
  if (!bothObjects) return [{ path, text: `${path}: kube ${show(kube)} | kapi ${show(kapi)}` }];
  if (Array.isArray(kube) && Array.isArray(kapi) && kube.length !== kapi.length) {
    // Different lengths: say which, then compare by index to show the first mismatches.
    const out = [{ path: `${path}.length`, text: `${path}.length: kube ${kube.length} | kapi ${kapi.length}` }];
    return out.concat(differences(kube.slice(0, Math.min(kube.length, kapi.length)), kapi.slice(0, Math.min(kube.length, kapi.length)), path));
  }
  const a = kube as Record<string, unknown>;
  const b = kapi as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((k) => differences(a[k], b[k], path === '' ? k : `${path}.${k}`));
}
