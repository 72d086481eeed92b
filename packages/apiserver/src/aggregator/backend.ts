/**
 * Requests to an APIService's backend: where (the service resolver), with which TLS (the
 * APIService's caBundle or insecureSkipTLSVerify, the Service's DNS name, the front-proxy
 * client certificate), and Go's wording for what went wrong (kube prints net/http's errors).
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { backendUrl, serviceServerName, type BackendAddress, type BackendAgents, type ServiceResolver } from '../proxy/index.js';
import { serviceOf, type ApiServiceObject } from './apiservices.js';

export interface BackendAccess {
  readonly resolver: ServiceResolver;
  readonly agents: BackendAgents;
}

/** `host:port` as Go prints it (v6 in brackets). */
export function hostPort(address: BackendAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

/** Go's net error text for a failed connection or exchange with `address`. */
export function goNetError(err: unknown, address: BackendAddress): string {
  const e = err as NodeJS.ErrnoException;
  const hp = hostPort(address);
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hp}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${hp}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${hp}: connect: network is unreachable`;
    case 'ECONNRESET':
      return `read tcp ${hp}: read: connection reset by peer`;
    case 'EPIPE':
      return `write tcp ${hp}: write: broken pipe`;
    default:
      return e instanceof Error ? e.message : String(err);
  }
}

/** Resolves the APIService's Service (throws the resolver's errors) and returns the request options for `pathAndQuery`. */
export function backendRequest(access: BackendAccess, apiService: ApiServiceObject, method: string, pathAndQuery: string, headers: OutgoingHttpHeaders, tls?: { readonly insecure?: boolean }): { url: string; address: BackendAddress; options: RequestOptions } {
  const ref = serviceOf(apiService);
  if (ref === undefined) throw new Error(`APIService ${apiService.metadata.name ?? ''} is local`);
  const address = access.resolver.resolve(ref);
  const agent = access.agents.agentFor({
    serverName: serviceServerName(ref),
    ...(tls?.insecure === true || apiService.spec?.insecureSkipTLSVerify === true ? { insecureSkipTLSVerify: true } : {}),
    ...(tls?.insecure !== true && apiService.spec?.caBundle !== undefined ? { caBundle: apiService.spec.caBundle } : {}),
  });
  return {
    url: backendUrl(address, pathAndQuery),
    address,
    options: { host: address.host, port: address.port, method, path: pathAndQuery, headers: { ...headers, host: hostPort(address) }, agent },
  };
}

export interface BackendResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * A GET with a deadline; the whole body is read (at most `maxBytes`). Rejects with an Error
 * whose message is Go's `Get "<url>": <cause>` (a resolver error is thrown as it is).
 */
export function backendGet(access: BackendAccess, apiService: ApiServiceObject, path: string, headers: OutgoingHttpHeaders, options: { readonly timeoutMs: number; readonly insecure?: boolean; readonly maxBytes?: number }): Promise<BackendResponse> {
  const { url, address, options: requestOptions } = backendRequest(access, apiService, 'GET', path, headers, options.insecure !== undefined ? { insecure: options.insecure } : undefined);
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(new Error(`Get ${JSON.stringify(url)}: ${message}`));
    };
    const timer = setTimeout(() => fail('context deadline exceeded (Client.Timeout exceeded while awaiting headers)'), options.timeoutMs);
    const req = httpsRequest(requestOptions, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail('response body too large');
        else chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        fail(goNetError(err, address));
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      fail(goNetError(err, address));
    });
    req.end();
  });
}
