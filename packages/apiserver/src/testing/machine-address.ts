/**
 * An address of this machine other than loopback, for tests that register Endpoints: kube
 * (and kapi) refuse loopback, link-local and unspecified endpoint addresses.
 */
import { networkInterfaces } from 'node:os';

/** A non-internal, non-link-local IPv4 address of this machine, or undefined when it has none. */
export function machineAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) return a.address;
  }
  return undefined;
}
