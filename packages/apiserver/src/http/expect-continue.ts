/**
 * `Expect: 100-continue`, answered so that the interim response can never land inside
 * another response.
 *
 * Node answers it (without a 'checkContinue' listener) the moment the request is parsed. On
 * a keep-alive connection whose previous response has not finished yet, the new response
 * does not own the socket: Node buffers the `100 Continue`, and when the final response is
 * then written as bytes, Node puts its header block in front of that buffer — the client
 * reads `HTTP/1.1 100 Continue` as the first bytes of the body, and the body's tail as the
 * start of the next response.
 *
 * Here the `100 Continue` goes out when the response owns the socket: at once, or when the
 * previous response has finished; not at all when the final response's headers are written
 * before that (Node then closes the connection after the response, as Go's server does when
 * it never asked for the body).
 */
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Handles `Expect: 100-continue` for `server`'s requests (which then reach its 'request'
 * listeners as usual). On HTTP/2 the interim response is a HEADERS frame of the request's own
 * stream and goes out at once.
 */
export function answerExpectContinue(server: EventEmitter): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (res.socket !== null) {
      res.writeContinue();
    } else {
      res.once('socket', () => {
        if (!res.headersSent) res.writeContinue();
      });
    }
    server.emit('request', req, res);
  });
}
