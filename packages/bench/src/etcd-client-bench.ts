/**
 * `kapi-bench etcd-client`: what one unary etcd call costs kapi's process in CPU, per client.
 * One fresh etcd; each client makes the calls kapi's storage makes on its hot path — a
 * linearizable Range of one key (GET) and the conditional-create Txn ("if mod_revision == 0
 * then put else range", a create) — first one at a time, then `--concurrency` in flight, and
 * the process's CPU time (user + system, `process.cpuUsage()`) over each batch is divided by
 * its calls. Clients alternate batch by batch, `--runs` times, after one unmeasured warm-up
 * batch each, so that both see the same machine and the same etcd. etcd's own CPU is not
 * counted (another process).
 */
import { startEtcd } from '@kapi/storage/testing';
import { createEtcdClient, createEtcdUnaryClient, type EtcdUnaryClient } from '@kapi/storage';
import type { IRangeRequest, IRangeResponse, ITxnRequest, ITxnResponse } from 'etcd3';

export const etcdClientUsage = `kapi-bench etcd-client [options]
  --clients LIST       comma-separated: etcd3 (etcd3 over @grpc/grpc-js), http2 (kapi's own gRPC
                       client over node:http2), frames (kapi's own gRPC client over its own
                       HTTP/2 framing, grpc/h2-connection.ts) (default etcd3,http2,frames)
  --calls N            calls per batch (default 5000)
  --concurrency N      calls in flight in the concurrent batches (default 64)
  --runs N             measured batches per client and kind (default 3)
  --value-bytes N      size of the stored value (default 1000, a small ConfigMap)
`;

export interface EtcdClientBenchOptions {
  clients: ClientName[];
  calls: number;
  concurrency: number;
  runs: number;
  valueBytes: number;
}

export type ClientName = 'etcd3' | 'http2' | 'frames';

/** The two calls measured, as kapi's kv.ts makes them (a deadline on each). */
interface KVCalls {
  range(req: IRangeRequest): Promise<IRangeResponse>;
  txn(req: ITxnRequest): Promise<ITxnResponse>;
  close(): void;
}

/** The `--flag value` pairs of an etcd micro-benchmark's command line, with a positive-integer reading of each value. */
export function* benchFlags(argv: readonly string[]): Generator<{ flag: string; value: string; positive: () => number }> {
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    const positive = (): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive integer`);
      return n;
    };
    yield { flag, value, positive };
  }
}

/** `--clients etcd3,http2`: the etcd clients to compare, each one of `known`. */
export function parseClients<Name extends string>(value: string, known: readonly Name[] = ['etcd3', 'http2'] as Name[]): Name[] {
  return value.split(',').map((c) => {
    if (!known.includes(c as Name)) throw new Error(`unknown client ${c}`);
    return c as Name;
  });
}

export function parseEtcdClientBenchOptions(argv: string[]): EtcdClientBenchOptions {
  const options: EtcdClientBenchOptions = { clients: ['etcd3', 'http2', 'frames'], calls: 5000, concurrency: 64, runs: 3, valueBytes: 1000 };
  for (const { flag, value, positive } of benchFlags(argv)) {
    switch (flag) {
      case '--clients':
        options.clients = parseClients<ClientName>(value, ['etcd3', 'http2', 'frames']);
        break;
      case '--calls':
        options.calls = positive();
        break;
      case '--concurrency':
        options.concurrency = positive();
        break;
      case '--runs':
        options.runs = positive();
        break;
      case '--value-bytes':
        options.valueBytes = positive();
        break;
      default:
        throw new Error(`unknown flag ${flag}`);
    }
  }
  return options;
}

const TIMEOUT_MS = 10_000;

function etcd3Calls(endpoints: string[]): KVCalls {
  const client = createEtcdClient(endpoints);
  return {
    range: (req) => client.kv.range(req, { deadline: Date.now() + TIMEOUT_MS }),
    txn: (req) => client.kv.txn(req, { deadline: Date.now() + TIMEOUT_MS }),
    close: () => client.close(),
  };
}

function unaryCalls(endpoints: string[], transport: 'http2' | 'frames'): KVCalls {
  const client: EtcdUnaryClient = createEtcdUnaryClient(endpoints, { transport });
  return {
    range: (req) => client.range(req, TIMEOUT_MS),
    txn: (req) => client.txn(req, TIMEOUT_MS),
    close: () => client.close(),
  };
}

type Kind = 'range' | 'txn';

interface BatchResult {
  client: ClientName;
  kind: Kind;
  concurrency: number;
  cpuUsPerCall: number;
  callsPerSecond: number;
}

/** Runs `calls` calls of `kind`, `concurrency` at a time; CPU and wall time over the batch. */
async function batch(calls: KVCalls, kind: Kind, count: number, concurrency: number, keyOf: (i: number) => Buffer, value: Buffer): Promise<{ cpuUs: number; ms: number }> {
  let next = 0;
  const one = (i: number): Promise<unknown> => {
    const key = keyOf(i);
    if (kind === 'range') return calls.range({ key });
    return calls.txn({
      compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
      success: [{ request_put: { key, value } }],
      failure: [{ request_range: { key } }],
    });
  };
  const worker = async (): Promise<void> => {
    while (next < count) await one(next++);
  };
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { cpuUs: used.user + used.system, ms };
}

export async function runEtcdClientBench(options: EtcdClientBenchOptions): Promise<BatchResult[]> {
  const etcd = await startEtcd();
  const clients = new Map<ClientName, KVCalls>(options.clients.map((c) => [c, c === 'etcd3' ? etcd3Calls(etcd.endpoints) : unaryCalls(etcd.endpoints, c)]));
  const value = Buffer.alloc(options.valueBytes, 'x');
  const readKey = Buffer.from('/registry/configmaps/default/read');
  const results: BatchResult[] = [];
  let batchNo = 0;
  try {
    const any = clients.values().next().value!;
    await any.txn({ success: [{ request_put: { key: readKey, value } }] });
    const shapes: Array<[Kind, number]> = [
      ['range', 1],
      ['range', options.concurrency],
      ['txn', 1],
      ['txn', options.concurrency],
    ];
    for (let run = 0; run <= options.runs; run++) {
      for (const [kind, concurrency] of shapes) {
        for (const [name, calls] of clients) {
          const prefix = `/registry/configmaps/bench-${batchNo++}/`;
          const keyOf = kind === 'range' ? () => readKey : (i: number) => Buffer.from(`${prefix}${i}`);
          const { cpuUs, ms } = await batch(calls, kind, options.calls, concurrency, keyOf, value);
          if (run === 0) continue; // warm-up
          const result = { client: name, kind, concurrency, cpuUsPerCall: cpuUs / options.calls, callsPerSecond: (options.calls * 1000) / ms };
          results.push(result);
          process.stderr.write(`run ${run} ${name} ${kind} x${concurrency}: ${result.cpuUsPerCall.toFixed(1)} µs CPU/call, ${result.callsPerSecond.toFixed(0)} calls/s\n`);
        }
        // Keep etcd small between batches.
        if (kind === 'txn') await any.txn({ success: [{ request_delete_range: { key: Buffer.from('/registry/configmaps/bench-'), range_end: Buffer.from('/registry/configmaps/bench.') } }] });
      }
    }
  } finally {
    for (const calls of clients.values()) calls.close();
    await etcd.stop();
  }
  return results;
}

/** A Markdown table: per client and call shape, CPU per call and calls/s (min–max over runs). */
export function etcdClientBenchReport(results: BatchResult[], options: EtcdClientBenchOptions): string {
  const lines = [
    `etcd client CPU per unary call (${options.calls} calls per batch, ${options.runs} runs, value ${options.valueBytes} B)`,
    '',
    '| call | in flight | client | µs CPU/call (median, min–max) | calls/s (median) |',
    '|---|---|---|---|---|',
  ];
  const groups = new Map<string, BatchResult[]>();
  for (const r of results) {
    const id = `${r.kind}\t${r.concurrency}\t${r.client}`;
    groups.set(id, [...(groups.get(id) ?? []), r]);
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  for (const [id, rs] of groups) {
    const [kind, concurrency, client] = id.split('\t');
    const cpu = rs.map((r) => r.cpuUsPerCall);
    lines.push(
      `| ${kind} | ${concurrency} | ${client} | ${median(cpu).toFixed(0)} (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}) | ${median(rs.map((r) => r.callsPerSecond)).toFixed(0)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
