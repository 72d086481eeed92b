#!/usr/bin/env node
// Bundles the compiled server (packages/apiserver/dist/bin.js and everything it imports: the
// workspace packages and their npm dependencies) into one CommonJS file,
// packages/apiserver/dist/bundle/kapi-apiserver.cjs, which dist/bundled.js runs with a V8 code
// cache (packages/apiserver/src/code-cache.ts). Node then reads and compiles one file instead
// of resolving, reading and compiling ~800 modules: most of the boot before the first object
// is read. `make build` runs this after `tsc -b`; the output is build output, never committed.
//
// CommonJS, because Node 20 has a code cache for scripts (node:vm) but none for ES modules.
// The compiled workspace modules are ES modules; what changes for them in the bundle:
// - `import.meta.url` of a workspace module is its original dist/ file's URL, so the files
//   read relative to it (the catalogue's generated/ JSON) are found where they are without
//   the bundle (dist/ stays beside it);
// - the YAML decoder threads run dist/bundle/yaml-worker.cjs, their script bundled the same way;
// - the whole file runs in strict mode (esbuild says so at its top), as ES modules do;
// - a dynamic import() of a bundled module runs it in the same turn, not one later.
// Not bundled, loaded from node_modules when used, as before: etcd3 (createRequire, only under
// KAPI_ETCD_KV_CLIENT=etcd3), selfsigned (first start without a serving pair) and the tracing
// SDK of --tracing-config-file (OpenTelemetry's SDK, its OTLP exporter and gRPC, which reads
// .proto files relative to its own directory).
import { Buffer } from 'node:buffer';
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = resolve(root, 'packages/apiserver/dist/bin.js');
const outdir = resolve(root, 'packages/apiserver/dist/bundle');
const outfile = resolve(outdir, 'kapi-apiserver.cjs');
// The YAML decoder threads' script, bundled too (each thread loads it), beside the server.
const workerEntry = resolve(root, 'packages/apiserver/dist/body/yaml-worker.js');
const workerOutfile = resolve(outdir, 'yaml-worker.cjs');
const workerPool = resolve(root, 'packages/apiserver/dist/body/yaml-decoder-pool.js');
const workerUrl = "new URL('./yaml-worker.js', import.meta.url)";

/** The npm packages left out of the bundle, resolved at run time from the bundle's directory. */
const external = [
  'etcd3',
  'selfsigned',
  '@grpc/grpc-js',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/exporter-trace-otlp-grpc',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
];

const workspaceDist = /packages[\\/][^\\/]+[\\/]dist[\\/].*\.js$/;

/** `import.meta.url` of a workspace module → the URL its dist/ file has unbundled; the YAML threads' script → the bundled one. */
const keepModuleUrls = {
  name: 'kapi-module-urls',
  setup(b) {
    b.onLoad({ filter: workspaceDist }, async (args) => {
      let text = await readFile(args.path, 'utf8');
      if (args.path === workerPool) {
        if (!text.includes(workerUrl)) throw new Error(`bundle: ${args.path} no longer says ${workerUrl}`);
        text = text.replace(workerUrl, 'require("node:url").pathToFileURL(require("node:path").join(__dirname, "yaml-worker.cjs"))');
      } else if (!text.includes('import.meta.url')) return undefined;
      const rel = relative(outdir, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(rel)}, require("node:url").pathToFileURL(__filename)).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const options = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  // import() of the external packages becomes require(): the script has no module loader of its own.
  supported: { 'dynamic-import': false },
  plugins: [keepModuleUrls],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};
const result = await build({ ...options, entryPoints: [entry], outfile });
await build({ ...options, entryPoints: [workerEntry], outfile: workerOutfile });
const text = await readFile(outfile, 'utf8');
// Left as import() (or import.meta), they would fail at run time in a script: refuse the build.
for (const [file, source] of [[outfile, text], [workerOutfile, await readFile(workerOutfile, 'utf8')]]) {
  for (const [what, pattern] of [['import()', /\bimport\(\s*["'`]/], ['import.meta', /\bimport\.meta\b/]]) {
    const at = source.search(pattern);
    if (at >= 0) throw new Error(`bundle: ${what} left in ${relative(root, file)} at ${source.slice(Math.max(0, at - 80), at + 80)}`);
  }
}
process.stdout.write(`bundle: ${relative(root, outfile)}: ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB from ${Object.keys(result.metafile.inputs).length} modules\n`);
