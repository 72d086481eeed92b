/**
 * kapi does not stream to kubelets or proxy to pods and services: a connect-style
 * subresource resolves its target as kube does (pod → node → address), answers kube's
 * Status for every step that fails, and for a reachable-looking address tries one bounded
 * TCP dial so that an unreachable peer gets kube's dial error instead of a hang.
 */
import { connect } from 'node:net';
import { StatusError, badRequest } from '@kapi/machinery';

/** How long a dial may take before it counts as failed. */
const DIAL_TIMEOUT_MS = 5000;

/** Go's dial error text for `host:port`, e.g. `dial tcp 10.0.0.1:10250: connect: connection refused`. */
function dialErrorText(host: string, port: number, err: NodeJS.ErrnoException | 'timeout'): string {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  if (err === 'timeout') return `dial tcp ${address}: i/o timeout`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${address}: connect: network is unreachable`;
    default:
      return `dial tcp ${address}: ${err.message}`;
  }
}

/** Dials host:port once; undefined when it connects, else Go's dial error text. */
export function dial(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(dialErrorText(host, port, 'timeout')), DIAL_TIMEOUT_MS);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(dialErrorText(host, port, err)));
  });
}

/** A 500 without a reason: how kube passes a plain error from a connect storage through. */
export function plainError(message: string): StatusError {
  return new StatusError({ code: 500, message });
}

/** The answer when the peer accepts the connection: kapi does not relay streams. */
export function relayUnsupported(what: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message: `kapi does not relay ${what}; the peer is reachable but no stream was opened` });
}

/** Loopback, link-local and unspecified addresses: kube's proxy refuses them. */
export function isDisallowedAddress(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '::1' || host.startsWith('127.') || host.startsWith('169.254.') || host.toLowerCase().startsWith('fe80:') || host === 'localhost';
}

/**
 * A proxy's answer when nothing is relayed: kube's refusal of a local address (400 `address
 * not allowed`), a failed dial (503 `error trying to reach service`), else kapi's 503 for a
 * reachable peer (`what` names the relay).
 */
export async function reachProxied(host: string, port: number, what: string): Promise<never> {
  if (isDisallowedAddress(host)) throw badRequest('address not allowed');
  const failed = await dial(host, port);
  if (failed !== undefined) throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: `error trying to reach service: ${failed}` });
  throw relayUnsupported(what);
}
