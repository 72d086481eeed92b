/**
 * The kubeconfig of --audit-webhook-config-file, read as kube's clientcmd reads it for a
 * webhook: the current context's cluster (server, certificate-authority[-data],
 * insecure-skip-tls-verify, tls-server-name) and user (client-certificate[-data] and
 * client-key[-data], token or tokenFile, username/password). Relative file names are taken
 * from the kubeconfig's folder. exec and auth-provider plugins are not built: an error.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface WebhookTarget {
  readonly url: URL;
  readonly ca?: string;
  readonly insecureSkipTLSVerify: boolean;
  readonly serverName?: string;
  readonly cert?: string;
  readonly key?: string;
  /** The Authorization header, if the user has a token or a basic-auth pair. */
  readonly authorization?: string;
}

type Named = { name?: unknown; [key: string]: unknown };

function errnoText(err: unknown, file: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `stat ${file}: no such file or directory`;
  if (code === 'EACCES') return `open ${file}: permission denied`;
  return err instanceof Error ? err.message : String(err);
}

/** Reads the kubeconfig; throws with clientcmd's texts (the caller prefixes `initializing audit webhook: `). */
export function loadWebhookKubeconfig(file: string): WebhookTarget {
  let text: string;
  try {
    statSync(file);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(errnoText(err, file));
  }
  let config: Record<string, unknown>;
  try {
    const parsed = parseYaml(text) as unknown;
    config = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch (err) {
    throw new Error(`error loading config file "${file}": ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const base = dirname(file);
  const resolve = (path: string) => (isAbsolute(path) ? path : join(base, path));
  const readRef = (path: string): string => {
    try {
      return readFileSync(resolve(path), 'utf8');
    } catch (err) {
      throw new Error(`invalid configuration: ${errnoText(err, resolve(path))}`);
    }
  };
  const find = (list: unknown, name: string, field: string): Record<string, unknown> | undefined => {
    if (!Array.isArray(list)) return undefined;
    const entry = (list as Named[]).find((e) => e !== null && typeof e === 'object' && e.name === name);
    const value = entry?.[field];
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  };
  const str = (obj: Record<string, unknown> | undefined, key: string): string => (typeof obj?.[key] === 'string' ? (obj[key] as string) : '');

  const current = typeof config['current-context'] === 'string' ? config['current-context'] : '';
  const context = current !== '' ? find(config['contexts'], current, 'context') : undefined;
  if (current !== '' && context === undefined) throw new Error(`invalid configuration: context was not found for specified context: ${current}`);
  const cluster = find(config['clusters'], str(context, 'cluster'), 'cluster');
  const user = find(config['users'], str(context, 'user'), 'user');
  const server = str(cluster, 'server');
  if (server === '') throw new Error('invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable');
  let url: URL;
  try {
    url = new URL(server.includes('://') ? server : `https://${server}`);
  } catch {
    throw new Error(`invalid configuration: host must be a URL or a host:port pair: ${JSON.stringify(server)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`invalid configuration: unsupported scheme ${JSON.stringify(url.protocol.slice(0, -1))} in ${JSON.stringify(server)}`);
  if (user?.['exec'] !== undefined && user['exec'] !== null) throw new Error('invalid configuration: exec credential plugins are not supported by kapi');
  if (user?.['auth-provider'] !== undefined && user['auth-provider'] !== null) throw new Error('invalid configuration: auth-provider plugins are not supported by kapi');

  const data = (key: string) => (str(cluster, key) !== '' ? Buffer.from(str(cluster, key), 'base64').toString('utf8') : undefined);
  const userData = (key: string) => (str(user, key) !== '' ? Buffer.from(str(user, key), 'base64').toString('utf8') : undefined);
  const ca = data('certificate-authority-data') ?? (str(cluster, 'certificate-authority') !== '' ? readRef(str(cluster, 'certificate-authority')) : undefined);
  const cert = userData('client-certificate-data') ?? (str(user, 'client-certificate') !== '' ? readRef(str(user, 'client-certificate')) : undefined);
  const key = userData('client-key-data') ?? (str(user, 'client-key') !== '' ? readRef(str(user, 'client-key')) : undefined);
  if ((cert === undefined) !== (key === undefined)) throw new Error('invalid configuration: client-cert-data and client-key-data must both be specified');
  const insecure = cluster?.['insecure-skip-tls-verify'] === true;
  if (insecure && ca !== undefined) throw new Error('invalid configuration: certificate-authority-data and insecure-skip-tls-verify cannot both be specified');
  let token = str(user, 'token');
  if (token === '' && str(user, 'tokenFile') !== '') token = readRef(str(user, 'tokenFile')).trim();
  const username = str(user, 'username');
  if (token !== '' && username !== '') throw new Error('invalid configuration: username/password or bearer token may be set, but not both');
  const authorization = token !== '' ? `Bearer ${token}` : username !== '' ? `Basic ${Buffer.from(`${username}:${str(user, 'password')}`).toString('base64')}` : undefined;
  const serverName = str(cluster, 'tls-server-name');
  return {
    url,
    insecureSkipTLSVerify: insecure,
    ...(ca !== undefined ? { ca } : {}),
    ...(serverName !== '' ? { serverName } : {}),
    ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    ...(authorization !== undefined ? { authorization } : {}),
  };
}
