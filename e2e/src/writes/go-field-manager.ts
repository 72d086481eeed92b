/**
 * The reference field manager: e2e/go-ssa/cmd/kapi-managedfields, a Go program that replays
 * writes through k8s.io/apimachinery's managedfields (structured-merge-diff typed with
 * client-go's applyconfigurations schema). Built into e2e/.cache/bin with the machine's Go
 * (`$GO` overrides); modules come from the module cache or proxy.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const moduleDir = fileURLToPath(new URL('../../go-ssa', import.meta.url));
const binDir = fileURLToPath(new URL('../../.cache/bin', import.meta.url));

export interface FieldManagerStep {
  op: 'create' | 'update' | 'apply';
  manager: string;
  force?: boolean;
  object: Record<string, unknown>;
}

export interface ManagedEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export type StepResult = { managedFields: ManagedEntry[]; object: Record<string, unknown> } | { error: string };

/** Builds the program (incremental after the first build); resolves its path. */
export function buildFieldManager(timeoutMs = 15 * 60_000): Promise<string> {
  mkdirSync(binDir, { recursive: true });
  writeFileSync(join(binDir, '..', '.gitignore'), '*\n');
  const binary = join(binDir, 'kapi-managedfields');
  return new Promise((resolve, reject) => {
    execFile(process.env.GO ?? 'go', ['build', '-buildvcs=false', '-o', binary, './cmd/kapi-managedfields'], { cwd: moduleDir, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`go build ./cmd/kapi-managedfields failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(binary);
    });
  });
}

/** Replays `steps` on a `gvk` object through kube's field manager; one result per step. */
export function replay(binary: string, gvk: { group: string; version: string; kind: string }, steps: FieldManagerStep[]): Promise<StepResult[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(binary, [], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`kapi-managedfields failed: ${error.message}\n${stderr}`));
        return;
      }
      resolve(stdout.trim().split('\n').map((line) => JSON.parse(line) as StepResult));
    });
    child.stdin!.end(JSON.stringify({ ...gvk, steps }));
  });
}
