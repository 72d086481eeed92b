/**
 * client-go's dynamic client against custom resources (Go program e2e/go/cmd/kapi-crd-dynamic,
 * in the client-go module the informer test already builds, so no new modules): creates
 * widgets (schema defaults applied), lists them in pages, watches from the list's
 * resourceVersion and sees ADDED/MODIFIED/DELETED for later writes, and lists them through
 * the deprecated v1beta1 version.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { buildGoCommand, LineProcess } from '../harness/go-program.js';
import { WIDGET_CRD_YAML } from './crd-manifests.js';

let cluster: TestCluster;
let binary: string;
let program: LineProcess | undefined;

before(async () => {
  const [built, started] = await Promise.all([buildGoCommand('kapi-crd-dynamic'), startCluster()]);
  cluster = started;
  binary = built.binary;
  process.stderr.write(`# go build ./cmd/kapi-crd-dynamic took ${built.seconds.toFixed(1)} s\n`);
});
after(async () => {
  await program?.kill();
  await cluster?.stop();
});

void test('client-go dynamic client: create, paged list and watch of custom resources, and the deprecated version', async () => {
  const kubectl = cluster.kubectl();
  await kubectl.ok(['apply', '-f', '-'], WIDGET_CRD_YAML);
  await kubectl.ok(['wait', '--for=condition=Established', 'crd/widgets.e2e.example.com', '--timeout=30s']);
  program = new LineProcess(binary, [`--kubeconfig=${cluster.kubeconfig()}`, '--namespace=default', '--count=25']);
  const result = await program.next('result', 60_000);
  assert.deepEqual(result['problems'], [], program.stderr());
  assert.equal(result['ok'], true);
  assert.equal(result['listed'], 25);
  assert.equal(result['pages'], 3);
  assert.deepEqual(result['events'], ['ADDED go-late', 'MODIFIED go-00', 'DELETED go-01']);
});
