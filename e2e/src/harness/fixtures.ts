import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** Writes `object` as JSON to `<dir>/<fileName>` and returns the path. */
export function writeJsonFile(dir: string, fileName: string, object: unknown): string {
  const path = join(dir, fileName);
  writeFileSync(path, JSON.stringify(object, null, 2));
  return path;
}

/** Writes `object` as YAML to `<dir>/<fileName>` and returns the path. */
export function writeYamlFile(dir: string, fileName: string, object: unknown): string {
  const path = join(dir, fileName);
  writeFileSync(path, stringify(object));
  return path;
}

/** A ConfigMap manifest. */
export function configMap(namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  };
}
