/**
 * kube's AES transformers (storage/value/encrypt/aes): CBC with PKCS#7 padding (`iv ‖
 * ciphertext`) and GCM with a random 96-bit nonce and the etcd key as authenticated data
 * (`nonce ‖ ciphertext ‖ tag`). Error messages are kube's (Go's for a failed GCM open).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ValueTransformer } from './transformer.js';

const BLOCK = 16;
const NONCE = 12;
const TAG = 16;

function algorithm(mode: 'cbc' | 'gcm', key: Buffer): string {
  if (![16, 24, 32].includes(key.length)) throw new Error(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

export function aesCbcTransformer(key: Buffer): ValueTransformer {
  const name = algorithm('cbc', key);
  return {
    toStorage(data) {
      const iv = randomBytes(BLOCK);
      const cipher = createCipheriv(name, key, iv); // PKCS#7 padding, as kube's
      return Buffer.concat([iv, cipher.update(data), cipher.final()]);
    },
    fromStorage(stored) {
      if (stored.length < BLOCK) throw new Error('the stored data was shorter than the required size');
      const body = stored.subarray(BLOCK);
      if (body.length % BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
      const decipher = createDecipheriv(name, key, stored.subarray(0, BLOCK));
      decipher.setAutoPadding(false);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]);
      const pad = plain.length === 0 ? 0 : plain[plain.length - 1]!;
      if (pad === 0 || pad > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = plain.length - pad; i < plain.length; i++) {
        if (plain[i] !== pad) throw new Error('invalid padding on input');
      }
      return { data: plain.subarray(0, plain.length - pad), stale: false };
    },
  };
}

export function aesGcmTransformer(key: Buffer): ValueTransformer {
  const name = algorithm('gcm', key) as 'aes-128-gcm';
  return {
    toStorage(data, etcdKey) {
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv(name, key, nonce);
      cipher.setAAD(Buffer.from(etcdKey));
      return Buffer.concat([nonce, cipher.update(data), cipher.final(), cipher.getAuthTag()]);
    },
    fromStorage(stored, etcdKey) {
      if (stored.length < NONCE) throw new Error('the stored data was shorter than the required size');
      // Go's GCM Open: anything shorter than a tag, or that does not authenticate, is the same error.
      if (stored.length < NONCE + TAG) throw new Error('cipher: message authentication failed');
      const decipher = createDecipheriv(name, key, stored.subarray(0, NONCE));
      decipher.setAAD(Buffer.from(etcdKey));
      decipher.setAuthTag(stored.subarray(stored.length - TAG));
      try {
        return { data: Buffer.concat([decipher.update(stored.subarray(NONCE, stored.length - TAG)), decipher.final()]), stale: false };
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}
