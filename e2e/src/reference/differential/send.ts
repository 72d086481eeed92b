/**
 * One scripted request sent to a server, and its answer reduced to what a client reads:
 * status, the headers clients act on, and the body (parsed when JSON, text otherwise; a
 * watch stream as its list of events).
 */
import { request } from 'node:https';

export interface Answer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly warning: string | undefined;
  readonly auditId: boolean;
  readonly allow: string | undefined;
  /** JSON value, a watch's events, the text of a non-JSON body, or `<N bytes>` for binary. */
  readonly body: unknown;
}

export interface Request {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  readonly body?: unknown;
}

function parseBody(contentType: string | undefined, bytes: Buffer, watch: boolean): unknown {
  if (bytes.length === 0) return '';
  const type = (contentType ?? '').split(';')[0]!.trim();
  if (type === 'application/json' || type === 'application/merge-patch+json') {
    const text = bytes.toString('utf8');
    if (watch) return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as unknown);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  if (type.startsWith('text/') || type === 'application/yaml') return bytes.toString('utf8');
  return `<${type || 'untyped'} body>`;
}

/** Sends `req` to `base` with `token` and collects the whole answer (watches must end by themselves). */
export function send(base: string, token: string, req: Request, timeoutMs = 15_000): Promise<Answer> {
  let data: Buffer | undefined;
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...req.headers };
  if (req.body !== undefined) {
    data = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(data.length);
  }
  const watch = /[?&]watch=(true|1)/.test(req.path);
  return new Promise((resolve, reject) => {
    const r = request(`${base}${req.path}`, { method: req.method, rejectUnauthorized: false, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const contentType = res.headers['content-type'];
        const warning = res.headers['warning'];
        resolve({
          status: res.statusCode ?? 0,
          contentType,
          warning: Array.isArray(warning) ? warning.join(', ') : warning,
          auditId: res.headers['audit-id'] !== undefined,
          allow: res.headers['allow'],
          body: req.method === 'HEAD' ? '' : parseBody(contentType, Buffer.concat(chunks), watch),
        });
      });
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error(`${req.method} ${req.path}: no answer within ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(data);
  });
}
