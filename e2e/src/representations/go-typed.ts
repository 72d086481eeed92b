/**
 * The Go program of the typed-client tests (e2e/go-typed, its own module: the typed
 * clientset compiles every k8s.io/api group, which the dynamic-client module avoids). Built
 * once per machine into e2e/.cache/bin; later builds are incremental.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { e2eCacheDir } from '../harness/go-program.js';

/** e2e/go-typed: go.mod and go.sum are committed; modules come from the module proxy on first use. */
export const typedModuleDir = fileURLToPath(new URL('../../go-typed', import.meta.url));

let building: Promise<{ binary: string; seconds: number }> | undefined;

/**
 * Builds `./cmd/kapi-typed` with the machine's `go` (`$GO` overrides) once per process and
 * resolves the binary's path and how long the build took. A cold build (module downloads and
 * the compile of client-go and every API group) takes several minutes on 2 cores.
 */
export function buildKapiTyped(timeoutMs = 20 * 60_000): Promise<{ binary: string; seconds: number }> {
  building ??= new Promise((resolve, reject) => {
    const binDir = join(e2eCacheDir, 'bin');
    mkdirSync(binDir, { recursive: true });
    writeFileSync(join(e2eCacheDir, '.gitignore'), '*\n');
    const binary = join(binDir, 'kapi-typed');
    const started = Date.now();
    execFile(
      process.env.GO ?? 'go',
      ['build', '-buildvcs=false', '-o', binary, './cmd/kapi-typed'],
      { cwd: typedModuleDir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`go build ./cmd/kapi-typed failed (is Go ≥ 1.23 installed and the module proxy reachable?): ${error.message}\n${stdout}${stderr}`));
        else resolve({ binary, seconds: (Date.now() - started) / 1000 });
      },
    );
  });
  return building;
}
