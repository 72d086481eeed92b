// @ts-check
/**
 * The cluster's certificates, made once:
 *
 *   node deploy/etcd-certs.mjs DIR NAME... [--etcd-out=DIR] [--kapi-out=DIR]
 *
 * writes the etcd CA and certificates for client and peer mutual TLS: DIR/ca.crt, ca.key,
 * member.crt/.key (every member's server and peer certificate, for the DNS names and IPs
 * given) and client.crt/.key (kapi-apiserver's client certificate); and kapi's own: its
 * client CA (kapi-ca.crt/.key, --client-ca-file), the admin client certificate
 * (admin.crt/.key: CN=kapi-admin, O=system:masters), a static admin token (admin-token;
 * tokens.csv for --token-auth-file) and the service account key pair (sa.key signs tokens,
 * sa.pub verifies them: --service-account-signing-key-file, --service-account-key-file).
 * Existing files are kept. Used by `make cluster` (deploy/cluster.mjs: everything in one
 * folder) and by the one-shot `etcd-certs` service of deploy/docker-compose.yml (in the kapi
 * image, which has `selfsigned`), which keeps DIR to itself and hands each side only what it
 * needs: --etcd-out gets the members' files (ca.crt, member.crt/.key), --kapi-out kapi's
 * (etcd's ca.crt, client.crt/.key, kapi-ca.crt, tokens.csv, sa.key/.pub, and the admin
 * credentials to copy out); no CA key leaves DIR. Other files in an out folder are removed.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

const options = Object.fromEntries(process.argv.slice(2).filter((a) => a.startsWith('--')).map((a) => [a.slice(2, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const [dir, ...names] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (dir === undefined || names.length === 0 || Object.keys(options).some((k) => k !== 'etcd-out' && k !== 'kapi-out')) {
  process.stderr.write('usage: etcd-certs.mjs DIR NAME... [--etcd-out=DIR] [--kapi-out=DIR]\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });

const now = Date.now();
const validity = { notBeforeDate: new Date(now - 60_000), notAfterDate: new Date(now + 10 * 365 * 24 * 3600 * 1000) };
const ec = /** @type {const} */ ({ keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
/** @param {string} cn */
const authority = (cn) => generate([{ name: 'commonName', value: cn }], {
  ...ec,
  ...validity,
  extensions: [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
  ],
});
/** @param {string} name @param {string} pem @param {number} mode */
const write = (name, pem, mode) => {
  writeFileSync(join(dir, name), pem, { mode });
  chmodSync(join(dir, name), mode);
};
// In docker-compose this runs as root: kapi's image runs as uid 1000 and must read its keys.
const forKapi = (/** @type {string} */ name) => {
  if (process.getuid?.() === 0) chownSync(join(dir, name), 1000, 1000);
};

if (!['kapi-ca.crt', 'admin.crt', 'tokens.csv'].every((f) => existsSync(join(dir, f)))) {
  const kapiCa = await authority('kapi-client-ca');
  const admin = await generate([{ name: 'organizationName', value: 'system:masters' }, { name: 'commonName', value: 'kapi-admin' }], {
    ...ec,
    ...validity,
    ca: { key: kapiCa.private, cert: kapiCa.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  write('kapi-ca.key', kapiCa.private, 0o600);
  write('admin.key', admin.private, 0o600);
  write('admin.crt', admin.cert, 0o644);
  // A static admin token (--token-auth-file), the same flags as the Helm chart's.
  const token = randomBytes(24).toString('hex');
  write('admin-token', `${token}\n`, 0o600);
  write('tokens.csv', `${token},kapi-admin,kapi-admin,"system:masters"\n`, 0o600);
  forKapi('tokens.csv');
  write('kapi-ca.crt', kapiCa.cert, 0o644);
}
if (!existsSync(join(dir, 'sa.pub'))) {
  // Service account tokens, RS256 as kubeadm's sa.key/sa.pub.
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
  write('sa.key', pair.privateKey, 0o600);
  forKapi('sa.key');
  write('sa.pub', pair.publicKey, 0o644);
}
if (!['ca.crt', 'member.crt', 'client.crt'].every((f) => existsSync(join(dir, f)))) await etcdCertificates();
if (options['etcd-out'] !== undefined) handOut(options['etcd-out'], ['ca.crt', 'member.crt', 'member.key'], false);
if (options['kapi-out'] !== undefined) {
  handOut(options['kapi-out'], ['ca.crt', 'client.crt', 'client.key', 'kapi-ca.crt', 'tokens.csv', 'sa.key', 'sa.pub', 'admin.crt', 'admin.key', 'admin-token'], true);
}

/**
 * Copies `files` from DIR into `out` with their modes (owned by kapi's uid when `kapi`), and
 * removes anything else there (what an older layout shared with every container).
 * @param {string} out @param {string[]} files @param {boolean} kapi
 */
function handOut(out, files, kapi) {
  mkdirSync(out, { recursive: true });
  for (const name of readdirSync(out)) if (!files.includes(name)) rmSync(join(out, name), { recursive: true, force: true });
  for (const name of files) {
    const target = join(out, name);
    copyFileSync(join(dir, name), target);
    chmodSync(target, statSync(join(dir, name)).mode & 0o777);
    if (kapi && process.getuid?.() === 0) chownSync(target, 1000, 1000);
  }
}

/** The etcd CA, the members' certificate and kapi's client certificate. */
async function etcdCertificates() {
  const ca = await authority('kapi-etcd-ca');
  /** @param {string} cn @param {object[]} extensions */
  const signed = (cn, extensions) =>
    generate([{ name: 'commonName', value: cn }], { ...ec, ...validity, ca: { key: ca.private, cert: ca.cert }, extensions });
  const member = await signed('etcd', [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
  ]);
  const client = await signed('kapi-apiserver', [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  write('ca.key', ca.private, 0o600);
  write('member.key', member.private, 0o600);
  write('client.key', client.private, 0o600);
  write('member.crt', member.cert, 0o644);
  write('client.crt', client.cert, 0o644);
  // Last: its presence means the set is complete.
  write('ca.crt', ca.cert, 0o644);
  forKapi('client.key');
}
