import { createServer, connect, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';

/** One member's gate: where it listens, and the member's own peer listener it forwards to. */
export interface PeerGateSpec {
  /** The member's name, as partitions name it. */
  member: string;
  /** Where the gate listens: the peer URL the member advertises. */
  listen: { host: string; port: number };
  /** The member's real `--listen-peer-urls` address. */
  target: { host: string; port: number };
}

/** The gates of a cluster's members, which drop the peer (raft) traffic of partitioned members. */
export interface PeerGates {
  /**
   * Cuts a member off from the others: its open peer connections (either direction) are cut
   * and new ones are accepted and black-holed (their bytes read and discarded, nothing
   * forwarded), so both directions go silent, as when packets are dropped.
   */
  partition(member: string): void;
  /** Undoes the partition of `member` (every member's when absent); the connections it black-holed are cut so the members redial at once. */
  heal(member?: string): void;
  /** The partitioned members, sorted. */
  partitioned(): string[];
  /** Open and black-holed connections per `<sender>-><receiver>` (`?` when the sender is unknown). */
  connections(): Record<string, { open: number; dropped: number }>;
  /** Cuts every connection and closes the listeners. */
  close(): Promise<void>;
}

interface PeerConnection {
  /** The sending member, when the request head named it. */
  from: string | undefined;
  to: string;
  client: Socket;
  upstream: Socket | undefined;
  blackholed: boolean;
}

/**
 * Opens one TCP gate per member. Each member listens for peers on its own port but advertises
 * its gate's, so every peer connection to member M passes through M's gate. A connection is
 * attributed to its sender by the `X-PeerURLs` header etcd's rafthttp puts on every stream and
 * pipeline request (the sender's advertised peer URL, its gate). Connections without the header
 * (etcd's /version and /members probes, or one that sends nothing for a second) are dropped
 * only when their receiver is partitioned. Client traffic never passes here: a partitioned
 * member still answers clients, as a real partitioned member would.
 *
 * Resolves once every gate listens; rejects (closing the others) when one cannot.
 */
export interface PeerGateOptions {
  /**
   * Peer traffic over mutual TLS (etcd's --peer-client-cert-auth): each gate ends the TLS of
   * the connections it accepts (asking for a certificate of `ca`) and opens its own to the
   * member with `cert`/`key` (a member certificate, usable for server and client auth), so it
   * can still read the sender from the request head. PEM strings.
   */
  readonly tls?: { readonly cert: string; readonly key: string; readonly ca: string };
}

export async function openPeerGates(specs: readonly PeerGateSpec[], options: PeerGateOptions = {}): Promise<PeerGates> {
  const tls = options.tls;
  const partitioned = new Set<string>();
  const connections = new Set<PeerConnection>();
  const dropped = (c: PeerConnection) => partitioned.has(c.to) || (c.from !== undefined && partitioned.has(c.from));
  const senderOf = (head: string): string | undefined => {
    const header = /^x-peerurls:\s*(.*)$/im.exec(head)?.[1] ?? '';
    for (const url of header.split(',')) {
      const port = Number(/:(\d+)\/?\s*$/.exec(url.trim())?.[1]);
      const gate = specs.find((g) => g.listen.port === port);
      if (gate) return gate.member;
    }
    return undefined;
  };
  const blackhole = (c: PeerConnection) => {
    c.blackholed = true;
    c.upstream?.destroy();
    c.client.on('data', () => {});
    c.client.resume();
  };

  const accept = (spec: PeerGateSpec, client: Socket) => {
    const conn: PeerConnection = { from: undefined, to: spec.member, client, upstream: undefined, blackholed: false };
    connections.add(conn);
    client.on('error', () => {});
    client.on('close', () => {
      conn.upstream?.destroy();
      connections.delete(conn);
    });
    let head = Buffer.alloc(0);
    const decide = () => {
      client.removeListener('data', onData);
      clearTimeout(timer);
      client.pause();
      conn.from = senderOf(head.toString('latin1'));
      if (dropped(conn)) {
        blackhole(conn);
        return;
      }
      const upstream = tls !== undefined
        ? tlsConnect({ port: spec.target.port, host: spec.target.host, cert: tls.cert, key: tls.key, ca: tls.ca })
        : connect(spec.target.port, spec.target.host);
      conn.upstream = upstream;
      upstream.on('error', () => client.destroy());
      upstream.on('close', () => client.destroy());
      upstream.write(head);
      client.pipe(upstream).pipe(client);
      client.resume();
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.includes('\r\n\r\n') || head.length > 16384) decide();
    };
    // A connection that sends nothing for a second is not a member's request: let it through.
    const timer = setTimeout(decide, 1000);
    client.on('data', onData);
  };

  const servers: Server[] = [];
  const close = async () => {
    for (const c of connections) {
      c.client.destroy();
      c.upstream?.destroy();
    }
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  };
  try {
    for (const spec of specs) {
      const server = tls !== undefined
        ? createTlsServer({ cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: true, rejectUnauthorized: true }, (client) => accept(spec, client))
        : createServer((client) => accept(spec, client));
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', (err) => reject(new Error(`cannot listen on ${spec.listen.host}:${spec.listen.port} for ${spec.member}: ${err.message}`)));
        server.listen(spec.listen.port, spec.listen.host, () => resolve());
      });
    }
  } catch (err) {
    await close();
    throw err;
  }

  return {
    partition(member) {
      partitioned.add(member);
      for (const c of connections) if (!c.blackholed && dropped(c)) c.client.destroy();
    },
    heal(member) {
      for (const m of member === undefined ? [...partitioned] : [member]) partitioned.delete(m);
      for (const c of connections) if (c.blackholed && !dropped(c)) c.client.destroy();
    },
    partitioned: () => [...partitioned].sort(),
    connections() {
      const counts: Record<string, { open: number; dropped: number }> = {};
      for (const c of connections) {
        const entry = (counts[`${c.from ?? '?'}->${c.to}`] ??= { open: 0, dropped: 0 });
        entry[c.blackholed ? 'dropped' : 'open']++;
      }
      return counts;
    },
    close,
  };
}
