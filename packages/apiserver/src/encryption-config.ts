/**
 * `--encryption-provider-config`: reads the EncryptionConfiguration file (YAML or JSON) and
 * gives the storage a transformer per etcd key, by the resource whose prefix the key is under.
 */
import { readFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { encryptionProviders, identityTransformer, type ValueTransformer } from '@kapi/storage';

/** A resource's etcd key prefix (`/registry/secrets`) and its group and plural. */
export interface KeyedResource {
  readonly prefix: string;
  readonly group: string;
  readonly resource: string;
}

/**
 * Loads `path` and returns the transformer lookup for keys. `resources` may grow (custom
 * resources join while serving); a key under no known prefix gets identity. Throws an Error
 * with kube's text for a file that cannot be read, is empty or is not a valid configuration.
 */
export function loadEncryptionConfig(path: string, resources: readonly KeyedResource[]): (key: string) => ValueTransformer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`error opening encryption provider configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  if (text.trim() === '') throw new Error(`encryption provider configuration file ${JSON.stringify(path)} is empty`);
  let parsed: unknown;
  try {
    parsed = jsYaml.load(text);
  } catch (err) {
    throw new Error(`error while parsing encryption provider configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  const providers = encryptionProviders(parsed);
  // The resource of a key: the longest prefix it is under, remembered per parent path until
  // the resource list grows.
  let known = -1;
  const byParent = new Map<string, ValueTransformer>();
  return (key) => {
    if (resources.length !== known) {
      known = resources.length;
      byParent.clear();
    }
    const parent = key.slice(0, key.lastIndexOf('/'));
    let found = byParent.get(parent);
    if (found === undefined) {
      let best: KeyedResource | undefined;
      for (const r of resources) {
        if (key.startsWith(`${r.prefix}/`) && (best === undefined || r.prefix.length > best.prefix.length)) best = r;
      }
      found = best === undefined ? identityTransformer : providers.transformerFor(best);
      byParent.set(parent, found);
    }
    return found;
  };
}
