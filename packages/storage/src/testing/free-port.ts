import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: binds port 0, reads the port the
 * kernel chose, and releases it. Another process may take it before the caller binds it, so
 * callers that spawn servers on it should retry on a bind failure.
 */
const handedOut = new Set<number>();

/**
 * Like `freePort`, but never returns a port this process was already given, so concurrent
 * callers in one process (and the client/peer pair of one etcd) never collide.
 */
export async function freshPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not find a fresh free port');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the bound port'));
        return;
      }
      const port = address.port;
      server.close(() => resolve(port));
    });
  });
}
