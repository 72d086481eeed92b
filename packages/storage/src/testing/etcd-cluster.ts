import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPort, listensOn } from './free-port.js';
import { openPeerGates, type PeerGates } from './peer-gate.js';

export interface StartEtcdClusterOptions {
  /** The etcd binary; default `$KAPI_ETCD_BIN` or `etcd` from PATH. */
  binary?: string;
  /** Number of members (default 3). */
  members?: number;
  /** `--heartbeat-interval` in ms (default 50; etcd's default is 100). */
  heartbeatMs?: number;
  /** `--election-timeout` in ms (default 500; etcd's default is 1000). */
  electionMs?: number;
  /** `--experimental-watch-progress-notify-interval` in ms (etcd's default is 10 minutes). */
  watchProgressNotifyIntervalMs?: number;
  /** Extra flags for every member. */
  extraArgs?: string[];
  /** How long to wait for every member to report healthy; default 30000 ms. */
  startTimeoutMs?: number;
  /** Copy etcd's output to this process's stderr (default false; `KAPI_ETCD_VERBOSE=1` too). */
  verbose?: boolean;
}

/** One member of a test cluster. */
export interface EtcdClusterMember {
  /** `m0`, `m1`, ... */
  readonly name: string;
  /** The member's client URL. */
  readonly endpoint: string;
}

/** What a member says about itself (`/v3/maintenance/status`). */
export interface EtcdMemberStatus {
  /** The member's id (decimal string). */
  memberId: string;
  /** The leader this member follows (decimal string); "0" when it has none. */
  leader: string;
  raftIndex: number;
}

/** A real multi-member etcd cluster started for a test, whose members can be partitioned. */
export interface TestEtcdCluster {
  /** Every member's client URL, in member order. */
  readonly endpoints: string[];
  readonly members: readonly EtcdClusterMember[];
  /** The member whose client URL is `endpoint`, or `host:port` as the etcd3 client names it. */
  memberAt(endpoint: string): EtcdClusterMember | undefined;
  /**
   * Cuts a member off from the others: all raft traffic to and from it is dropped (open peer
   * connections are cut, new ones are accepted and black-holed). Clients still reach it, as
   * they would reach a real partitioned member.
   */
  partition(member: EtcdClusterMember): void;
  /** Undoes every partition; the black-holed connections are cut so that members redial at once. */
  heal(): void;
  /** Freezes a member (SIGSTOP): its connections stay open but it answers nothing — a hung member. */
  pause(member: EtcdClusterMember): void;
  /** Unfreezes a member after `pause` (SIGCONT). */
  resume(member: EtcdClusterMember): void;
  /** The member's own view (`/v3/maintenance/status`). */
  status(member: EtcdClusterMember): Promise<EtcdMemberStatus>;
  /** Resolves once `member` reports that it has no leader; rejects after `timeoutMs`. */
  waitLeaderless(member: EtcdClusterMember, timeoutMs?: number): Promise<void>;
  /** Resolves once every member not partitioned follows one leader; rejects after `timeoutMs`. */
  waitLeader(timeoutMs?: number): Promise<EtcdClusterMember>;
  /** Kills every member, closes the gates and deletes the data. Idempotent. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const live = new Set<{ children: ChildProcess[]; dir: string }>();
let exitHandlerInstalled = false;

function installExitHandler(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const entry of live) {
      for (const child of entry.children) {
        try {
          child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(entry.dir, { recursive: true, force: true });
    }
  });
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

/**
 * Starts an etcd cluster of real `etcd` processes on free loopback ports, with short raft
 * timeouts so that a partitioned member notices within a second or so. Every member's peer
 * URL is advertised through a gate in this process (`openPeerGates`, which the local
 * cluster's deploy/peer-gate.mjs runs too), so `partition` can drop exactly the raft traffic
 * to and from one member while clients still reach it.
 */
export async function startEtcdCluster(options: StartEtcdClusterOptions = {}): Promise<TestEtcdCluster> {
  installExitHandler();
  const binary = options.binary ?? process.env.KAPI_ETCD_BIN ?? 'etcd';
  const verbose = options.verbose ?? process.env.KAPI_ETCD_VERBOSE === '1';
  const count = options.members ?? 3;
  const heartbeatMs = options.heartbeatMs ?? 50;
  const electionMs = options.electionMs ?? 500;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const dir = mkdtempSync(join(tmpdir(), 'kapi-etcd-cluster-'));
  const entry = { children: [] as ChildProcess[], dir };
  live.add(entry);

  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const clientPorts: number[] = [];
  const peerPorts: number[] = [];
  const gatePorts: number[] = [];
  for (let i = 0; i < count; i++) {
    clientPorts.push(await freshPort());
    peerPorts.push(await freshPort());
    gatePorts.push(await freshPort());
  }
  const members: EtcdClusterMember[] = names.map((name, i) => ({ name, endpoint: `http://127.0.0.1:${clientPorts[i]}` }));

  const gateURL = (i: number) => `http://127.0.0.1:${gatePorts[i]}`;
  const initialCluster = names.map((name, i) => `${name}=${gateURL(i)}`).join(',');
  const outputs = names.map(() => '');

  const launch = (i: number): ChildProcess => {
    const name = names[i]!;
    const args = [
      `--name=${name}`,
      `--data-dir=${join(dir, name)}`,
      `--listen-client-urls=${members[i]!.endpoint}`,
      `--advertise-client-urls=${members[i]!.endpoint}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPorts[i]}`,
      `--initial-advertise-peer-urls=${gateURL(i)}`,
      `--initial-cluster=${initialCluster}`,
      '--initial-cluster-state=new',
      '--initial-cluster-token=kapi-test-cluster',
      `--heartbeat-interval=${heartbeatMs}`,
      `--election-timeout=${electionMs}`,
      '--logger=zap',
      `--log-level=${verbose ? 'info' : 'error'}`,
      ...(options.watchProgressNotifyIntervalMs !== undefined
        ? [`--experimental-watch-progress-notify-interval=${options.watchProgressNotifyIntervalMs}ms`]
        : []),
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => {
      outputs[i] = (outputs[i] + chunk.toString()).slice(-4000);
      if (verbose) process.stderr.write(chunk);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', (err) => {
      outputs[i] += `\nspawn error: ${err.message}`;
    });
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    entry.children.push(child);
    return child;
  };

  let gates: PeerGates | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(
      entry.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
            child.kill('SIGCONT');
          }),
      ),
    );
    await gates?.close();
    rmSync(dir, { recursive: true, force: true });
    live.delete(entry);
  };

  try {
    gates = await openPeerGates(
      names.map((member, i) => ({ member, listen: { host: '127.0.0.1', port: gatePorts[i]! }, target: { host: '127.0.0.1', port: peerPorts[i]! } })),
    );
    const children = names.map((_, i) => launch(i));
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const exited = children.findIndex((c) => c.exitCode !== null || c.signalCode !== null);
      if (exited >= 0) throw new Error(`etcd member ${names[exited]} exited early:\n${outputs[exited]}`);
      const up = await Promise.all(members.map((m) => healthy(m.endpoint)));
      if (up.every(Boolean)) {
        // Healthy may be another process's etcd on a port a member failed to bind.
        const foreign = children.findIndex((c, i) => c.pid !== undefined && !listensOn(c.pid, clientPorts[i]!));
        if (foreign >= 0) throw new Error(`etcd member ${names[foreign]} did not bind ${members[foreign]!.endpoint}: another server answers there`);
        break;
      }
      if (Date.now() > deadline) throw new Error(`etcd cluster not healthy within ${startTimeoutMs} ms:\n${outputs.join('\n---\n')}`);
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const peerGates: PeerGates = gates;

  const status = async (member: EtcdClusterMember): Promise<EtcdMemberStatus> => {
    const res = await fetch(`${member.endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { header?: { member_id?: string }; leader?: string; raftIndex?: string };
    return { memberId: body.header?.member_id ?? '', leader: body.leader ?? '0', raftIndex: Number(body.raftIndex ?? 0) };
  };

  return {
    endpoints: members.map((m) => m.endpoint),
    members,
    memberAt(endpoint) {
      const hostPort = endpoint.replace(/^https?:\/\//, '').replace(/\/$/, '');
      return members.find((m) => m.endpoint.replace(/^https?:\/\//, '') === hostPort);
    },
    partition(member) {
      peerGates.partition(member.name);
    },
    heal() {
      peerGates.heal();
    },
    pause(member) {
      entry.children[members.indexOf(member)]?.kill('SIGSTOP');
    },
    resume(member) {
      entry.children[members.indexOf(member)]?.kill('SIGCONT');
    },
    status,
    async waitLeaderless(member, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await status(member).catch(() => undefined);
        if (s !== undefined && (s.leader === '0' || s.leader === '')) return;
        if (Date.now() > deadline) throw new Error(`${member.name} still follows a leader after ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    async waitLeader(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const cut = peerGates.partitioned();
        const reachable = members.filter((m) => !cut.includes(m.name));
        const views = await Promise.all(reachable.map((m) => status(m).catch(() => undefined)));
        const leader = views[0]?.leader;
        if (leader && leader !== '0' && views.every((v) => v?.leader === leader)) {
          const index = views.findIndex((v) => v?.memberId === leader);
          if (index >= 0) return reachable[index]!;
        }
        if (Date.now() > deadline) throw new Error(`no leader among ${reachable.map((m) => m.name).join(', ')} after ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    stop,
  };
}
