/**
 * Requests Node's HTTP parser refuses (a method it does not know, a malformed request line
 * or header, headers past the size limit, a request not received in time) are answered on
 * the socket, as Go's net/http answers a malformed request: `400 Bad Request` (431, 413, 408
 * for the limits, Node's texts) with `Connection: close`, then the connection closes; a
 * method Node does not know gets kube's 405 MethodNotAllowed Status (Go reads any method).
 *
 * Node's own handler writes that answer only when no response is in progress on the
 * connection; when the previous response on a keep-alive connection has not finished (its
 * last bytes handed to the socket but not yet flushed, or a slow one still being written), it
 * closes the connection without a word, cutting that response short. Here the answer waits
 * for the responses in progress to finish, in order, and follows them.
 */
import type { EventEmitter } from 'node:events';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { methodNotRegistered } from './generic-errors.js';

/** How long the answer may take to flush before the socket is cut. */
const CLOSE_GRACE_MS = 5_000;

function answerFor(err: NodeJS.ErrnoException): Buffer {
  if (err.code === 'HPE_INVALID_METHOD') {
    // Go parses any method token and kube's handlers refuse one they do not route with a
    // 405 MethodNotAllowed Status (kube-apiserver 1.32); Node's parser stops earlier, so that
    // answer is written here, with the Audit-Id every kube answer carries (a new one: the
    // request's headers are not parsed this far).
    const body = `${JSON.stringify(methodNotRegistered().status)}\n`;
    return Buffer.from(
      `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nAudit-Id: ${randomUUID()}\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      'latin1',
    );
  }
  const code =
    err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  return Buffer.from(`HTTP/1.1 ${code} ${STATUS_CODES[code]}\r\nConnection: close\r\n\r\n`, 'latin1');
}

/** The response that owns `socket` now (Node's own field; null or absent when none). */
function responseInProgress(socket: Socket): ServerResponse | null | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
}

/** Answers the client errors of `server`'s connections (see the file comment). */
export function answerClientErrors(server: EventEmitter): void {
  const answered = new WeakSet<Socket>();
  const lastRequest = new WeakMap<Socket, IncomingMessage>();
  server.on('request', (req: IncomingMessage) => lastRequest.set(req.socket, req));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    // A reset or broken connection has no one to answer, nor has a failed TLS handshake (an
    // HTTP/2 server reports those here too).
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable || err.code?.startsWith('ERR_SSL_') === true || err.code?.startsWith('ERR_TLS_') === true) {
      socket.destroy();
      return;
    }
    const answer = answerFor(err);
    if (lastRequest.get(socket)?.complete === false) {
      // The error is in the body of a request being served: that request fails with the
      // connection (its handler sees it aborted), answered as Node does.
      if (responseInProgress(socket)?.headersSent !== true) socket.write(answer);
      socket.destroy();
      return;
    }
    const send = (): void => {
      if (socket.destroyed || !socket.writable) return;
      const current = responseInProgress(socket);
      if (current) {
        // Responses finish in order; each hands the socket to the next (or to none).
        current.once('close', () => setImmediate(send));
        return;
      }
      socket.end(answer);
      const cut = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
      cut.unref();
      socket.once('close', () => clearTimeout(cut));
    };
    send();
  });
}
