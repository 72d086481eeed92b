/**
 * The faults, injected into a running local cluster through deploy/cluster.sh (the commands a
 * user has) and etcd's own APIs: SIGKILL of a kapi replica, of an etcd follower and of the etcd
 * leader (found with /v3/maintenance/status), a peer partition of a member (kapi-peer-gate),
 * compaction at the current revision, and a restart of everything.
 */
import type { Etcd3 } from 'etcd3';
import type { ClusterTarget } from '../suites/targets.js';
import { compactNow, currentRevision, findLeader, type HistoryRecorder } from './etcd-truth.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type FaultKind = 'kill-replica' | 'kill-etcd-member' | 'kill-etcd-leader' | 'partition-etcd-member' | 'compact' | 'restart-everything';

export interface InjectedFault {
  kind: FaultKind;
  target: string;
  /** Seconds from the start of the workload. */
  at: number;
  /** How long the fault lasted until the cluster was whole again, in seconds. */
  seconds: number;
  detail?: string;
}

export interface InjectorOptions {
  cluster: ClusterTarget;
  etcd: Etcd3;
  recorder: HistoryRecorder;
  /** How long a killed process stays down / a partition lasts. */
  downMs: number;
  /** The workload's start (for `at`). */
  startedAt: number;
  /** The first restart-everything is a crash (SIGKILL) rather than a graceful `down`. */
  crashFirst: boolean;
  /**
   * Restart a killed replica in the background and go on with the next fault (the short form:
   * a replica takes seconds to become ready on a busy machine); `settle()` waits for it.
   */
  backgroundReplicaRestart: boolean;
}

const etcdMembers = ['etcd-1', 'etcd-2', 'etcd-3'];
const replicas = ['kapi-1', 'kapi-2', 'kapi-3'];

export class FaultInjector {
  readonly injected: InjectedFault[] = [];
  /** Per fault kind, how often it was injected (to rotate its targets). */
  private readonly turns = new Map<FaultKind, number>();
  private background: Promise<void>[] = [];

  constructor(private readonly o: InjectorOptions) {}

  private memberURLs(): Record<string, string> {
    return Object.fromEntries(etcdMembers.map((m) => [m, this.o.cluster.info.processes[m]!.url!]));
  }

  private async sh(args: string[]): Promise<void> {
    await this.o.cluster.local.ok(args, 180_000);
  }

  /** Waits until etcd has a leader again. */
  private async leader(timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const l = await findLeader(this.memberURLs(), this.o.cluster.etcdCredentials);
      if (l) return l;
      if (Date.now() > deadline) throw new Error(`no etcd leader within ${timeoutMs} ms`);
      await sleep(200);
    }
  }

  /** Waits for background restarts. */
  async settle(): Promise<void> {
    const pending = this.background;
    this.background = [];
    await Promise.all(pending);
  }

  async inject(kind: FaultKind): Promise<InjectedFault> {
    const began = Date.now();
    const turn = this.turns.get(kind) ?? 0;
    this.turns.set(kind, turn + 1);
    let target = '';
    let detail: string | undefined;
    switch (kind) {
      case 'kill-replica': {
        target = replicas[turn % replicas.length]!;
        await this.sh(['kill', target]);
        await sleep(this.o.downMs);
        const restart = this.sh(['restart', target]);
        if (this.o.backgroundReplicaRestart) {
          this.background.push(restart);
          detail = 'restarting in the background';
        } else await restart;
        break;
      }
      case 'kill-etcd-member': {
        const leader = await this.leader();
        target = etcdMembers.filter((m) => m !== leader)[turn % 2]!;
        await this.sh(['kill', target]);
        await sleep(this.o.downMs);
        await this.sh(['restart', target]);
        break;
      }
      case 'kill-etcd-leader': {
        target = await this.leader();
        await this.sh(['kill', target]);
        const next = await this.leader();
        detail = `new leader ${next} after ${((Date.now() - began) / 1000).toFixed(1)} s`;
        await sleep(this.o.downMs);
        await this.sh(['restart', target]);
        break;
      }
      case 'partition-etcd-member': {
        // Alternately the leader (forces an election among the other two) and a follower.
        const leader = await this.leader();
        target = turn % 2 === 0 ? leader : etcdMembers.find((m) => m !== leader)!;
        await this.sh(['partition', target]);
        await sleep(this.o.downMs);
        await this.sh(['heal', target]);
        detail = `leader after heal: ${await this.leader()}`;
        break;
      }
      case 'compact': {
        // The recorder must hold the history up to the compacted revision before it is gone.
        const revision = await currentRevision(this.o.etcd);
        await this.o.recorder.waitFor(revision);
        target = `revision ${await compactNow(this.o.etcd)}`;
        break;
      }
      case 'restart-everything': {
        await this.settle();
        // Alternately a crash of every process (SIGKILL, all at once) and a graceful
        // `cluster.sh down`; then `cluster.sh up` (the data stays).
        const crash = this.o.crashFirst ? turn % 2 === 0 : turn % 2 === 1;
        target = crash ? 'all (SIGKILL)' : 'all (down)';
        if (crash) await Promise.all([...replicas, ...etcdMembers, 'lb', 'peer-gate'].map((p) => this.sh(['kill', p])));
        else await this.sh(['down']);
        await sleep(Math.min(this.o.downMs, 1000));
        await this.sh(['up']);
        break;
      }
    }
    const fault: InjectedFault = { kind, target, at: (began - this.o.startedAt) / 1000, seconds: (Date.now() - began) / 1000, ...(detail ? { detail } : {}) };
    this.injected.push(fault);
    return fault;
  }
}
