/**
 * kube-apiserver's `/debug/flags` (served with `/debug/pprof` while --profiling is on): an
 * index page of the flags that can be changed at run time — only `v` — and
 * `PUT /debug/flags/v` with the new log verbosity as the body. As kube:
 *
 * - `/debug/flags`, `/debug/flags/` and every other path under it → the index page, any method.
 * - `/debug/flags/v`: PUT sets the verbosity (a base-10 unsigned 32-bit number, Go's
 *   strconv.ParseUint; its error text on a bad one, 400); every other method → 406
 *   `unsupported http method`. Plain-text answers end with a newline.
 *
 * With --workers, the worker the PUT reaches passes the level on to the others (workers/).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { goQuote } from '@kapi/machinery';
import { readBody } from '../body/read-body.js';
import { send } from './pprof-handler.js';

/** Whether `path` is one kube's debug-flags routes serve. */
export function isDebugFlagsPath(path: string): boolean {
  return path === '/debug/flags' || path.startsWith('/debug/flags/');
}

const INDEX_PAGE = `<html>
<head>
<title>/debug/flags/</title>
</head>
<body>
/debug/flags/<br>
<br>
flags:<br>
<table>

<tr>v<br>

</table>
<br>
full flags configurable<br>
</body>
</html>
`;

const MAX_UINT32 = 2 ** 32 - 1;

/** Go's strconv.ParseUint(text, 10, 32): the value, or the error's text. */
export function parseGoUint32(text: string): number | string {
  if (!/^[0-9]+$/.test(text)) return `strconv.ParseUint: parsing ${goQuote(text)}: invalid syntax`;
  const value = Number(text);
  if (value > MAX_UINT32) return `strconv.ParseUint: parsing ${goQuote(text)}: value out of range`;
  return value;
}

const plainText = (res: ServerResponse, code: number, text: string) => send(res, code, `${text}\n`, { 'Content-Type': 'text/plain', 'X-Content-Type-Options': 'nosniff' });

/** The handler for every path {@link isDebugFlagsPath} accepts; `setVerbosity` changes the log's. */
export function createDebugFlagsHandler(setVerbosity: (level: number) => void): (req: IncomingMessage, res: ServerResponse, url: { readonly path: string }) => Promise<void> {
  return async (req, res, url) => {
    if (url.path !== '/debug/flags/v') return send(res, 200, INDEX_PAGE, { 'Content-Type': 'text/html; charset=utf-8' });
    if (req.method !== 'PUT') return plainText(res, 406, 'unsupported http method');
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (err) {
      return plainText(res, 400, `error reading request body: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = body.toString('utf8');
    const level = parseGoUint32(text);
    if (typeof level === 'string') return plainText(res, 400, level);
    setVerbosity(level);
    plainText(res, 200, `successfully set klog.logging.verbosity to ${text}`);
  };
}
