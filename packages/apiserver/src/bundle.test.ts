/**
 * The bundled server (dist/bundle/kapi-apiserver.cjs, `make build`) as `make run`, the image
 * and kapi-bench start it (dist/bundled.js): it serves on a real etcd, finds the files it
 * reads beside its modules (the catalogue, the YAML decoder's worker), loads the packages it
 * leaves out of the bundle (the tracing SDK, etcd3), and writes a code cache that the next
 * start accepts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { freePort, startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { bundledApiserverBinary, startKapiServer, type KapiServer } from './testing/kapi-server.js';

const bundle = fileURLToPath(new URL('./bundle/kapi-apiserver.cjs', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let etcd: TestEtcd;
let dir: string;
const servers: KapiServer[] = [];

before(async () => {
  etcd = await startEtcd();
  dir = mkdtempSync(join(tmpdir(), 'kapi-bundle-'));
});

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await etcd?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function call(server: KapiServer, method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.insecureUrl!}${path}`, { method, ...(body !== undefined ? { body, headers: { 'content-type': contentType } } : {}) });
  return { status: res.status, text: await res.text() };
}

const caches = (cacheDir: string) => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((n) => n.endsWith('.v8cache')) : []);

void test('the bundled server serves, and starts again from the code cache it wrote', { timeout: 240_000 }, async () => {
  assert.ok(existsSync(bundle), `${bundle} is missing: \`make build\` bundles the server (scripts/bundle-apiserver.mjs)`);
  const cacheDir = join(dir, 'code-cache');
  // The tracing SDK is loaded from node_modules (not bundled); a collector that is not there only loses spans.
  const tracing = join(dir, 'tracing.yaml');
  writeFileSync(tracing, `apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:${await freePort()}\nsamplingRatePerMillion: 1000000\n`);
  const first = await startKapiServer({ binary: bundledApiserverBinary, etcdServers: etcd.endpoints, insecure: true, startTimeoutMs: 120_000, env: { KAPI_CODE_CACHE_DIR: cacheDir }, extraArgs: [`--tracing-config-file=${tracing}`] });
  servers.push(first);
  assert.doesNotMatch(first.output(), /not the bundle/, 'dist/bundled.js ran the bundle');
  assert.equal((await call(first, 'GET', '/readyz')).status, 200);

  // A YAML body goes to the decoder threads (their script is found beside the bundle's modules).
  const created = await call(first, 'POST', '/api/v1/namespaces/default/configmaps', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bundled\ndata:\n  key: value\n', 'application/yaml');
  assert.equal(created.status, 201, created.text);
  const got = await call(first, 'GET', '/api/v1/namespaces/default/configmaps/bundled');
  assert.equal(got.status, 200, got.text);
  assert.deepEqual((JSON.parse(got.text) as { data: unknown }).data, { key: 'value' });
  // The OpenAPI documents come from the catalogue's generated files.
  const openapi = await call(first, 'GET', '/openapi/v3');
  assert.equal(openapi.status, 200, openapi.text);
  assert.ok('api/v1' in (JSON.parse(openapi.text) as { paths: Record<string, unknown> }).paths);

  // The code cache, written a second after the start.
  for (const deadline = Date.now() + 30_000; caches(cacheDir).length === 0 && Date.now() < deadline; ) await sleep(100);
  const [cache] = caches(cacheDir);
  assert.ok(cache !== undefined, `no code cache in ${cacheDir}: ${first.output().slice(-2000)}`);
  const written = statSync(join(cacheDir, cache)).mtimeMs;
  await first.stop();

  // Again from the cache, on the etcd3 client (not bundled either).
  const second = await startKapiServer({ binary: bundledApiserverBinary, etcdServers: etcd.endpoints, insecure: true, startTimeoutMs: 120_000, env: { KAPI_CODE_CACHE_DIR: cacheDir, KAPI_ETCD_KV_CLIENT: 'etcd3' } });
  servers.push(second);
  const again = await call(second, 'GET', '/api/v1/namespaces/default/configmaps/bundled');
  assert.equal(again.status, 200, again.text);
  assert.equal((JSON.parse(again.text) as { metadata: { uid: string } }).metadata.uid, (JSON.parse(got.text) as { metadata: { uid: string } }).metadata.uid);
  // An accepted cache is not written again (a rejected one would be, a second after the start).
  await sleep(2500);
  assert.deepEqual(caches(cacheDir), [cache]);
  assert.equal(statSync(join(cacheDir, cache)).mtimeMs, written, 'the second start accepted the cache');
});
