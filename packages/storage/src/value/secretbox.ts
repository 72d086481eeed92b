/**
 * kube's secretbox transformer: NaCl secretbox (XSalsa20-Poly1305) with a random 24-byte
 * nonce, stored as `nonce ‖ box`. No authenticated data.
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import type { ValueTransformer } from './transformer.js';

const NONCE = 24;

export function secretboxTransformer(key: Buffer): ValueTransformer {
  if (key.length !== 32) throw new Error(`secretbox key must be 32 bytes, got ${key.length}`);
  const secret = new Uint8Array(key);
  return {
    toStorage(data) {
      const nonce = randomBytes(NONCE);
      return Buffer.concat([nonce, nacl.secretbox(data, nonce, secret)]);
    },
    fromStorage(stored) {
      if (stored.length < NONCE) throw new Error('the stored data was shorter than the required size');
      const opened = nacl.secretbox.open(stored.subarray(NONCE), stored.subarray(0, NONCE), secret);
      if (opened === null) throw new Error('output array was not large enough for encryption');
      return { data: Buffer.from(opened.buffer, opened.byteOffset, opened.length), stale: false };
    },
  };
}
