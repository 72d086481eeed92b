/**
 * Continue tokens for paginated lists, byte-compatible with kube-apiserver
 * (apiserver/pkg/storage/continue.go): base64url (no padding) of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key relative to the list prefix>"}`,
 * JSON written the way Go's encoder writes it.
 */
import { badRequest, internalError } from './status.js';
import { goJsonSyntaxError } from './go-json-syntax.js';

const TOKEN_VERSION = 'meta.k8s.io/v1';
const INVALID_KEY = 'continue key is not valid';
const INVALID_START_RV = `${INVALID_KEY}: incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`;
const EMPTY_START_KEY = `${INVALID_KEY}: encoded start key empty (version ${TOKEN_VERSION})`;
const UNRECOGNIZED_VERSION = `${INVALID_KEY}: server does not recognize this encoded version`;

/** JSON.stringify plus the escapes Go's encoding/json adds (`<`, `>`, `&`, U+2028, U+2029). */
function goJSONString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Encodes a token that resumes a list at `key` (the caller passes `lastKey + "\x00"`) at
 * revision `resourceVersion` (-1 for "latest", as the expired-token Status carries).
 * Throws a 500 StatusError when `key` does not start with `keyPrefix` (a caller bug).
 */
export function encodeContinue(key: string, keyPrefix: string, resourceVersion: number): string {
  if (keyPrefix === '' || !key.startsWith(keyPrefix)) {
    throw internalError(new Error(`unable to encode next field: the key and key prefix do not match ${keyPrefix} ${key}`));
  }
  const start = key.slice(keyPrefix.length);
  const json = `{"v":${goJSONString(TOKEN_VERSION)},"rv":${Math.trunc(resourceVersion)},"start":${goJSONString(start)}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

export interface DecodedContinue {
  /** The full storage key to resume from: `keyPrefix` + the token's cleaned start key. */
  fromKey: string;
  /** The revision the list was pinned to; negative means "latest". */
  resourceVersion: number;
}

class TokenError extends Error {}

const base64UrlAlphabet = /^[A-Za-z0-9_-]$/;

/** Go's base64.RawURLEncoding.DecodeString: strict alphabet, no padding, CR/LF ignored. */
function decodeRawBase64Url(text: string): Buffer {
  let clean = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\r' || ch === '\n') continue;
    if (!base64UrlAlphabet.test(ch)) throw new TokenError(`illegal base64 data at input byte ${i}`);
    clean += ch;
  }
  if (clean.length % 4 === 1) throw new TokenError(`illegal base64 data at input byte ${text.length - 1}`);
  return Buffer.from(clean, 'base64url');
}

interface RawToken {
  v: string;
  rv: number;
  start: string;
}

function goTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Skips the JSON value starting at `i` in valid JSON `text`; returns the index after it. */
function skipValue(text: string, i: number): number {
  let depth = 0;
  do {
    const ch = text[i]!;
    if (ch === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      i++;
    } else if (ch === '{' || ch === '[') {
      depth++;
      i++;
    } else if (ch === '}' || ch === ']') {
      depth--;
      i++;
    } else if (ch === ',' || ch === ':' || /\s/.test(ch)) {
      i++;
    } else {
      i += /^[^,\]}\s]+/.exec(text.slice(i))![0].length;
    }
  } while (depth > 0);
  return i;
}

/** The top-level members of valid JSON object text, in order, each value as its source text. */
function membersOf(text: string): [key: string, source: string][] {
  const members: [string, string][] = [];
  let i = text.indexOf('{') + 1;
  for (;;) {
    while (/[\s,]/.test(text[i]!)) i++;
    if (text[i] === '}') return members;
    const keyEnd = skipValue(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = text.indexOf(':', keyEnd) + 1;
    while (/\s/.test(text[i]!)) i++;
    const end = skipValue(text, i);
    members.push([key, text.slice(i, end)]);
    i = end;
  }
}

/**
 * Mirrors Go's json.Unmarshal into the token struct: case-insensitive keys, zero defaults,
 * members applied in order (a later one wins), the first type error reported. `rv` must be an
 * int64 literal as written: `1e30`, `1.0` or a value past int64 are `cannot unmarshal number
 * 1e30 into ... of type int64`.
 */
function unmarshalToken(data: Buffer): RawToken {
  const text = data.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TokenError(goJsonSyntaxError(data) ?? (err instanceof Error ? err.message : String(err)));
  }
  const token: RawToken = { v: '', rv: 0, start: '' };
  if (parsed === null) return token;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new TokenError(`json: cannot unmarshal ${goTypeName(parsed)} into Go value of type storage.continueToken`);
  }
  let firstError: string | undefined;
  const fail = (message: string): void => {
    firstError ??= message;
  };
  for (const [rawKey, source] of membersOf(text)) {
    const key = rawKey.toLowerCase();
    const value: unknown = JSON.parse(source);
    if (value === null || (key !== 'v' && key !== 'rv' && key !== 'start')) continue;
    if (key === 'rv') {
      if (typeof value !== 'number') fail(`json: cannot unmarshal ${goTypeName(value)} into Go struct field continueToken.rv of type int64`);
      else if (!/^-?[0-9]+$/.test(source) || BigInt(source) < INT64_MIN || BigInt(source) > INT64_MAX) {
        fail(`json: cannot unmarshal number ${source} into Go struct field continueToken.rv of type int64`);
      } else token.rv = value;
    } else if (typeof value !== 'string') {
      fail(`json: cannot unmarshal ${goTypeName(value)} into Go struct field continueToken.${key} of type string`);
    } else if (key === 'v') token.v = value;
    else token.start = value;
  }
  if (firstError !== undefined) throw new TokenError(firstError);
  return token;
}

/** Go's path.Clean for a rooted path. */
function cleanRootedPath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

function decodeOrThrowReason(token: string, keyPrefix: string): DecodedContinue {
  let data: Buffer;
  let raw: RawToken;
  try {
    data = decodeRawBase64Url(token);
    raw = unmarshalToken(data);
  } catch (err) {
    if (err instanceof TokenError) throw new TokenError(`${INVALID_KEY}: ${err.message}`);
    throw err;
  }
  if (raw.v !== TOKEN_VERSION) throw new TokenError(`${UNRECOGNIZED_VERSION} ${raw.v}`);
  if (raw.rv === 0) throw new TokenError(INVALID_START_RV);
  if (raw.start.length === 0) throw new TokenError(EMPTY_START_KEY);
  const key = raw.start.startsWith('/') ? raw.start : `/${raw.start}`;
  const cleaned = cleanRootedPath(key);
  if (cleaned !== key) throw new TokenError(`${INVALID_KEY}: ${raw.start}`);
  return { fromKey: keyPrefix + cleaned.slice(1), resourceVersion: raw.rv };
}

/**
 * Decodes a client's continue token for a list under `keyPrefix`. Checks, in kube's order:
 * base64 and JSON; the version; rv ≠ 0; a non-empty start key; no path traversal. Every
 * failure throws a 400 BadRequest StatusError `invalid continue token: <reason>`.
 */
export function decodeContinue(token: string, keyPrefix: string): DecodedContinue {
  try {
    return decodeOrThrowReason(token, keyPrefix);
  } catch (err) {
    if (err instanceof TokenError) throw badRequest(`invalid continue token: ${err.message}`);
    throw err;
  }
}
