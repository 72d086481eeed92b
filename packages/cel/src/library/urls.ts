/**
 * kube's URL library (k8s.io/apiserver/pkg/cel/library/urls.go): url(), isURL() and the URL
 * accessors. Like Go's url.ParseRequestURI, only absolute URLs and absolute paths parse.
 */
import type { Environment } from '@marcbachmann/cel-js';

export class CelURL {
  constructor(readonly text: string, readonly scheme: string, readonly host: string, readonly hostname: string,
    readonly port: string, readonly escapedPath: string, readonly rawQuery: string) {}
  equals(o: unknown): boolean { return o instanceof CelURL && o.text === this.text; }
}

function hasControlOrSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function parseURL(text: string): CelURL | undefined {
  if (text.length === 0 || hasControlOrSpace(text)) return undefined;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(text);
  if (!m) {
    if (!text.startsWith('/')) return undefined;
    const [path, query = ''] = splitOnce(text.replace(/#.*$/, ''), '?');
    return new CelURL(text, '', '', '', '', path, query);
  }
  const scheme = m[1]!;
  let rest = m[2]!.replace(/#.*$/, '');
  let query = '';
  [rest, query = ''] = splitOnce(rest, '?');
  let host = '';
  let path = rest;
  if (rest.startsWith('//')) {
    const after = rest.slice(2);
    const slash = after.indexOf('/');
    host = slash < 0 ? after : after.slice(0, slash);
    path = slash < 0 ? '' : after.slice(slash);
    const at = host.lastIndexOf('@');
    if (at >= 0) host = host.slice(at + 1);
  } else if (!rest.startsWith('/')) {
    return undefined;
  }
  let hostname = host;
  let port = '';
  const v6 = /^\[([^\]]*)\](?::(\d*))?$/.exec(host);
  if (v6) { hostname = v6[1]!; port = v6[2] ?? ''; }
  else if (host.startsWith('[')) return undefined;
  else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      port = host.slice(colon + 1);
      hostname = host.slice(0, colon);
      if (!/^\d*$/.test(port)) return undefined;
    }
  }
  return new CelURL(text, scheme, host, hostname, port, path, query);
}

function splitOnce(s: string, sep: string): [string, string?] {
  const i = s.indexOf(sep);
  return i < 0 ? [s] : [s.slice(0, i), s.slice(i + 1)];
}

function parseQuery(q: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (q === '') return out;
  for (const part of q.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const [k, v = ''] = splitOnce(part, '=');
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(k.replace(/\+/g, ' '));
      value = decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      continue;
    }
    const list = out.get(key);
    if (list) list.push(value); else out.set(key, [value]);
  }
  return out;
}

export function installURLs(env: Environment): void {
  const U = 'kubernetes.URL';
  env.registerType(U, CelURL);
  env.registerFunction(`url(string): ${U}`, (s: string) => {
    const u = parseURL(s);
    if (!u) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
    return u;
  });
  env.registerFunction('isURL(string): bool', (s: string) => parseURL(s) !== undefined);
  env.registerFunction(`${U}.getScheme(): string`, (u: CelURL) => u.scheme);
  env.registerFunction(`${U}.getHost(): string`, (u: CelURL) => u.host);
  env.registerFunction(`${U}.getHostname(): string`, (u: CelURL) => u.hostname);
  env.registerFunction(`${U}.getPort(): string`, (u: CelURL) => u.port);
  env.registerFunction(`${U}.getEscapedPath(): string`, (u: CelURL) => u.escapedPath);
  env.registerFunction(`${U}.getQuery(): map<string, list<string>>`, (u: CelURL) => parseQuery(u.rawQuery));
  env.registerOperator(`${U} == ${U}`, (a: CelURL, b: CelURL) => a.equals(b));
}
