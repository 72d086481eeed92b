/**
 * The client certificate a test presents to an etcd that asks for one (the local cluster's,
 * compose's and the chart's etcd run mutual TLS with certificates from deploy/etcd-certs.mjs).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** etcd3's `credentials` option. */
export interface EtcdCredentials {
  readonly rootCertificate: Buffer;
  readonly certChain: Buffer;
  readonly privateKey: Buffer;
}

/** The CA and client certificate deploy/etcd-certs.mjs wrote to `dir`, or undefined when there are none (plain etcd). */
export function etcdCredentialsIn(dir: string): EtcdCredentials | undefined {
  if (!existsSync(join(dir, 'client.crt'))) return undefined;
  return {
    rootCertificate: readFileSync(join(dir, 'ca.crt')),
    certChain: readFileSync(join(dir, 'client.crt')),
    privateKey: readFileSync(join(dir, 'client.key')),
  };
}
