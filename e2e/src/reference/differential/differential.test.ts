/**
 * The differential suite: the same scripted requests (cases.ts) to a real kube-apiserver
 * v1.32.13 and to kapi, each on an empty etcd, compared answer by answer (compare.ts) after
 * normalizing what two servers legitimately differ in. Fails on any difference not declared,
 * with its reason, in deliberate-differences.ts. Prints a summary (cases, matching, differing).
 * Skipped, with the reason, when the kube-apiserver binary is missing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeServiceAccountKeys } from '@kapi/apiserver/testing';
import { startCluster, type TestCluster } from '../../harness/cluster.js';
import { kubeReferenceBinary, REFERENCE_TOKEN, startKubeReference, type KubeReference } from '../../harness/kube-reference.js';
import { CASES, catalogueCases, type Case } from './cases.js';
import { differences, view } from './compare.js';
import { declared, DELIBERATE, NOT_YET, type DeclaredDifference } from './deliberate-differences.js';
import { send, type Answer } from './send.js';

const binary = kubeReferenceBinary();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A watch that ended at once because the server's cache had not caught up with etcd yet (kube under load). */
function cacheBehind(answer: Answer): boolean {
  return Array.isArray(answer.body) && JSON.stringify(answer.body[0] ?? null).includes('"ResourceVersionTooLarge"');
}

async function run(base: string, c: Case): Promise<Answer> {
  let answer = await send(base, REFERENCE_TOKEN, c);
  for (let i = 0; cacheBehind(answer) && i < 10; i++) {
    await sleep(1000);
    answer = await send(base, REFERENCE_TOKEN, c);
  }
  for (let i = 0; c.until !== undefined && !c.until(answer) && i < 50; i++) {
    await sleep(200);
    answer = await send(base, REFERENCE_TOKEN, c);
  }
  return answer;
}

void describe('differential: kapi answers as kube-apiserver 1.32', { skip: binary === undefined ? 'no kube-apiserver binary (set KAPI_KUBE_APISERVER)' : false }, () => {
  let kube: KubeReference;
  let kapi: TestCluster;
  let keysDir: string;
  before(async () => {
    // The reference is a kube-apiserver without a kube-controller-manager: kapi runs without the
    // controllers that would put a default ServiceAccount and kube-root-ca.crt in every namespace
    // or fill ResourceQuota status (without which quota admission charges nothing, as in kube).
    const controllers = '--controllers=*,-serviceaccount-controller,-root-ca-certificate-publisher-controller,-resourcequota-controller';
    // The reference's authentication: service account keys (kube serves serviceaccounts/token
    // only with a signing key) and the same admin token, so both servers see the same user.
    keysDir = mkdtempSync(join(tmpdir(), 'kapi-differential-'));
    const keys = writeServiceAccountKeys(keysDir);
    const tokens = join(keysDir, 'tokens.csv');
    writeFileSync(tokens, `${REFERENCE_TOKEN},admin,admin-uid,"system:masters"\n`);
    const authentication = [
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${keys.keyFile}`,
      `--service-account-signing-key-file=${keys.signingKeyFile}`,
      '--api-audiences=https://kubernetes.default.svc',
      `--token-auth-file=${tokens}`,
    ];
    [kube, kapi] = await Promise.all([startKubeReference(binary!), startCluster({ server: { extraArgs: [controllers, ...authentication], readyzToken: REFERENCE_TOKEN } })]);
  });
  after(async () => {
    await Promise.all([kube?.stop(), kapi?.stop()]);
    if (keysDir !== undefined) rmSync(keysDir, { recursive: true, force: true });
  });

  void it('every answer matches but for the declared differences', async () => {
    const discovery = JSON.parse((await kube.get('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).body) as {
      items: { metadata: { name: string }; versions: { version: string; resources: { resource: string; scope: string }[] }[] }[];
    };
    const coreCluster = new Set(['nodes', 'persistentvolumes', 'namespaces']);
    const cases = [
      ...CASES,
      ...catalogueCases((group, plural) => {
        if (group === '') return { version: 'v1', namespaced: !coreCluster.has(plural) };
        const version = discovery.items.find((g) => g.metadata.name === group)?.versions[0];
        const resource = version?.resources.find((r) => r.resource === plural);
        return version === undefined || resource === undefined ? undefined : { version: version.version, namespaced: resource.scope === 'Namespaced' };
      }),
    ];
    const started = Date.now();
    const undeclared: string[] = [];
    const used = new Set<DeclaredDifference>();
    let compared = 0;
    let matching = 0;
    let declaredOnly = 0;
    let matchingButAuditId = 0;
    const kapiUrl = kapi.servers[0]!.url;
    // KAPI_DIFF_DUMP=<file>: every case's two normalized answers, for looking into a difference.
    const dump: unknown[] = [];
    for (const c of cases) {
      let [kubeAnswer, kapiAnswer] = await Promise.all([run(kube.url, c), run(kapiUrl, c)]);
      if (c.setup === true) continue;
      if (c.outline !== undefined) {
        const outline = c.outline;
        [kubeAnswer, kapiAnswer] = [kubeAnswer, kapiAnswer].map((a) => ({ ...a, body: outline(a.body) })) as [Answer, Answer];
      }
      compared++;
      dump.push({ case: c.name, kube: view(kubeAnswer), kapi: view(kapiAnswer) });
      const diffs = differences(view(kubeAnswer), view(kapiAnswer));
      if (diffs.every((d) => d.path === 'audit-id')) matchingButAuditId++;
      if (diffs.length === 0) {
        matching++;
        continue;
      }
      let allDeclared = true;
      for (const d of diffs) {
        const entry = declared(c.name, d.path);
        if (entry === undefined) {
          allDeclared = false;
          undeclared.push(`${c.name} (${c.method} ${c.path}): ${d.text}`);
        } else used.add(entry);
      }
      if (allDeclared) declaredOnly++;
    }
    if (process.env.KAPI_DIFF_DUMP) writeFileSync(process.env.KAPI_DIFF_DUMP, JSON.stringify(dump, null, 1));
    const unused = [...DELIBERATE, ...NOT_YET].filter((d) => !used.has(d));
    console.log(
      `differential: ${compared} cases, ${matching} matching (${matchingButAuditId} but for the Audit-Id header), ${compared - matching} differing ` +
        `(${declaredOnly} only in declared ways, ${compared - matching - declaredOnly} undeclared); ` +
        `${DELIBERATE.length} deliberate + ${NOT_YET.length} not-yet declarations, ${unused.length} unused; ${Date.now() - started} ms`,
    );
    for (const d of unused) console.log(`  unused declaration: ${String(d.cases)} ${String(d.path)}`);
    for (const line of undeclared) console.log(`  ${line}`);
    assert.deepEqual(undeclared, []);
  });
});
