import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const pinningModule = fileURLToPath(new URL('./pinning.js', import.meta.url));
const script = `import(${JSON.stringify(pinningModule)}).then((m) => console.log(JSON.stringify({ reason: m.pinningUnavailable() ?? null })))`;

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const twoCpusAndTaskset = cpus().length >= 2 && hasTaskset() ? false : 'needs taskset and two CPUs';

void test('a process already pinned to one CPU can still pin (the side by side spawns its servers that way)', { skip: twoCpusAndTaskset }, () => {
  const out = execFileSync('taskset', ['-c', '0', process.execPath, '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { reason: null });
});

void test('without taskset the reason says so', { skip: cpus().length >= 2 ? false : 'needs two CPUs' }, () => {
  const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, PATH: '/nonexistent' } });
  assert.deepEqual(JSON.parse(out), { reason: 'taskset not found' });
});
