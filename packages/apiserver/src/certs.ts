/**
 * Serving certificates: the given --tls-cert-file/--tls-private-key-file, or a self-signed
 * pair kept in --cert-dir (`apiserver.crt`/`apiserver.key`, as kube names them), generated
 * on first start and reused afterwards.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

export interface CertificateOptions {
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly certDir: string;
  /** Extra DNS names or IPs for the generated certificate's SANs. */
  readonly extraNames?: readonly string[];
}

const IP = /^(\d{1,3}\.){3}\d{1,3}$|:/;

/**
 * Reads the configured pair, or reuses/generates the self-signed pair in `certDir`. Throws
 * an Error naming the file for unreadable files or an unwritable directory.
 */
export async function loadServingCertificate(options: CertificateOptions): Promise<ServingCertificate> {
  if (options.certFile && options.keyFile) {
    return { cert: readFileSync(options.certFile, 'utf8'), key: readFileSync(options.keyFile, 'utf8') };
  }
  const certPath = join(options.certDir, 'apiserver.crt');
  const keyPath = join(options.certDir, 'apiserver.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  }
  const names = new Set(['localhost', '127.0.0.1', '::1', hostname(), ...(options.extraNames ?? [])]);
  const altNames = [...names].map((n) => (IP.test(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n }));
  const now = new Date();
  // Imported here: loading it costs ~0.25 s of CPU, and a restart reuses the pair on disk.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: `localhost@${Math.floor(now.getTime() / 1000)}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  try {
    mkdirSync(options.certDir, { recursive: true });
    writeFileSync(certPath, pems.cert, { mode: 0o644 });
    writeFileSync(keyPath, pems.private, { mode: 0o600 });
  } catch (err) {
    throw new Error(`unable to write self-signed certificate to ${options.certDir}: ${(err as Error).message}`);
  }
  return { cert: pems.cert, key: pems.private };
}
