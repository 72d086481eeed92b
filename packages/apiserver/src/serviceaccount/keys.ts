/**
 * The service account keys: the private key tokens are signed with
 * (`--service-account-signing-key-file`) and the public keys tokens are verified with
 * (`--service-account-key-file`, repeatable). PEM files as kube reads them: RSA or ECDSA
 * keys in any PEM form (PKCS#1, SEC 1, PKCS#8, PKIX), and certificates, whose public key is
 * taken. A file may hold several blocks. Read once at start.
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class ServiceAccountKeyError extends Error {
  override readonly name = 'ServiceAccountKeyError';
}

/** A JWS algorithm kube signs with: RS256 for RSA, ES256/384/512 by the ECDSA curve. */
export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface VerificationKey {
  readonly key: KeyObject;
  /** kube's key id: base64url(sha256(PKIX DER of the public key)). */
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
}

export interface SigningKey extends VerificationKey {
  readonly privateKey: KeyObject;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;

function readText(path: string, context: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const text = code === 'ENOENT' ? `open ${path}: no such file or directory` : (err as Error).message;
    throw new ServiceAccountKeyError(context === '' ? text : `${context}: ${text}`);
  }
}

export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

export function algorithmOf(key: KeyObject): SigningAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType !== 'ec') return undefined;
  switch (key.asymmetricKeyDetails?.namedCurve) {
    case 'prime256v1':
      return 'ES256';
    case 'secp384r1':
      return 'ES384';
    case 'secp521r1':
      return 'ES512';
    default:
      return undefined;
  }
}

function verificationKey(key: KeyObject, path: string): VerificationKey {
  const algorithm = algorithmOf(key);
  if (algorithm === undefined) throw new ServiceAccountKeyError(`error reading public key file ${path}: data does not contain a valid RSA or ECDSA key`);
  return { key, kid: keyId(key), algorithm };
}

/** The public keys of one `--service-account-key-file` (public keys, private keys, certificates). */
export function readPublicKeys(path: string): VerificationKey[] {
  const text = readText(path, '');
  const keys: VerificationKey[] = [];
  for (const match of text.matchAll(PEM_BLOCK)) {
    const [block, type] = match as unknown as [string, string];
    try {
      if (type === 'CERTIFICATE') keys.push(verificationKey(new X509Certificate(block).publicKey, path));
      else if (type.endsWith('PRIVATE KEY')) keys.push(verificationKey(createPublicKey(createPrivateKey(block)), path));
      else if (type.endsWith('PUBLIC KEY')) keys.push(verificationKey(createPublicKey(block), path));
    } catch (err) {
      if (err instanceof ServiceAccountKeyError) throw err;
      throw new ServiceAccountKeyError(`error reading public key file ${path}: ${(err as Error).message}`);
    }
  }
  if (keys.length === 0) throw new ServiceAccountKeyError(`error reading public key file ${path}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/** The private key of `--service-account-signing-key-file` (the first private key block). */
export function readSigningKey(path: string): SigningKey {
  const text = readText(path, 'failed to parse service-account-issuer-key-file');
  for (const match of text.matchAll(PEM_BLOCK)) {
    const [block, type] = match as unknown as [string, string];
    if (!type.endsWith('PRIVATE KEY')) continue;
    try {
      const privateKey = createPrivateKey(block);
      const publicKey = createPublicKey(privateKey);
      return { ...verificationKey(publicKey, path), privateKey };
    } catch (err) {
      throw new ServiceAccountKeyError(`failed to parse service-account-issuer-key-file: ${(err as Error).message}`);
    }
  }
  throw new ServiceAccountKeyError('failed to parse service-account-issuer-key-file: data does not contain a valid RSA or ECDSA private key');
}
