// @ts-check
/**
 * The cluster's certificates, made once:
 *
 *   node deploy/etcd-certs.mjs DIR NAME...
 *
 * writes the etcd CA and certificates for client and peer mutual TLS: DIR/ca.crt, ca.key,
 * member.crt/.key (every member's server and peer certificate, for the DNS names and IPs
 * given) and client.crt/.key (kapi-apiserver's client certificate); and kapi's own: its
 * client CA (kapi-ca.crt/.key, --client-ca-file), the admin client certificate
 * (admin.crt/.key: CN=kapi-admin, O=system:masters), and a static admin token
 * (admin-token; tokens.csv for --token-auth-file).
 * Existing files are kept. Used by `make cluster` (deploy/cluster.mjs) and by the one-shot
 * `etcd-certs` service of deploy/docker-compose.yml (in the kapi image, which has `selfsigned`).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

const [dir, ...names] = process.argv.slice(2);
if (dir === undefined || names.length === 0) {
  process.stderr.write('usage: etcd-certs.mjs DIR NAME...\n');
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
if (['ca.crt', 'member.crt', 'client.crt'].every((f) => existsSync(join(dir, f)))) process.exit(0);

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
