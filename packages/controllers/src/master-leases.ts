/**
 * kube's master leases over etcd TTL keys: each replica's key is its advertised IP and its
 * value the Endpoints kube writes there (`{"kind":"Endpoints",...,"subsets":[{"addresses":
 * [{"ip":...}]}]}`, generation bumped on every refresh), and how a replica picks the address
 * it advertises when `--advertise-address` is not given.
 */
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import type { MasterLeases } from './kubernetes-service.js';
import type { TtlKeys } from '@kapi/storage';

export function masterLeases(keys: TtlKeys): MasterLeases {
  let generation = 0;
  return {
    async update(ip, ttlSeconds) {
      generation++;
      await keys.put(ip, { kind: 'Endpoints', apiVersion: 'v1', metadata: { generation, creationTimestamp: null }, subsets: [{ addresses: [{ ip }] }] }, ttlSeconds);
    },
    async list() {
      return (await keys.list()).map(({ name }) => name).filter((name) => isIP(name) !== 0);
    },
    remove: (ip) => keys.remove(ip),
  };
}

/**
 * kube's default advertise address: --bind-address when it names one address (not
 * unspecified, not loopback), else the host's first non-loopback IPv4 address (then IPv6).
 * Throws kube's error when there is none.
 */
export function advertisedAddress(bindAddress: string): string {
  const unspecified = bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '';
  const loopback = bindAddress.startsWith('127.') || bindAddress === '::1';
  if (!unspecified && !loopback && isIP(bindAddress) !== 0) return bindAddress;
  const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal);
  const chosen = addresses.find((a) => a.family === 'IPv4') ?? addresses.find((a) => a.family === 'IPv6' && !a.address.startsWith('fe80:'));
  if (chosen === undefined) {
    throw new Error('Unable to find suitable network address. Try to set the AdvertiseAddress directly or provide a valid BindAddress to fix this.');
  }
  return chosen.address;
}
