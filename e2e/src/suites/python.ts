/**
 * The Python `kubernetes` client (Debian's python3-kubernetes 22.6, installed by `make setup`)
 * against a target: e2e/python/kapi_e2e.py runs its steps with the target's kubeconfig and
 * prints one JSON line per step; this suite checks every step's values.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compactEtcd } from '../harness/etcd-history.js';
import type { TargetRef } from './targets.js';

export const pythonScript = fileURLToPath(new URL('../../python/kapi_e2e.py', import.meta.url));
/** Debian's python3 (where python3-kubernetes lives), unless `$KAPI_PYTHON` says otherwise. */
export const pythonBinary = process.env.KAPI_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

type Line = Record<string, unknown>;

export function runPythonClient(kubeconfig: string, namespace: string): Promise<{ code: number; lines: Line[]; stderr: string }> {
  return new Promise((resolve) => {
    execFile(pythonBinary, [pythonScript, '--kubeconfig', kubeconfig, '--namespace', namespace], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? Number((error as { code: number }).code) : -1) : 0;
      const lines = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => {
        try {
          return JSON.parse(l) as Line;
        } catch {
          return { unparsed: l };
        }
      });
      resolve({ code, lines, stderr });
    });
  });
}

export function pythonSuite(target: TargetRef): void {
  void describe('Python kubernetes client', () => {
    void it('CRUD, patch, preconditions, paging with continue, watch with resume and the expired-resourceVersion error', async () => {
      // The last step watches from resourceVersion 1: compact etcd first so that is history etcd no longer has.
      await compactEtcd(target().etcdEndpoints, target().etcdCredentials);
      const ns = 'suite-python';
      const run = await runPythonClient(target().kubeconfig, ns);
      const failed = run.lines.filter((l) => l.ok === false);
      assert.deepEqual(failed, [], run.stderr.slice(-4000));
      assert.equal(run.code, 0, `exit ${run.code}\n${run.stderr.slice(-4000)}`);
      const byStep = new Map(run.lines.filter((l) => typeof l.step === 'string').map((l) => [l.step as string, l]));
      const s = (name: string): Line => {
        const line = byStep.get(name);
        assert.ok(line, `no step "${name}" in ${JSON.stringify(run.lines)}`);
        return line;
      };
      assert.equal(run.lines[0]?.version, '22.6.0');
      assert.equal(s('namespace create').phase, 'Active');
      assert.deepEqual(s('configmap create').data, { k: 'v' });
      assert.deepEqual(s('configmap get').labels, { via: 'python' });
      assert.deepEqual(s('configmap list by label').names, ['py-a']);
      assert.equal(s('configmap list by label').kind, 'ConfigMapList');
      const replace = s('configmap replace, then a stale replace conflicts');
      assert.deepEqual(replace.data, { k: 'v2' });
      assert.equal(replace.conflictStatus, 409);
      assert.equal(replace.conflictReason, 'Conflict');
      assert.equal(replace.conflictMessage, 'Operation cannot be fulfilled on configmaps "py-a": the object has been modified; please apply your changes to the latest version and try again');
      const patch = s('configmap strategic-merge patch (dict) and JSON patch (list)');
      assert.deepEqual(patch.mergedLabels, { via: 'python', patched: 'smp' });
      assert.deepEqual(patch.mergedData, { k: 'v2', extra: '1' });
      assert.deepEqual(patch.jsonPatchedData, { k: 'v3' });
      const del = s('configmap delete with a stale precondition conflicts, with the current one succeeds; get is NotFound');
      assert.equal(del.staleStatus, 409);
      assert.equal(del.staleReason, 'Conflict');
      assert.equal(del.getStatus, 404);
      assert.equal(del.getReason, 'NotFound');
      assert.equal(del.getMessage, 'configmaps "py-a" not found');
      const paging = s('list paging with limit and continue');
      // The list has no selector: it holds kube-root-ca.crt too when the server issues service account tokens.
      const pagedNames = paging.names as string[];
      const rootCa = pagedNames.includes('kube-root-ca.crt') ? 1 : 0;
      assert.deepEqual(pagedNames.filter((n) => n !== 'kube-root-ca.crt'), ['page-0', 'page-1', 'page-2', 'page-3', 'page-4', 'page-5', 'page-6']);
      assert.deepEqual(paging.sizes, [3, 3, 1 + rootCa]);
      assert.deepEqual(paging.remaining, [4 + rootCa, 1 + rootCa, null]);
      assert.equal(paging.continueTokens, 2);
      const watch = s('watch from a list\'s resourceVersion, then resume from the last event');
      assert.deepEqual(watch.first, ['ADDED:1', 'MODIFIED:2', 'DELETED:2']);
      assert.deepEqual(watch.resumed, ['ADDED:3']);
      const expired = s('watch from a resourceVersion that is too old is an expired error');
      assert.equal(expired.status, 410);
      assert.match(String(expired.reason), /^Expired: /);
      assert.deepEqual(run.lines.at(-1), { done: true, steps: byStep.size, failed: 0 });
    });
  });
}
