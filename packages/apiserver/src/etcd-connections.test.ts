import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { startEtcd, uniquePrefix } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { startApiServer } from './main.js';

/** The inodes of this process's TCP connections to `port` (Linux: /proc/net/tcp{,6} and /proc/self/fd). */
function connectionsTo(port: number): Set<string> {
  const own = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) own.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const found = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const remotePort = parseInt(fields[2]!.split(':')[1]!, 16);
      // 01 = ESTABLISHED
      if (remotePort === port && fields[3] === '01' && own.has(fields[9]!)) found.add(fields[9]!);
    }
  }
  return found;
}

/**
 * Starts a server, makes a create, a watch event and a readyz (every kind of etcd call a
 * server makes early on), and returns how many connections to etcd it opened.
 */
async function serverConnections(): Promise<number> {
  const etcd = await startEtcd();
  try {
    const port = Number(new URL(etcd.endpoints[0]!).port);
    // This process's own connections to etcd (the harness's health polls) are not the server's.
    const before = connectionsTo(port);
    const server = await startApiServer({ etcdServers: etcd.endpoints, etcdPrefix: uniquePrefix(), securePort: null, insecurePort: 0, logger: silentLogger });
    try {
      const url = server.insecureUrl!;
      const watch = fetch(`${url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`).then((res) => res.text());
      const created = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }),
      });
      assert.equal(created.status, 201, await created.text());
      assert.match(await watch, /"ADDED"/);
      assert.equal((await fetch(`${url}/readyz`)).status, 200);
      return [...connectionsTo(port)].filter((inode) => !before.has(inode)).length;
    } finally {
      await server.close();
    }
  } finally {
    await etcd.stop();
  }
}

const linuxOnly = { skip: process.platform !== 'linux' && 'reads /proc' };

/** Whether a CommonJS module whose path contains `part` has been loaded into this process. */
const loaded = (part: string): boolean => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes(part));

/** `fn` with the environment variable `name` set to `value` (restored after). */
async function withEnv<T>(name: string, value: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env[name];
  process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

// First in this file: the tests after it load etcd3 on purpose.
// One: its own client carries unary calls and watches on one connection (grpc/h2-connection.ts).
void test('a default server talks to etcd over its own client (one connection: unary calls and watches); the etcd3 client and @grpc/grpc-js are never loaded', linuxOnly, async () => {
  assert.equal(await serverConnections(), 1);
  assert.equal(loaded('/node_modules/@grpc/grpc-js/'), false);
  assert.equal(loaded('/node_modules/etcd3/lib/index.js'), false);
  assert.equal(loaded('/node_modules/etcd3/lib/errors.js'), true);
});

void test('KAPI_ETCD_WATCH_TRANSPORT=http2 puts the watches on a node:http2 session of their own (one more connection)', linuxOnly, async () => {
  assert.equal(await withEnv('KAPI_ETCD_WATCH_TRANSPORT', 'http2', serverConnections), 2);
});

for (const variable of ['KAPI_ETCD_KV_CLIENT', 'KAPI_ETCD_WATCH_CLIENT']) {
  void test(`${variable}=etcd3 still works, on an etcd3 client of its own (one more connection)`, linuxOnly, async () => {
    assert.equal(await withEnv(variable, 'etcd3', serverConnections), 2);
    assert.equal(loaded('/node_modules/@grpc/grpc-js/'), true);
  });
}
