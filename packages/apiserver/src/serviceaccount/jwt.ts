/**
 * Compact JWS (JWT) signing and verification for the service account tokens: a header
 * `{"alg","kid"}`, a claims object serialized with sorted keys (as go-jose writes merged
 * claims), RS256 (PKCS#1 v1.5) or ES256/384/512 (r||s signatures).
 */
import { createSign, createVerify, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm, SigningKey, VerificationKey } from './keys.js';

export type Claims = Record<string, unknown>;

const HASH: Record<SigningAlgorithm, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** JSON with object keys sorted at every level (Go's encoding of map[string]interface{}). */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = (v as Record<string, unknown>)[k];
    return out;
  });
}

function signature(algorithm: SigningAlgorithm, key: KeyObject, input: string): Buffer {
  const signer = createSign(HASH[algorithm]);
  signer.update(input);
  return algorithm === 'RS256' ? signer.sign(key) : signer.sign({ key, dsaEncoding: 'ieee-p1363' });
}

export function signJwt(key: SigningKey, claims: Claims): string {
  const header = Buffer.from(JSON.stringify({ alg: key.algorithm, kid: key.kid })).toString('base64url');
  const payload = Buffer.from(sortedJson(claims)).toString('base64url');
  const input = `${header}.${payload}`;
  return `${input}.${signature(key.algorithm, key.privateKey, input).toString('base64url')}`;
}

export interface ParsedJwt {
  readonly header: { readonly alg?: unknown; readonly kid?: unknown };
  readonly claims: Claims;
  readonly signingInput: string;
  readonly signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodeSegment(segment: string): unknown {
  if (!BASE64URL.test(segment)) return undefined;
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parts of a compact JWS, or undefined when the text is not one (three segments, JSON header and claims). */
export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  const header = decodeSegment(h);
  const claims = decodeSegment(p);
  if (!isRecord(header) || !isRecord(claims) || !BASE64URL.test(s)) return undefined;
  return { header, claims, signingInput: `${h}.${p}`, signature: Buffer.from(s, 'base64url') };
}

/** Whether one of `keys` (of the header's algorithm) signed the token. */
export function verifyJwt(jwt: ParsedJwt, keys: readonly VerificationKey[]): boolean {
  for (const key of keys) {
    if (key.algorithm !== jwt.header.alg) continue;
    const verifier = createVerify(HASH[key.algorithm]);
    verifier.update(jwt.signingInput);
    const ok = key.algorithm === 'RS256' ? verifier.verify(key.key, jwt.signature) : verifier.verify({ key: key.key, dsaEncoding: 'ieee-p1363' }, jwt.signature);
    if (ok) return true;
  }
  return false;
}
