// @ts-check
/**
 * The etcd CA and certificates for client and peer mutual TLS, made once:
 *
 *   node deploy/etcd-certs.mjs DIR NAME...
 *
 * writes DIR/ca.crt, ca.key, member.crt/.key (every member's server and peer certificate, for
 * the DNS names and IPs given) and client.crt/.key (kapi-apiserver's client certificate).
 * Existing files are kept. Used by `make cluster` (deploy/cluster.mjs) and by the one-shot
 * `etcd-certs` service of deploy/docker-compose.yml (in the kapi image, which has `selfsigned`).
 */
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

const [dir, ...names] = process.argv.slice(2);
if (dir === undefined || names.length === 0) {
  process.stderr.write('usage: etcd-certs.mjs DIR NAME...\n');
  process.exit(2);
}
if (['ca.crt', 'member.crt', 'client.crt'].every((f) => existsSync(join(dir, f)))) process.exit(0);
mkdirSync(dir, { recursive: true });

const now = Date.now();
const validity = { notBeforeDate: new Date(now - 60_000), notAfterDate: new Date(now + 10 * 365 * 24 * 3600 * 1000) };
const ec = /** @type {const} */ ({ keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
const ca = await generate([{ name: 'commonName', value: 'kapi-etcd-ca' }], {
  ...ec,
  ...validity,
  extensions: [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
  ],
});
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
/** @param {string} name @param {string} pem @param {number} mode */
const write = (name, pem, mode) => {
  writeFileSync(join(dir, name), pem, { mode });
  chmodSync(join(dir, name), mode);
};
write('ca.key', ca.private, 0o600);
write('member.key', member.private, 0o600);
write('client.key', client.private, 0o600);
write('member.crt', member.cert, 0o644);
write('client.crt', client.cert, 0o644);
// Last: its presence means the set is complete.
write('ca.crt', ca.cert, 0o644);
// In docker-compose this runs as root: kapi's image runs as uid 1000 and must read its key.
if (process.getuid?.() === 0) chownSync(join(dir, 'client.key'), 1000, 1000);
