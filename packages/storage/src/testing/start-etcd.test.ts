import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { startEtcd } from './start-etcd.js';
import { uniquePrefix } from './unique-prefix.js';

async function health(endpoint: string): Promise<string> {
  const res = await fetch(`${endpoint}/health`);
  return ((await res.json()) as { health: string }).health;
}

void test('startEtcd runs a healthy etcd that survives kill + restart and is cleaned up by stop', async () => {
  const etcd = await startEtcd();
  try {
    assert.equal(etcd.endpoints.length, 1);
    assert.match(etcd.endpoints[0]!, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await health(etcd.endpoints[0]!), 'true');
    assert.ok(existsSync(etcd.dataDir));

    await etcd.kill();
    assert.equal(etcd.running(), false);
    await assert.rejects(fetch(`${etcd.endpoints[0]}/health`));

    await etcd.restart();
    assert.equal(etcd.running(), true);
    assert.equal(await health(etcd.endpoints[0]!), 'true');
  } finally {
    await etcd.stop();
  }
  assert.equal(etcd.running(), false);
  assert.equal(existsSync(etcd.dataDir), false);
  await etcd.stop(); // idempotent
  await assert.rejects(etcd.restart(), /stopped/);
});

void test('two etcds started at once get distinct ports', async () => {
  const [a, b] = await Promise.all([startEtcd(), startEtcd()]);
  try {
    assert.notEqual(a.endpoints[0], b.endpoints[0]);
    assert.notEqual(a.dataDir, b.dataDir);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

void test('a missing binary rejects with a clear error', async () => {
  await assert.rejects(startEtcd({ binary: '/nonexistent/etcd' }), /could not start etcd/);
});

void test('uniquePrefix gives distinct slash-led prefixes', () => {
  const a = uniquePrefix();
  const b = uniquePrefix();
  assert.notEqual(a, b);
  assert.match(a, /^\/kapi-test-[0-9a-f]{12}$/);
});

for (const ending of ['exit', 'SIGTERM'] as const) {
  void test(`an etcd left running is killed and its data removed when the process ends (${ending})`, async () => {
    const moduleUrl = new URL('./start-etcd.js', import.meta.url).href;
    const script = `
      const { startEtcd } = await import(${JSON.stringify(moduleUrl)});
      const etcd = await startEtcd();
      console.log(JSON.stringify({ endpoint: etcd.endpoints[0], dataDir: etcd.dataDir }));
      ${ending === 'exit' ? 'process.exit(0);' : 'setInterval(() => {}, 1000);'}
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', () => reject(new Error(`child exited before reporting: ${out}`)));
    });
    const { endpoint, dataDir } = JSON.parse(line) as { endpoint: string; dataDir: string };
    if (ending === 'SIGTERM') child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    assert.equal(existsSync(dataDir), false);
    await assert.rejects(fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) }));
  });
}
