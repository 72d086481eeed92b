export type { ValueTransformer, OpenedValue, PrefixedTransformer } from './transformer.js';
export { identityTransformer, prefixTransformers, ENCRYPTED_PREFIX } from './transformer.js';
export { aesCbcTransformer, aesGcmTransformer } from './aes.js';
export { secretboxTransformer } from './secretbox.js';
export { encryptionProviders, EncryptionConfigError, type EncryptionProviders, type GroupResourceName } from './encryption-config.js';
