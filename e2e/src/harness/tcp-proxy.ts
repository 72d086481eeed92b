import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpBackend {
  host: string;
  port: number;
}

/**
 * A loopback TCP forwarder in front of one or more servers: the fault-injection seam of the
 * client tests. Each accepted connection goes to the next backend in round-robin order,
 * skipping backends that refuse the connection. TLS passes through untouched.
 */
export interface TcpProxy {
  readonly port: number;
  /** Connections currently open (client side). */
  openConnections(): number;
  /** Connections accepted so far. */
  acceptedConnections(): number;
  /** Destroys every open connection, both sides (clients see a reset or an unexpected EOF); returns how many. */
  killConnections(): number;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Parses the host and port of an http(s) URL. */
export function backendOf(url: string): TcpBackend {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

/** Starts a {@link TcpProxy} on a free 127.0.0.1 port. */
export async function startTcpProxy(backends: readonly TcpBackend[]): Promise<TcpProxy> {
  if (backends.length === 0) throw new Error('startTcpProxy needs at least one backend');
  const pairs = new Set<[Socket, Socket | undefined]>();
  let nextBackend = 0;
  let accepted = 0;

  const dial = (client: Socket, attemptsLeft: number): void => {
    const backend = backends[nextBackend++ % backends.length]!;
    const upstream = connect(backend.port, backend.host);
    const pair: [Socket, Socket | undefined] = [client, upstream];
    pairs.add(pair);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      pairs.delete(pair);
      if (!connected && attemptsLeft > 1 && !client.destroyed) dial(client, attemptsLeft - 1);
      else client.destroy();
    });
    upstream.on('close', () => {
      if (connected) {
        pairs.delete(pair);
        client.destroy();
      }
    });
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    accepted++;
    client.on('error', () => client.destroy());
    dial(client, backends.length);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const killConnections = (): number => {
    const clients = new Set<Socket>();
    for (const [client, upstream] of pairs) {
      clients.add(client);
      client.destroy();
      upstream?.destroy();
    }
    pairs.clear();
    return clients.size;
  };
  return {
    port,
    openConnections: () => new Set([...pairs].map(([c]) => c)).size,
    acceptedConnections: () => accepted,
    killConnections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        killConnections();
      }),
  };
}
