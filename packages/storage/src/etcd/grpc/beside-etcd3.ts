/**
 * Test fixture for comparing kapi's own etcd client with etcd3's: a suite's etcd with both
 * clients on it (made before the suite's tests, closed after them), and the error a call
 * rejected with. Only tests import it.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Etcd3 } from 'etcd3';
import { startEtcd, type TestEtcd } from '../../testing/index.js';
import { createEtcdClient } from '../client.js';
import { createEtcdUnaryClient, type EtcdUnaryClient } from './unary-client.js';

/** The suite's etcd and its two clients (set once the suite's `before` has run). */
export interface BesideEtcd3 {
  readonly etcd: TestEtcd;
  readonly ours: EtcdUnaryClient;
  readonly theirs: Etcd3;
}

/** Registers the suite's hooks (call it in a `describe`) and returns what they set up. */
export function besideEtcd3(options: { maxRequestBytes?: number } = {}): BesideEtcd3 {
  const pair = {} as { etcd: TestEtcd; ours: EtcdUnaryClient; theirs: Etcd3 };
  before(async () => {
    pair.etcd = await startEtcd();
    pair.ours = createEtcdUnaryClient(pair.etcd.endpoints, options);
    pair.theirs = createEtcdClient(pair.etcd.endpoints, options);
  });
  after(async () => {
    pair.ours.close();
    pair.theirs.close();
    await pair.etcd.stop();
  });
  return pair;
}

/** The error `promise` rejected with (fails the test when it resolved). */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected the call to fail');
}
