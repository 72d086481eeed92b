/**
 * Renders helm/kapi with helm/render (a Go program around Helm's own chart loader and template
 * engine; there is no helm binary here). The compiled renderer is kept in helm/render/bin/
 * under a name that hashes its sources, so only the first run (or a change to main.go, go.mod
 * or go.sum) pays for `go build` — about 4 minutes on 2 cores with an empty Go build cache.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { chartDir, rendererDir } from './repo.js';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The `go` binary, or undefined when Go is not installed. */
export function goBinary(): string | undefined {
  for (const candidate of [process.env.GO, 'go', '/usr/local/go/bin/go']) {
    if (candidate && spawnSync(candidate, ['version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

/**
 * The path of the compiled renderer, building it first when its sources changed. Builds to a
 * temporary name and renames, so concurrent test processes never run a half-written binary.
 */
export async function ensureRenderer(go: string): Promise<{ path: string; builtMs?: number }> {
  const hash = createHash('sha256');
  for (const file of ['main.go', 'go.mod', 'go.sum']) hash.update(readFileSync(join(rendererDir, file)));
  const binDir = join(rendererDir, 'bin');
  const path = join(binDir, `render-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(path)) return { path };
  mkdirSync(binDir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    execFile(go, ['build', '-o', tmp, '.'], { cwd: rendererDir, timeout: 20 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`go build of helm/render failed: ${stderr || error.message}`));
      else resolve();
    });
  });
  renameSync(tmp, path);
  for (const old of readdirSync(binDir)) {
    if (old.startsWith('render-') && join(binDir, old) !== path && !old.endsWith('.tmp')) rmSync(join(binDir, old), { force: true });
  }
  return { path, builtMs: Date.now() - started };
}

export interface RenderOptions {
  /** The chart directory (default helm/kapi). */
  chart?: string;
  release?: string;
  namespace?: string;
  /** Helm `--set` overrides. */
  set?: string[];
  /** A YAML file of objects the chart's `lookup` finds (what the cluster holds, for rendering an upgrade). */
  existing?: string;
  /** Render as an upgrade (.Release.IsUpgrade). */
  upgrade?: boolean;
}

export interface RenderResult {
  code: number;
  manifests: Manifest[];
  /** The rendered NOTES.txt (or the error text when `code` is not 0). */
  stderr: string;
}

/** Writes the chart `helm create <basename of dir>` makes into `dir` (which must not exist). */
export function createChart(renderer: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(renderer, ['-create', dir], { timeout: 60_000 }, (error, _stdout, stderr) => (error ? reject(new Error(`helm create: ${stderr}`)) : resolve()));
  });
}

/** Runs the renderer on a chart (helm/kapi unless told) and parses every rendered YAML document. */
export function renderChart(renderer: string, options: RenderOptions = {}): Promise<RenderResult> {
  const args = ['-chart', options.chart ?? chartDir, '-release', options.release ?? 'kapi', '-namespace', options.namespace ?? 'kapi-system', '-notes'];
  for (const s of options.set ?? []) args.push('-set', s);
  if (options.existing !== undefined) args.push('-existing', options.existing);
  if (options.upgrade === true) args.push('-upgrade');
  return new Promise((resolve, reject) => {
    execFile(renderer, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: number }).code ?? -1) : 0;
      if (code !== 0) return resolve({ code, manifests: [], stderr });
      const manifests: Manifest[] = [];
      for (const doc of parseAllDocuments(stdout)) {
        if (doc.errors.length > 0) return reject(new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`));
        const value = doc.toJS() as Manifest | null;
        if (value !== null) manifests.push(value);
      }
      resolve({ code, manifests, stderr });
    });
  });
}
