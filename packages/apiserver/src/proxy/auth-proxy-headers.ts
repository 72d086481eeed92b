/**
 * The identity a proxied request carries to a backend that trusts the front-proxy client
 * certificate: kube's transport.SetAuthProxyHeaders. The header names are kube's fixed ones
 * (X-Remote-User, X-Remote-Uid, X-Remote-Group, X-Remote-Extra-<key>), whatever the
 * --requestheader-* flags of this server say (those name what this server reads).
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../auth/user.js';

const TOKEN_BYTES = /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/;

/** kube's headerKeyEscape: bytes not legal in a header name, and `%`, become %XX. */
export function escapeExtraKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && TOKEN_BYTES.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Whether a request header is one of the identity headers (dropped from what a client sent). */
export function isAuthProxyHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'x-remote-user' || lower === 'x-remote-uid' || lower === 'x-remote-group' || lower.startsWith('x-remote-extra-');
}

/**
 * The identity headers for `user`. `uid`: also X-Remote-Uid (kube sends it only with the
 * RemoteRequestHeaderUID feature gate, and only when the user has one).
 */
export function authProxyHeaders(user: UserInfo, options: { readonly uid?: boolean } = {}): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'X-Remote-User': user.name };
  if (options.uid === true && user.uid !== '') headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra)) {
    if (values.length > 0) headers[`X-Remote-Extra-${escapeExtraKey(key)}`] = [...values];
  }
  return headers;
}
