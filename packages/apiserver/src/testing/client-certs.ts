/**
 * Test certificates made with the openssl CLI: a CA and client certificates it signs (CN =
 * user, O = groups), written under a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pem {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface TestCa extends Pem {
  readonly dir: string;
  /** A client certificate for `user` in `groups`, signed by this CA. */
  client(user: string, groups?: readonly string[], options?: { days?: number; usage?: 'clientAuth' | 'serverAuth' }): Pem;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function createTestCa(name = 'kapi-test-ca'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-ca-'));
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.crt');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', caKey, '-out', caCert, '-days', '2', '-subj', `/CN=${name}`], dir);
  let serial = 0;
  return {
    dir,
    cert: readFileSync(caCert, 'utf8'),
    key: readFileSync(caKey, 'utf8'),
    certFile: caCert,
    keyFile: caKey,
    client(user, groups = [], options = {}) {
      const base = join(dir, `client-${++serial}`);
      const subject = [...groups.map((g) => `/O=${g}`), `/CN=${user}`].join('');
      openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject], dir);
      const ext = `${base}.ext`;
      execFileSync('sh', ['-c', `printf 'extendedKeyUsage=${options.usage ?? 'clientAuth'}\\n' > '${ext}'`]);
      openssl(['x509', '-req', '-in', `${base}.csr`, '-CA', caCert, '-CAkey', caKey, '-CAcreateserial', '-out', `${base}.crt`, '-days', String(options.days ?? 1), '-extfile', ext], dir);
      return { cert: readFileSync(`${base}.crt`, 'utf8'), key: readFileSync(`${base}.key`, 'utf8'), certFile: `${base}.crt`, keyFile: `${base}.key` };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
