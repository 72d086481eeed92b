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
  /** Stops listening (new connections are refused: ECONNREFUSED) and destroys every open connection. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
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
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
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
    pause: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        killConnections();
      }),
    resume: () => listen(port),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) resolve();
        else server.close(() => resolve());
        killConnections();
      }),
  };
}

/** A server a fault schedule can kill and bring back (a `KapiServer`). */
export interface Restartable {
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The fault schedule the informer tests run beside their churn: `cuts` rounds of cutting every
 * connection through `proxy` 1.5 s apart, then SIGKILL of `victim`, a cut, a restart, and a last
 * cut once it is back. Resolves to the number of connections cut.
 */
export async function cutsAndReplicaRestart(proxy: TcpProxy, victim: Restartable, cuts: number): Promise<number> {
  let killed = 0;
  for (let i = 0; i < cuts; i++) {
    await sleep(1500);
    killed += proxy.killConnections();
  }
  await victim.kill('SIGKILL');
  await sleep(500);
  killed += proxy.killConnections();
  await victim.restart();
  await sleep(1000);
  killed += proxy.killConnections();
  return killed;
}
