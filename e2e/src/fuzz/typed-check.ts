/**
 * The stored-object check: `kapi-typed decode-check` (e2e/go-typed) lists every resource kapi
 * serves with client-go's typed clientsets over protobuf and JSON (custom resources with the
 * dynamic client) and reports each object that does not decode.
 */
import { execFile } from 'node:child_process';

export interface UndecodableObject {
  readonly wire: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly error: string;
}

export interface TypedCheckResult {
  readonly objects: number;
  readonly undecodable: readonly UndecodableObject[];
}

/** Runs the check once; rejects when the program fails (not when objects do not decode). */
export function typedCheck(binary: string, kubeconfig: string, timeoutMs = 120_000): Promise<TypedCheckResult> {
  return new Promise((resolve, reject) => {
    execFile(binary, ['decode-check', '--kubeconfig', kubeconfig], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`kapi-typed decode-check failed: ${error.message}\n${stderr.slice(-4000)}`));
      const lines = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const done = lines.find((l) => l.event === 'done');
      if (!done) return reject(new Error(`kapi-typed decode-check ended without "done":\n${stdout.slice(-4000)}${stderr.slice(-4000)}`));
      resolve({ objects: Number(done.objects), undecodable: lines.filter((l) => l.event === 'undecodable') as unknown as UndecodableObject[] });
    });
  });
}
