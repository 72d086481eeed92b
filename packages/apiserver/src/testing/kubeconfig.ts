import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** The server URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** A PEM file clients trust for the server; omit to skip TLS verification instead. */
  certificateAuthority?: string;
  /** Context, cluster and user name; default `kapi`. */
  name?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /**
   * Bearer token of the user; default `kapi-local` (kapi has no authentication yet). kubectl
   * needs some credential: with none over HTTPS it prompts for a username on stdin.
   */
  token?: string;
}

/**
 * The text of a kubeconfig with one cluster, one user with a placeholder bearer token,
 * and one current context. Without `certificateAuthority` the cluster sets `insecure-skip-tls-verify: true`.
 */
export function kubeconfigYaml(options: KubeconfigOptions): string {
  const name = options.name ?? 'kapi';
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.certificateAuthority !== undefined) cluster['certificate-authority'] = options.certificateAuthority;
  else cluster['insecure-skip-tls-verify'] = true;
  const context: Record<string, unknown> = { cluster: name, user: name };
  if (options.namespace !== undefined) context.namespace = options.namespace;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: options.token ?? 'kapi-local' } }],
    contexts: [{ name, context }],
    'current-context': name,
    preferences: {},
  });
}

/** Writes {@link kubeconfigYaml} to `path` (mode 0600), replacing any file there. */
export function writeKubeconfig(path: string, options: KubeconfigOptions): void {
  writeFileSync(path, kubeconfigYaml(options), { mode: 0o600 });
}
