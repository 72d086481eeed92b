/**
 * `kapi-bench etcd-watch`: what one delivered watch event costs kapi's process in CPU, per
 * client. One fresh etcd; a child process writes `--events` puts under a prefix, one at a time
 * (so that etcd sends most events in a response of their own, as a live change feed sees
 * them), while this process watches the prefix through storage's `openWatchStream` (prev_kv
 * and progress_notify, as a change feed) on the etcd3 client (grpc-js) or on kapi's own
 * client (node:http2). This process's CPU (`process.cpuUsage()`) from the first put to the
 * last event is divided by the events. The writer's and etcd's CPU are other processes.
 * `--mode replay` instead writes first and measures a watch that replays them from history
 * (many events per response: a resumed or new feed catching up).
 */
import { spawn } from 'node:child_process';
import { startEtcd } from '@kapi/storage/testing';
import { createEtcdClient, createEtcdUnaryClient, openWatchStream, useOwnWatchClient } from '@kapi/storage';
import { benchFlags, parseClients } from './etcd-client-bench.js';

export const etcdWatchUsage = `kapi-bench etcd-watch [options]
  --clients LIST       comma-separated: etcd3, http2 (default etcd3,http2)
  --events N           puts per run (default 5000)
  --runs N             measured runs per client (default 3)
  --value-bytes N      size of each value (default 1000)
  --mode MODE          live (puts while watching) or replay (watch from history) (default live)
`;

type ClientName = 'etcd3' | 'http2';

export interface EtcdWatchBenchOptions {
  clients: ClientName[];
  events: number;
  runs: number;
  valueBytes: number;
  mode: 'live' | 'replay';
}

export function parseEtcdWatchBenchOptions(argv: string[]): EtcdWatchBenchOptions {
  const options: EtcdWatchBenchOptions = { clients: ['etcd3', 'http2'], events: 5000, runs: 3, valueBytes: 1000, mode: 'live' };
  for (const { flag, value, positive } of benchFlags(argv)) {
    switch (flag) {
      case '--clients':
        options.clients = parseClients(value);
        break;
      case '--events':
        options.events = positive();
        break;
      case '--runs':
        options.runs = positive();
        break;
      case '--value-bytes':
        options.valueBytes = positive();
        break;
      case '--mode':
        if (value !== 'live' && value !== 'replay') throw new Error(`unknown mode ${value}`);
        options.mode = value;
        break;
      default:
        throw new Error(`unknown flag ${flag}`);
    }
  }
  return options;
}

/** Writes `count` puts under `prefix`, one at a time, in a child process; resolves when it exits. */
function writeInChild(endpoint: string, prefix: string, count: number, valueBytes: number): Promise<void> {
  const storage = import.meta.resolve('@kapi/storage');
  const script = `
    const { createEtcdUnaryClient } = await import(${JSON.stringify(storage)});
    const c = createEtcdUnaryClient([${JSON.stringify(endpoint)}]);
    const value = Buffer.alloc(${valueBytes}, 'x');
    for (let i = 0; i < ${count}; i++) await c.put({ key: Buffer.from(${JSON.stringify(prefix)} + i), value }, 10000);
    c.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited with ${code}`))));
  });
}

interface RunResult {
  client: ClientName;
  cpuUsPerEvent: number;
  responses: number;
}

export async function runEtcdWatchBench(options: EtcdWatchBenchOptions): Promise<RunResult[]> {
  const etcd = await startEtcd();
  const endpoint = etcd.endpoints[0]!;
  const clients = new Map(
    options.clients.map((name) => {
      const client = createEtcdClient(etcd.endpoints);
      const own = name === 'http2' ? createEtcdUnaryClient(etcd.endpoints) : undefined;
      if (own !== undefined) useOwnWatchClient(client, own);
      return [name, { client, own }] as const;
    }),
  );
  const results: RunResult[] = [];
  let runNo = 0;
  try {
    for (let run = 0; run <= options.runs; run++) {
      for (const [name, { client }] of clients) {
        const prefix = `/registry/configmaps/bench-${runNo++}/`;
        const key = Buffer.from(prefix);
        const rangeEnd = Buffer.from(prefix.slice(0, -1) + '0');
        let startRevision = 0;
        if (options.mode === 'replay') {
          const before = await client.get('/none').exec();
          startRevision = Number(before.header.revision) + 1;
          await writeInChild(endpoint, prefix, options.events, options.valueBytes);
        }
        let seen = 0;
        let responses = 0;
        let cpu = process.cpuUsage();
        const done = new Promise<void>((resolve, reject) => {
          const stream = openWatchStream(
            client,
            { key, rangeEnd, startRevision, prevKv: true, progressNotify: true },
            {
              onCreated: () => {
                if (options.mode === 'live') {
                  cpu = process.cpuUsage();
                  writeInChild(endpoint, prefix, options.events, options.valueBytes).catch(reject);
                }
              },
              onEvents: (events) => {
                responses++;
                for (const e of events) if (e.kv.value.length !== options.valueBytes) reject(new Error('bad value'));
                seen += events.length;
                if (seen >= options.events) {
                  stream.close();
                  resolve();
                }
              },
              onProgress: () => undefined,
              onCompacted: () => reject(new Error('compacted')),
              onError: (err) => reject(err),
            },
          );
        });
        await done;
        const used = process.cpuUsage(cpu);
        await client.delete().prefix(prefix).exec();
        if (run === 0) continue; // warm-up
        const result = { client: name, cpuUsPerEvent: (used.user + used.system) / options.events, responses };
        results.push(result);
        process.stderr.write(`run ${run} ${name}: ${result.cpuUsPerEvent.toFixed(1)} µs CPU/event, ${responses} responses\n`);
      }
    }
  } finally {
    for (const { client, own } of clients.values()) {
      client.close();
      own?.close();
    }
    await etcd.stop();
  }
  return results;
}

export function etcdWatchBenchReport(results: RunResult[], options: EtcdWatchBenchOptions): string {
  const lines = [
    `etcd watch CPU per delivered event (${options.mode}, ${options.events} puts per run, ${options.runs} runs, value ${options.valueBytes} B)`,
    '',
    '| client | µs CPU/event (median, min–max) | responses/run (median) |',
    '|---|---|---|',
  ];
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  for (const name of options.clients) {
    const rs = results.filter((r) => r.client === name);
    const cpu = rs.map((r) => r.cpuUsPerEvent);
    lines.push(`| ${name} | ${median(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)}) | ${median(rs.map((r) => r.responses)).toFixed(0)} |`);
  }
  return `${lines.join('\n')}\n`;
}
