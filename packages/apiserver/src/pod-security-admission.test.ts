/**
 * kube's PodSecurity admission plugin as kapi runs it, against a real etcd: enforce (403),
 * warn (Warning headers), audit (audit annotations), pod templates of workloads (warn and
 * audit only), namespace label validation and the warnings when a namespace's enforce level
 * rises, exemptions and defaults. Expected texts are kube-apiserver 1.32.13's for the same
 * requests.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Response, type TestServer } from './testing/fixture.js';

type Json = Record<string, unknown>;
const LABEL = 'pod-security.kubernetes.io/';
const pod = (name: string, spec: Json, annotations?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(annotations !== undefined ? { annotations } : {}) }, spec });
const warnings = (res: Response): string[] => (res.headers.get('warning') ?? '').split(/, (?=299 )/).filter((w) => w !== '').map((w) => JSON.parse(w.replace(/^299 - /, '')) as string);

/** A pod breaking nearly every check (kapi and kube accept it otherwise). */
const BAD_SPEC: Json = {
  hostPID: true,
  securityContext: {
    runAsUser: 0, runAsNonRoot: false, seLinuxOptions: { type: 'spc_t', user: 'u', role: 'r' }, seccompProfile: { type: 'Unconfined' },
    sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_rmem', value: '4096 87380 6291456' }, { name: 'net.ipv4.tcp_keepalive_time', value: '1' }],
  },
  volumes: [{ name: 'hp', hostPath: { path: '/' } }, { name: 'nfs', nfs: { server: 'x', path: '/' } }, { name: 'ed', emptyDir: {} }],
  initContainers: [{ name: 'i1', image: 'busybox', securityContext: { capabilities: { add: ['SYS_ADMIN', 'CHOWN'] } } }],
  containers: [
    { name: 'c1', image: 'busybox', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 81 }], securityContext: { allowPrivilegeEscalation: true, runAsUser: 0, capabilities: { add: ['NET_BIND_SERVICE', 'NET_RAW'], drop: ['ALL'] }, seccompProfile: { type: 'Unconfined' } } },
    { name: 'c2', image: 'busybox', securityContext: { windowsOptions: { hostProcess: false }, privileged: false } },
  ],
};
const PLAIN_SPEC: Json = { containers: [{ name: 'c', image: 'busybox' }] };
const PLAIN_RESTRICTED = 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

void describe('PodSecurity admission', () => {
  let t: TestServer;
  let dir: string;
  let logPath: string;
  /** The pod-security audit annotations of the request sent with this Audit-ID. */
  const auditAnnotations = async (auditId: string): Promise<Record<string, string>> => {
    for (let i = 0; i < 250; i++) {
      const events = readFileSync(logPath, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
      const event = events.find((e) => e['auditID'] === auditId && e['stage'] === 'ResponseComplete');
      if (event !== undefined) return Object.fromEntries(Object.entries((event['annotations'] ?? {}) as Record<string, string>).filter(([k]) => k.startsWith(LABEL)));
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`no audit event for ${auditId}`);
  };
  const namespace = async (name: string, labels: Record<string, string>) => {
    const created = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
    assert.equal(created.status, 201, created.text);
    for (let i = 0; i < 200 && (await t.request('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 25));
  };
  const relabel = (name: string, labels: Record<string, string | null>) =>
    t.request('PATCH', `/api/v1/namespaces/${name}`, { body: { metadata: { labels } }, headers: { 'content-type': 'application/merge-patch+json' } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-psa-'));
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    logPath = join(dir, 'audit.log');
    t = await startTestServer({
      audit: { policyFile: join(dir, 'policy.yaml'), logPath },
      podSecurity: { exemptions: { namespaces: ['exempt'], runtimeClasses: ['trusted'] } },
    });
    await namespace('psa-r', { [`${LABEL}enforce`]: 'restricted' });
    await namespace('psa-b', { [`${LABEL}enforce`]: 'baseline', [`${LABEL}audit`]: 'restricted' });
    await namespace('psa-w', { [`${LABEL}enforce`]: 'baseline', [`${LABEL}warn`]: 'restricted', [`${LABEL}warn-version`]: 'v1.22' });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('enforces restricted and baseline with kube\'s messages, in kube\'s check order', async () => {
    const restricted = await t.request('POST', '/api/v1/namespaces/psa-r/pods', { body: pod('bad', BAD_SPEC) });
    assert.equal(restricted.status, 403, restricted.text);
    assert.equal(restricted.json['reason'], 'Forbidden');
    assert.equal(restricted.json['message'], 'pods "bad" is forbidden: violates PodSecurity "restricted:latest": host namespaces (hostPID=true), hostPort (container "c1" uses hostPorts 8080, 81), seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set), forbidden sysctls (kernel.msgmax), allowPrivilegeEscalation != false (containers "i1", "c1", "c2" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "i1", "c2" must set securityContext.capabilities.drop=["ALL"]; containers "i1", "c1" must not include "CHOWN", "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add), restricted volume types (volumes "hp", "nfs" use restricted volume types "hostPath", "nfs"), runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod and container "c1" must not set runAsUser=0), seccompProfile (pod and container "c1" must not set securityContext.seccompProfile.type to "Unconfined")');
    const baseline = await t.request('POST', '/api/v1/namespaces/psa-b/pods', { body: pod('bad', BAD_SPEC), headers: { 'audit-id': 'psa-baseline' } });
    assert.equal(baseline.status, 403, baseline.text);
    assert.equal(baseline.json['message'], 'pods "bad" is forbidden: violates PodSecurity "baseline:latest": non-default capabilities (containers "i1", "c1" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add), host namespaces (hostPID=true), hostPath volumes (volume "hp"), hostPort (container "c1" uses hostPorts 8080, 81), seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set), seccompProfile (pod and container "c1" must not set securityContext.seccompProfile.type to "Unconfined"), forbidden sysctls (kernel.msgmax)');
    assert.deepEqual(await auditAnnotations('psa-baseline'), {
      [`${LABEL}enforce-policy`]: 'baseline:latest',
      [`${LABEL}audit-violations`]: `would violate PodSecurity "restricted:latest": ${String(restricted.json['message']).replace(/^.*restricted:latest": /, '')}`,
    });
    const apparmor = await t.request('POST', '/api/v1/namespaces/psa-b/pods', {
      body: pod('aa', { containers: [{ name: 'c', image: 'b', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] }, { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' }),
    });
    assert.equal(apparmor.json['message'], 'pods "aa" is forbidden: violates PodSecurity "baseline:latest": forbidden AppArmor profiles (container "c" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c="unconfined"")');
    const generated = await t.request('POST', '/api/v1/namespaces/psa-r/pods', { body: { ...pod('', PLAIN_SPEC), metadata: { generateName: 'g-' } } });
    assert.match(String(generated.json['message']), new RegExp(`^pods "g-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": ${PLAIN_RESTRICTED.replace(/[()[\]".=!]/g, '\\$&')}$`));
    // Windows pods are spared the Linux-only restricted checks.
    const windows = await t.request('POST', '/api/v1/namespaces/psa-r/pods', { body: pod('win', { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'c', image: 'b' }] }), headers: { 'audit-id': 'psa-windows' } });
    assert.equal(windows.status, 201, windows.text);
    assert.deepEqual(await auditAnnotations('psa-windows'), { [`${LABEL}enforce-policy`]: 'restricted:latest' });
  });

  void it('warns (a restricted warn level follows the enforce level), for pods and for workload templates only warns', async () => {
    const warned = await t.request('POST', '/api/v1/namespaces/psa-w/pods', { body: pod('wpod', PLAIN_SPEC) });
    assert.equal(warned.status, 201, warned.text);
    assert.deepEqual(warnings(warned), [`would violate PodSecurity "restricted:v1.22": ${PLAIN_RESTRICTED}`]);
    const deployment = await t.request('POST', '/apis/apps/v1/namespaces/psa-r/deployments', {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: PLAIN_SPEC } } },
    });
    assert.equal(deployment.status, 201, deployment.text);
    assert.deepEqual(warnings(deployment), [`would violate PodSecurity "restricted:latest": ${PLAIN_RESTRICTED}`]);
    const cronjob = await t.request('POST', '/apis/batch/v1/namespaces/psa-w/cronjobs', {
      body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { ...PLAIN_SPEC, restartPolicy: 'OnFailure' } } } } } },
    });
    assert.equal(cronjob.status, 201, cronjob.text);
    assert.deepEqual(warnings(cronjob), [`would violate PodSecurity "restricted:v1.22": ${PLAIN_RESTRICTED}`]);
    // sysctls allowed since v1.29 are not at v1.28.
    assert.equal((await relabel('psa-w', { [`${LABEL}warn-version`]: 'v1.28' })).status, 200);
    const sysctls = await t.request('POST', '/api/v1/namespaces/psa-w/pods', { body: pod('sys', { ...PLAIN_SPEC, securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time', value: '1' }, { name: 'net.ipv4.tcp_rmem', value: '1 1 1' }] } }) });
    assert.match(warnings(sysctls)[0]!, /forbidden sysctls \(net\.ipv4\.tcp_keepalive_time, net\.ipv4\.tcp_rmem\)/);
  });

  void it('checks as of an older version: restricted:v1.18 has no restricted capabilities, seccomp fields or runAsUser checks yet', async () => {
    await namespace('psa-v', { [`${LABEL}warn`]: 'restricted', [`${LABEL}warn-version`]: 'v1.18' });
    const old = await t.request('POST', '/api/v1/namespaces/psa-v/pods', {
      body: pod('old', { securityContext: { runAsUser: 0 }, containers: [{ name: 'c', image: 'b', securityContext: { capabilities: { add: ['NET_RAW'] } } }] }, { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/c': 'unconfined' }),
    });
    assert.equal(old.status, 201, old.text);
    assert.ok(warnings(old).includes('would violate PodSecurity "restricted:v1.18": non-default capabilities (container "c" must not include "NET_RAW" in securityContext.capabilities.add), seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/c="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined"), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)'), JSON.stringify(warnings(old)));
  });

  void it('refuses invalid labels (422) and warns about existing pods when the enforce level rises', async () => {
    const invalid = await relabel('psa-b', { [`${LABEL}enforce`]: 'foo' });
    assert.equal(invalid.status, 422, invalid.text);
    assert.equal(invalid.json['message'], 'Namespace "psa-b" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted');
    const two = await relabel('psa-b', { [`${LABEL}enforce-version`]: '1.2', [`${LABEL}warn`]: 'x' });
    assert.equal(two.json['message'], 'Namespace "psa-b" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "1.2": must be "latest" or "v1.x", metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "x": must be one of privileged, baseline, restricted]');
    const created = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa-bad', labels: { [`${LABEL}audit`]: 'bogus', [`${LABEL}warn-version`]: 'v1.99' } } } });
    assert.equal(created.status, 422);
    assert.equal(created.json['message'], 'Namespace "psa-bad" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "bogus": must be one of privileged, baseline, restricted');

    await namespace('psa-up', {});
    for (const name of ['okpod', 'apod']) assert.equal((await t.request('POST', '/api/v1/namespaces/psa-up/pods', { body: pod(name, PLAIN_SPEC) })).status, 201);
    const raised = await relabel('psa-up', { [`${LABEL}enforce`]: 'restricted' });
    assert.equal(raised.status, 200, raised.text);
    assert.deepEqual(warnings(raised), [
      'existing pods in namespace "psa-up" violate the new PodSecurity enforce level "restricted:latest"',
      'apod (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ]);
    // Relaxing it says nothing.
    assert.deepEqual(warnings(await relabel('psa-up', { [`${LABEL}enforce`]: 'baseline' })), []);
  });

  void it('exempts namespaces (warning when one is labelled) and runtime classes; updates that change no image pass', async () => {
    const exempt = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'exempt', labels: { [`${LABEL}enforce`]: 'restricted', [`${LABEL}warn`]: 'baseline' } } } });
    assert.equal(exempt.status, 201, exempt.text);
    assert.deepEqual(warnings(exempt), ['namespace "exempt" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=baseline:latest) will be ignored']);
    assert.equal((await t.request('POST', '/apis/node.k8s.io/v1/runtimeclasses', { body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'trusted' }, handler: 'x' } })).status, 201);
    const trusted = await t.request('POST', '/api/v1/namespaces/psa-r/pods', { body: pod('trusted', { ...PLAIN_SPEC, runtimeClassName: 'trusted' }), headers: { 'audit-id': 'psa-trusted' } });
    assert.equal(trusted.status, 201, trusted.text);
    assert.deepEqual(await auditAnnotations('psa-trusted'), { [`${LABEL}exempt`]: 'runtimeClass' });
    // A pod that predates the enforce level may still be relabelled; a new image is checked.
    assert.equal((await relabel('psa-up', { [`${LABEL}enforce`]: 'restricted' })).status, 200);
    const current = (await t.request('GET', '/api/v1/namespaces/psa-up/pods/okpod')).json;
    const relabelled = await t.request('PUT', '/api/v1/namespaces/psa-up/pods/okpod', { body: { ...current, metadata: { ...(current['metadata'] as Json), labels: { x: 'y' } } } });
    assert.equal(relabelled.status, 200, relabelled.text);
    const spec = relabelled.json['spec'] as Json;
    const reimaged = await t.request('PUT', '/api/v1/namespaces/psa-up/pods/okpod', { body: { ...relabelled.json, spec: { ...spec, containers: [{ ...(spec['containers'] as Json[])[0], image: 'busybox:2' }] } } });
    assert.equal(reimaged.status, 403, reimaged.text);
    assert.equal(reimaged.json['message'], `pods "okpod" is forbidden: violates PodSecurity "restricted:latest": ${PLAIN_RESTRICTED}`);
  });

  void it('counts evaluations and exemptions in kube\'s pod_security_* metrics', async () => {
    const text = (await t.request('GET', '/metrics')).text;
    const sample = (series: string) => Number(new RegExp(`^${series.replace(/[{}"=,.]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
    assert.ok(sample('pod_security_evaluations_total{decision="deny",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""}') >= 2, text);
    assert.ok(sample('pod_security_evaluations_total{decision="deny",mode="warn",policy_level="restricted",policy_version="v1.22",request_operation="create",resource="controller",subresource=""}') >= 1);
    assert.ok(sample('pod_security_evaluations_total{decision="deny",mode="audit",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""}') >= 1);
    assert.ok(sample('pod_security_exemptions_total{request_operation="create",resource="pod",subresource=""}') >= 1);
    assert.equal(sample('pod_security_exemptions_total{request_operation="update",resource="controller",subresource=""}'), 0);
  });
});
