import { randomBytes } from 'node:crypto';

/**
 * A key prefix no other test shares (`/kapi-test-<hex>` by default), so tests sharing one etcd
 * never see each other's keys. It starts with "/" and does not end with one.
 */
export function uniquePrefix(label = 'kapi-test'): string {
  return `/${label}-${randomBytes(6).toString('hex')}`;
}
