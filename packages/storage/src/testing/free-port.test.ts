import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { claimPort, freePort, freshPort, listensOn } from './free-port.js';

void test('listensOn: true only for the process holding the listening socket on that port', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as { port: number }).port;
    assert.equal(listensOn(process.pid, port), true);
    assert.equal(listensOn(process.pid, await freePort()), false);
    // Another process (the parent shell of this test runner, say) does not hold it.
    assert.equal(listensOn(process.ppid, port), false);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

void test('freshPort: a port claimed by this live process is refused to another process, and a dead holder\'s claim is taken over', async () => {
  const port = await freshPort();
  const url = new URL('./free-port.js', import.meta.url).href;
  const claimIn = (p: number) =>
    execFileSync(process.execPath, ['--input-type=module', '-e', `import(${JSON.stringify(url)}).then((m) => process.stdout.write(String(m.claimPort(${p}))))`], { encoding: 'utf8' });
  assert.equal(claimIn(port), 'false');
  // A port nobody claimed: the child claims it, exits, and this process can take it over.
  const other = await freePort();
  assert.equal(claimIn(other), 'true');
  assert.equal(claimPort(other), true);
  assert.equal(claimIn(other), 'false');
});
