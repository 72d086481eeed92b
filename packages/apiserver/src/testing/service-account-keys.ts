/**
 * A service account key pair for tests: an RSA private key (the signing key file) and its
 * public key (the verification key file), PEM, in a fresh directory.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServiceAccountKeyFiles {
  readonly dir: string;
  /** PKCS#1 RSA private key (--service-account-signing-key-file). */
  readonly signingKeyFile: string;
  /** PKIX public key (--service-account-key-file). */
  readonly keyFile: string;
}

export function writeServiceAccountKeys(dir = mkdtempSync(join(tmpdir(), 'kapi-sa-'))): ServiceAccountKeyFiles {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKeyFile = join(dir, 'sa.key');
  const keyFile = join(dir, 'sa.pub');
  writeFileSync(signingKeyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }));
  writeFileSync(keyFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { dir, signingKeyFile, keyFile };
}
