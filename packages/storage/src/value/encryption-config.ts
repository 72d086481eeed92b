/**
 * `--encryption-provider-config`: an apiserver.config.k8s.io/v1 EncryptionConfiguration
 * (already parsed from YAML or JSON) turned into one value transformer per resource, as
 * kube-apiserver builds them: per provider a prefix (`k8s:enc:aescbc:v1:`, `k8s:enc:aesgcm:v1:`,
 * `k8s:enc:secretbox:v1:`, none for identity), per key its name and `:`; the first provider and
 * its first key write, every provider and key reads.
 */
import { aesCbcTransformer, aesGcmTransformer } from './aes.js';
import { secretboxTransformer } from './secretbox.js';
import { identityTransformer, prefixTransformers, type PrefixedTransformer, type ValueTransformer } from './transformer.js';

/** A resource by group and plural (`""` for the core group). */
export interface GroupResourceName {
  readonly group: string;
  readonly resource: string;
}

/** Which transformer a resource's values go through. */
export interface EncryptionProviders {
  /** The transformer for `resource`: the first configured rule that names it, else identity. */
  transformerFor(resource: GroupResourceName): ValueTransformer;
}

/** Thrown for a configuration kube-apiserver would refuse (the server does not start). */
export class EncryptionConfigError extends Error {
  override readonly name = 'EncryptionConfigError';
}

interface KeyConfig {
  name?: unknown;
  secret?: unknown;
}

const fail = (message: string): never => {
  throw new EncryptionConfigError(message);
};

function decodeKeys(provider: string, value: unknown): { name: string; key: Buffer }[] {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) fail(`${provider === 'secretbox' ? 'secretbox' : 'aes'} provider has no valid keys`);
  for (const k of keys as KeyConfig[]) {
    if (typeof k?.name !== 'string' || k.name === '') fail('key with invalid name provided');
    if (typeof k.secret !== 'string' || k.secret === '') fail(`key ${String(k.name)} has no provided secret`);
  }
  return (keys as { name: string; secret: string }[]).map(({ name, secret }) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(secret) || secret.length % 4 !== 0) fail(`could not obtain secret for named key ${name}: illegal base64 data`);
    return { name, key: Buffer.from(secret, 'base64') };
  });
}

function keyedProvider(provider: 'aescbc' | 'aesgcm' | 'secretbox', config: unknown): PrefixedTransformer {
  const keyed = decodeKeys(provider, config).map(({ name, key }): PrefixedTransformer => {
    if (provider === 'secretbox') {
      if (key.length !== 32) fail(`expected key size 32 for secretbox provider, got ${key.length}`);
      return { prefix: Buffer.from(`${name}:`), transformer: secretboxTransformer(key) };
    }
    if (![16, 24, 32].includes(key.length)) fail(`error while creating cipher for named key ${name}: crypto/aes: invalid key size ${key.length}`);
    return { prefix: Buffer.from(`${name}:`), transformer: provider === 'aescbc' ? aesCbcTransformer(key) : aesGcmTransformer(key) };
  });
  const noKey = `no matching key was found for the provided ${provider === 'secretbox' ? 'Secretbox' : 'AES'} transformer`;
  return { prefix: Buffer.from(`k8s:enc:${provider}:v1:`), transformer: prefixTransformers(noKey, keyed) };
}

function provider(config: unknown): PrefixedTransformer {
  const entry = (config ?? {}) as Record<string, unknown>;
  const names = Object.keys(entry).filter((k) => entry[k] !== undefined && entry[k] !== null);
  if (names.length !== 1) fail('provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
  const name = names[0]!;
  switch (name) {
    case 'aescbc':
    case 'aesgcm':
    case 'secretbox':
      return keyedProvider(name, entry[name]);
    case 'identity':
      return { prefix: Buffer.alloc(0), transformer: identityTransformer };
    case 'kms':
      return fail('kms providers are not supported by kapi: use aescbc, aesgcm, secretbox or identity');
    default:
      return fail('provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
  }
}

/**
 * Builds the transformers of `config`. Throws EncryptionConfigError for a configuration kube
 * refuses: wrong apiVersion/kind, a rule without resources or providers, a provider with no or
 * malformed keys, a key of the wrong size, a kms provider (not built in kapi).
 */
export function encryptionProviders(config: unknown): EncryptionProviders {
  const doc = (config ?? {}) as { apiVersion?: unknown; kind?: unknown; resources?: unknown };
  if (doc.kind !== 'EncryptionConfiguration' || doc.apiVersion !== 'apiserver.config.k8s.io/v1') {
    fail(`no kind "${String(doc.kind)}" is registered for version "${String(doc.apiVersion)}"`);
  }
  if (!Array.isArray(doc.resources) || doc.resources.length === 0) fail('resources: Required value: resources is a required field');
  // Resource name ("secrets", "deployments.apps", "*.apps", "*.", "*.*") → transformer; the first rule naming one wins.
  const byName = new Map<string, ValueTransformer>();
  for (const [i, rule] of (doc.resources as { resources?: unknown; providers?: unknown }[]).entries()) {
    if (!Array.isArray(rule?.resources) || rule.resources.length === 0) fail(`resources[${i}].resources: Required value: resource is a required field`);
    if (!Array.isArray(rule.providers) || rule.providers.length === 0) fail(`resources[${i}].providers: Required value: provider is a required field`);
    const transformer = prefixTransformers('no matching prefix found', (rule.providers as unknown[]).map(provider));
    for (const name of rule.resources as unknown[]) {
      if (typeof name !== 'string' || name === '') fail(`resources[${i}].resources: Invalid value: resource name must not be empty`);
      const normalized = (name as string).toLowerCase();
      if (!byName.has(normalized)) byName.set(normalized, transformer);
    }
  }
  const cache = new Map<string, ValueTransformer>();
  return {
    transformerFor({ group, resource }) {
      const exact = group === '' ? resource : `${resource}.${group}`;
      let found = cache.get(exact);
      if (found === undefined) {
        found = byName.get(exact) ?? byName.get(`*.${group}`) ?? byName.get('*.*') ?? identityTransformer;
        cache.set(exact, found);
      }
      return found;
    },
  };
}
