/**
 * Posting an AdmissionReview to a webhook over HTTPS: `clientConfig.url`, or
 * `clientConfig.service` resolved to an address (kube's ClusterIP resolver, or endpoints
 * with --enable-aggregator-routing; see ../../proxy) while the certificate is checked against
 * `<name>.<namespace>.svc`. `caBundle` is the only trust when set (else the system roots).
 * Each call has its own deadline (timeoutSeconds): a webhook that does not answer fails only
 * the call waiting on it. Failures are `WebhookCallError`s whose text is what Go's HTTP
 * client would say (`Post "<url>?timeout=10s": dial tcp ...: connect: connection refused`,
 * `context deadline exceeded`, `tls: failed to verify certificate: ...`).
 */
import { Agent, request as httpsRequest } from 'node:https';
import { isStatusError } from '@kapi/machinery';
import { decodeCaBundle, serviceServerName, type ServiceResolver } from '../../proxy/index.js';
import type { WebhookClientConfig } from './configurations.js';

/**
 * A call that did not produce a response to check (kube's ErrCallingWebhook reason); `code`
 * is the status kube's metrics give it: the webhook's HTTP status, else 400.
 */
export class WebhookCallError extends Error {
  constructor(message: string, readonly code = 400) {
    super(message);
  }
}

/** Largest webhook response read (a larger one fails the call). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface WebhookClient {
  /** POSTs `body` (JSON) and returns the decoded JSON response; throws WebhookCallError. */
  post(config: WebhookClientConfig, body: unknown, timeoutSeconds: number): Promise<unknown>;
  /** Closes pooled connections. */
  destroy(): void;
}

export interface Target {
  /** The URL as Go prints it in errors (with `?timeout=`). */
  readonly display: string;
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** The name the certificate must hold when it is not the host (services). */
  readonly servername: string | undefined;
}

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_SIGNATURE_FAILURE',
]);

const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Go's text for a failed connection or TLS handshake. */
export function goNetworkError(err: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }, target: Target): string {
  const code = err.code ?? '';
  const address = hostPort(target.host, target.port);
  if (code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `dial tcp: lookup ${target.host}: no such host`;
  if (code === 'EHOSTUNREACH') return `dial tcp ${address}: connect: no route to host`;
  if (code === 'ENETUNREACH') return `dial tcp ${address}: connect: network is unreachable`;
  if (code === 'ECONNRESET') return `read tcp ${address}: read: connection reset by peer`;
  if (UNKNOWN_AUTHORITY.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = (err.cert?.subjectaltname ?? '').split(', ').map((n) => n.replace(/^(DNS|IP Address):/, '')).filter((n) => n !== '');
    const wanted = target.servername ?? target.host;
    return names.length > 0
      ? `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${wanted}`
      : `tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match ${wanted}`;
  }
  return err.message;
}

/** Go's rest client text for an HTTP error status without a Status body (NewGenericServerResponse). */
export function genericServerResponse(status: number, contentType: string | undefined, body: string): string {
  const text = contentType !== undefined && contentType.startsWith('text/') && body !== '' ? body : 'unknown';
  switch (status) {
    case 400: return 'the server rejected our request for an unknown reason';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'the server could not find the requested resource';
    case 409: return 'the server reported a conflict';
    case 410: return 'the server reported that the resource is gone';
    case 415: return 'the server responded with the status code 415 but did not return more information';
    case 422: return 'the server rejected our request due to an error in our request';
    case 429: return 'the server has received too many requests and has asked us to try again later';
    case 500: return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
    case 503: return 'the server is currently unable to handle the request';
    case 504: return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default: return `the server responded with the status code ${status} but did not return more information`;
  }
}

export function createWebhookClient(resolver: ServiceResolver | undefined): WebhookClient {
  const agents = new Map<string, Agent>();
  const agentFor = (caBundle: string | undefined, servername: string | undefined): Agent => {
    const key = `${caBundle ?? ''}\n${servername ?? ''}`;
    let agent = agents.get(key);
    if (agent === undefined) {
      const ca = decodeCaBundle(caBundle);
      agent = new Agent({ keepAlive: true, ...(ca !== undefined ? { ca } : {}), ...(servername !== undefined ? { servername } : {}) });
      agents.set(key, agent);
      if (agents.size > 256) {
        const [oldestKey, oldest] = agents.entries().next().value as [string, Agent];
        agents.delete(oldestKey);
        oldest.destroy();
      }
    }
    return agent;
  };

  const targetOf = (config: WebhookClientConfig, timeout: string): Target => {
    if (config.url !== undefined) {
      const url = new URL(config.url);
      const port = url.port !== '' ? Number(url.port) : 443;
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      const path = `${url.pathname}${url.search === '' ? `?timeout=${timeout}` : `${url.search}&timeout=${timeout}`}`;
      return { display: `${url.protocol}//${url.host}${path}`, host, port, path, servername: undefined };
    }
    const service = config.service;
    if (service === undefined) throw new WebhookCallError('could not get REST client: webhook clientConfig has neither url nor service');
    const name = serviceServerName(service);
    const path = `${service.path ?? ''}?timeout=${timeout}`;
    const display = `https://${name}:${service.port}${path}`;
    if (resolver === undefined) throw new WebhookCallError(`Post ${JSON.stringify(display)}: no service resolver`);
    let address;
    try {
      address = resolver.resolve({ namespace: service.namespace, name: service.name, port: service.port });
    } catch (err) {
      const message = isStatusError(err) ? err.status.message ?? String(err) : err instanceof Error ? err.message : String(err);
      throw new WebhookCallError(`Post ${JSON.stringify(display)}: ${message}`);
    }
    return { display, host: address.host, port: address.port, path: path.startsWith('/') ? path : `/${path}`, servername: name };
  };

  return {
    post(config, body, timeoutSeconds) {
      let target: Target;
      try {
        target = targetOf(config, `${timeoutSeconds}s`);
      } catch (err) {
        return Promise.reject(err instanceof WebhookCallError ? err : new WebhookCallError(err instanceof Error ? err.message : String(err)));
      }
      const payload = Buffer.from(JSON.stringify(body));
      return new Promise<unknown>((resolve, reject) => {
        let settled = false;
        const fail = (message: string) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(new WebhookCallError(`Post ${JSON.stringify(target.display)}: ${message}`));
        };
        const req = httpsRequest({
          host: target.host,
          port: target.port,
          path: target.path,
          method: 'POST',
          agent: agentFor(config.caBundle, target.servername),
          headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': payload.length, 'user-agent': 'kube-apiserver-admission' },
        }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy();
              fail('response body too large');
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', (err) => fail(err.message));
          res.on('end', () => {
            if (settled) return;
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            let decoded: unknown;
            let decodeError: string | undefined;
            try {
              decoded = JSON.parse(text);
            } catch (err) {
              decodeError = err instanceof Error ? err.message : String(err);
            }
            if (status < 200 || status > 299) {
              const statusBody = decoded as { kind?: string; message?: string } | undefined;
              settled = true;
              clearTimeout(timer);
              const message = statusBody?.kind === 'Status' && typeof statusBody.message === 'string' ? statusBody.message : genericServerResponse(status, res.headers['content-type'], text);
              reject(new WebhookCallError(message, status));
              return;
            }
            if (decodeError !== undefined) {
              fail(decodeError);
              return;
            }
            settled = true;
            clearTimeout(timer);
            resolve(decoded);
          });
        });
        const timer = setTimeout(() => {
          fail('context deadline exceeded');
          req.destroy();
        }, timeoutSeconds * 1000);
        req.on('error', (err) => fail(goNetworkError(err, target)));
        req.end(payload);
      });
    },
    destroy() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
