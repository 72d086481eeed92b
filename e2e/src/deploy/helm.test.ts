/**
 * helm/kapi rendered by Helm's own engine (helm/render, a Go program; no helm binary here):
 * the objects, their labels and selectors, probes, budgets, flags and certificates, several
 * value sets, and server-side validation of every kind kapi serves by creating the objects in
 * a real kapi with `dryRun=All` (plus a check that the dry run does reject a bad object).
 *
 * The test asks kapi's discovery which kinds it serves and validates every rendered object of
 * those kinds; a kind kapi does not serve (the ServiceMonitor, a Prometheus Operator CRD) is
 * checked structurally only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { startEtcd, type TestEtcd } from '@kapi/storage/testing';
import { startKapiServer, type KapiServer } from '@kapi/apiserver/testing';
import { ensureRenderer, goBinary, renderChart, type Manifest, type RenderOptions } from './helm-render.js';
import { httpRequestJson } from './http.js';
import { flagNames, loadTopology, repoRoot, type Topology } from './repo.js';

interface Probe {
  httpGet: { path: string; port: string; scheme: string };
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] }; emptyDir?: object }[];
  affinity?: { podAntiAffinity?: Record<string, { weight?: number; podAffinityTerm?: AffinityTerm }[] | AffinityTerm[]> };
  serviceAccountName?: string;
  securityContext?: { runAsNonRoot?: boolean };
}
interface AffinityTerm {
  topologyKey: string;
  labelSelector: { matchLabels: Record<string, string> };
}
interface Workload extends Manifest {
  spec: {
    replicas: number;
    serviceName?: string;
    podManagementPolicy?: string;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
    volumeClaimTemplates?: { metadata: { name: string }; spec: { resources: { requests: { storage: string } }; accessModes: string[] } }[];
  };
}
interface ServiceManifest extends Manifest {
  spec: { clusterIP?: string; publishNotReadyAddresses?: boolean; selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
}
interface Budget extends Manifest {
  spec: { minAvailable?: number | string; maxUnavailable?: number | string; selector: { matchLabels: Record<string, string> } };
}

const go = goBinary();
const skip = go === undefined ? 'Go is not installed: helm/render (Helm\'s engine as a Go module) cannot be built' : false;
const release = 'kapi';
const namespace = 'kapi-system';
let renderer = '';
let topology: Topology;
let objects: Manifest[] = [];
let notes = '';

/** kubeadm's probe timings (cmd/kubeadm/app/util/staticpod/utils.go). */
const kubeadm = {
  liveness: { initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 },
  readiness: { initialDelaySeconds: 0, periodSeconds: 1, timeoutSeconds: 15, failureThreshold: 3 },
  startup: { initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 24 },
};

async function render(options: RenderOptions = {}) {
  const result = await renderChart(renderer, { release, namespace, ...options });
  assert.equal(result.code, 0, result.stderr);
  return result;
}
function find<T extends Manifest>(list: Manifest[], kind: string, name?: string): T {
  const found = list.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  assert.equal(found.length, 1, `expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0] as T;
}
const subset = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

before(async () => {
  if (skip) return;
  topology = await loadTopology();
  const built = await ensureRenderer(go!);
  renderer = built.path;
  if (built.builtMs !== undefined) process.stderr.write(`# built helm/render in ${(built.builtMs / 1000).toFixed(1)} s (cached in helm/render/bin/ from now on)\n`);
  const result = await render();
  objects = result.manifests;
  notes = result.stderr;
});

void test('the chart renders the HA control plane: kinds and counts', { skip }, () => {
  const kinds = objects.map((o) => `${o.apiVersion}/${o.kind}`).sort();
  assert.deepEqual(kinds, [
    'apps/v1/Deployment',
    'apps/v1/StatefulSet',
    'networking.k8s.io/v1/NetworkPolicy',
    'policy/v1/PodDisruptionBudget',
    'policy/v1/PodDisruptionBudget',
    'v1/Pod',
    'v1/Secret',
    'v1/Secret',
    'v1/Secret',
    'v1/Service',
    'v1/Service',
    'v1/ServiceAccount',
    'v1/ServiceAccount',
  ]);
});

void test('every object: release namespace, DNS-label name, the chart\'s standard labels', { skip }, () => {
  for (const o of objects) {
    assert.equal(o.metadata.namespace, namespace, `${o.kind}/${o.metadata.name}`);
    assert.match(o.metadata.name, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    assert.ok(
      subset({ 'app.kubernetes.io/name': 'kapi', 'app.kubernetes.io/instance': release, 'app.kubernetes.io/managed-by': 'Helm', 'helm.sh/chart': 'kapi-0.1.0', 'app.kubernetes.io/version': '0.1.0' }, o.metadata.labels),
      `${o.kind}/${o.metadata.name} labels ${JSON.stringify(o.metadata.labels)}`,
    );
  }
});

void test('selectors: workloads, Services, budgets and anti-affinity each select their own pods and only those', { skip }, () => {
  const deployment = find<Workload>(objects, 'Deployment');
  const sts = find<Workload>(objects, 'StatefulSet');
  const kapiPods = deployment.spec.template.metadata.labels;
  const etcdPods = sts.spec.template.metadata.labels;
  for (const w of [deployment, sts]) assert.ok(subset(w.spec.selector.matchLabels, w.spec.template.metadata.labels), `${w.kind} selector matches its template`);
  assert.ok(!subset(deployment.spec.selector.matchLabels, etcdPods), 'the Deployment selector does not match etcd pods');
  assert.ok(!subset(sts.spec.selector.matchLabels, kapiPods), 'the StatefulSet selector does not match kapi pods');

  const kapiService = find<ServiceManifest>(objects, 'Service', 'kapi');
  const headless = find<ServiceManifest>(objects, 'Service', 'kapi-etcd-headless');
  assert.ok(subset(kapiService.spec.selector, kapiPods) && !subset(kapiService.spec.selector, etcdPods));
  assert.ok(subset(headless.spec.selector, etcdPods) && !subset(headless.spec.selector, kapiPods));

  const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget') as Budget[];
  assert.deepEqual(pdbs.map((p) => [subset(p.spec.selector.matchLabels, kapiPods), subset(p.spec.selector.matchLabels, etcdPods)]).sort(), [[false, true], [true, false]]);

  for (const [w, own] of [[deployment, kapiPods], [sts, etcdPods]] as const) {
    const preferred = w.spec.template.spec.affinity?.podAntiAffinity?.['preferredDuringSchedulingIgnoredDuringExecution'] as { weight: number; podAffinityTerm: AffinityTerm }[];
    assert.equal(preferred.length, 1, `${w.kind}: soft anti-affinity by default`);
    assert.equal(preferred[0]!.podAffinityTerm.topologyKey, 'kubernetes.io/hostname');
    assert.deepEqual(preferred[0]!.podAffinityTerm.labelSelector.matchLabels, w.spec.selector.matchLabels);
    assert.ok(subset(preferred[0]!.podAffinityTerm.labelSelector.matchLabels, own));
  }
});

void test('etcd: three members in a Parallel StatefulSet with PVCs, a headless Service publishing not-ready addresses, a quorum PDB', { skip }, () => {
  const sts = find<Workload>(objects, 'StatefulSet', 'kapi-etcd');
  const headless = find<ServiceManifest>(objects, 'Service', 'kapi-etcd-headless');
  assert.equal(sts.spec.replicas, 3);
  assert.equal(sts.spec.serviceName, headless.metadata.name);
  assert.equal(sts.spec.podManagementPolicy, 'Parallel');
  assert.equal(headless.spec.clusterIP, 'None');
  assert.equal(headless.spec.publishNotReadyAddresses, true);
  assert.deepEqual(headless.spec.ports.map((p) => [p.name, p.port, p.targetPort]), [['client', 2379, 'client'], ['peer', 2380, 'peer']]);

  const [claim] = sts.spec.volumeClaimTemplates ?? [];
  assert.equal(claim?.metadata.name, 'data');
  assert.equal(claim?.spec.resources.requests.storage, '8Gi');
  assert.deepEqual(claim?.spec.accessModes, ['ReadWriteOnce']);

  const etcd = sts.spec.template.spec.containers[0]!;
  assert.deepEqual(etcd.volumeMounts, [{ name: 'data', mountPath: '/var/lib/etcd' }, { name: 'etcd-tls', mountPath: '/var/lib/etcd-tls', readOnly: true }]);
  assert.deepEqual(etcd.env, [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }]);
  assert.deepEqual(etcd.ports?.map((p) => [p.name, p.containerPort]), [['client', 2379], ['peer', 2380], ['metrics', 2381]]);
  const args = etcd.args ?? [];
  const arg = (name: string) => args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  const domain = `${headless.metadata.name}.${namespace}.svc.cluster.local`;
  const members = [0, 1, 2].map((i) => `${sts.metadata.name}-${i}`);
  assert.equal(arg('--initial-cluster'), members.map((m) => `${m}=https://${m}.${domain}:2380`).join(','));
  assert.equal(arg('--initial-advertise-peer-urls'), `https://$(POD_NAME).${domain}:2380`);
  assert.equal(arg('--advertise-client-urls'), `https://$(POD_NAME).${domain}:2379`);
  // Client and peer traffic over mutual TLS, with the chart's etcd certificates.
  assert.equal(arg('--client-cert-auth'), 'true');
  assert.equal(arg('--peer-client-cert-auth'), 'true');
  assert.equal(arg('--listen-metrics-urls'), 'http://0.0.0.0:2381');
  const tlsVolume = sts.spec.template.spec.volumes!.find((v) => v.name === 'etcd-tls')!;
  assert.equal(tlsVolume.secret?.secretName, 'kapi-etcd-tls');
  for (const flag of ['--trusted-ca-file', '--cert-file', '--key-file', '--peer-trusted-ca-file', '--peer-cert-file', '--peer-key-file']) {
    const file = arg(flag)!;
    assert.ok(tlsVolume.secret!.items!.some((i) => `/var/lib/etcd-tls/${i.path}` === file), `${flag}=${file} is in the etcd-tls volume`);
  }
  assert.equal(arg('--data-dir')?.startsWith('/var/lib/etcd/'), true);
  assert.equal(arg('--experimental-watch-progress-notify-interval'), '5s');
  assert.deepEqual(flagNames(args), flagNames(topology.etcdCommand('etcd-1', topology.composeLayout()).args), 'the flags make cluster and compose pass');

  // The client port wants a client certificate: the probes use the plain-HTTP metrics port.
  assert.deepEqual(etcd.livenessProbe, { httpGet: { path: '/livez', port: 'metrics', scheme: 'HTTP' }, ...kubeadm.liveness });
  assert.deepEqual(etcd.readinessProbe, { httpGet: { path: '/readyz', port: 'metrics', scheme: 'HTTP' }, ...kubeadm.readiness });
  assert.deepEqual(etcd.startupProbe, { httpGet: { path: '/readyz', port: 'metrics', scheme: 'HTTP' }, ...kubeadm.startup });
  assert.ok(etcd.resources?.requests?.['cpu'] && etcd.resources.requests['memory'] && etcd.resources.limits?.['memory']);
  assert.equal(find<Budget>(objects, 'PodDisruptionBudget', 'kapi-etcd').spec.minAvailable, 2);
});

void test('kapi: replicas with kubeadm\'s /livez and /readyz probe timings, every etcd member in --etcd-servers, the shared certificate, a PDB, resources', { skip }, () => {
  const deployment = find<Workload>(objects, 'Deployment', 'kapi');
  const sts = find<Workload>(objects, 'StatefulSet');
  assert.equal(deployment.spec.replicas, 3);
  const pod = deployment.spec.template.spec;
  const kapi = pod.containers[0]!;
  assert.equal(kapi.image, 'kapi-apiserver:0.1.0');
  assert.equal(kapi.command, undefined, 'the image entrypoint (kapi-apiserver) runs');
  assert.deepEqual(kapi.livenessProbe, { httpGet: { path: '/livez', port: 'https', scheme: 'HTTPS' }, ...kubeadm.liveness });
  assert.deepEqual(kapi.readinessProbe, { httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' }, ...kubeadm.readiness });
  assert.deepEqual(kapi.startupProbe, { httpGet: { path: '/livez', port: 'https', scheme: 'HTTPS' }, ...kubeadm.startup });
  assert.deepEqual(kapi.ports, [{ name: 'https', containerPort: 6443, protocol: 'TCP' }]);
  assert.ok(kapi.resources?.requests?.['cpu'] && kapi.resources.requests['memory'] && kapi.resources.limits?.['memory']);
  assert.equal(pod.securityContext?.runAsNonRoot, true);

  const args = kapi.args ?? [];
  assert.deepEqual(flagNames(args), flagNames(topology.kapiCommand('kapi-1', topology.composeLayout()).args), 'the flags make cluster and compose pass');
  const servers = args.find((a) => a.startsWith('--etcd-servers='))!.slice('--etcd-servers='.length).split(',');
  assert.deepEqual(servers, [0, 1, 2].map((i) => `https://${sts.metadata.name}-${i}.${sts.spec.serviceName}.${namespace}.svc.cluster.local:2379`));
  const etcdTls = pod.volumes!.find((v) => v.name === 'etcd-tls')!;
  assert.equal(etcdTls.secret?.secretName, 'kapi-etcd-tls');
  for (const flag of ['--etcd-cafile', '--etcd-certfile', '--etcd-keyfile']) {
    const file = args.find((a) => a.startsWith(`${flag}=`))!.slice(flag.length + 1);
    assert.ok(etcdTls.secret!.items!.some((i) => `/var/lib/kapi/etcd/${i.path}` === file), `${flag}=${file} is in the etcd-tls volume`);
  }
  assert.ok(args.includes('--secure-port=6443'));
  // Client certificates and the admin token from the auth Secret; Node,RBAC as kubeadm.
  assert.ok(args.includes('--authorization-mode=Node,RBAC') && args.includes('--enable-admission-plugins=NodeRestriction'));
  const auth = pod.volumes!.find((v) => v.name === 'auth')!;
  assert.equal(auth.secret?.secretName, 'kapi-auth');
  for (const flag of ['--client-ca-file', '--token-auth-file', '--service-account-key-file', '--service-account-signing-key-file']) {
    const file = args.find((a) => a.startsWith(`${flag}=`))!.slice(flag.length + 1);
    assert.ok(auth.secret!.items!.some((i) => `/var/lib/kapi/auth/${i.path}` === file), `${flag}=${file} is in the auth volume`);
  }
  const authData = find<Manifest & { data: Record<string, string> }>(objects, 'Secret', 'kapi-auth').data;
  const tokens = Buffer.from(authData['tokens.csv']!, 'base64').toString();
  assert.match(tokens, /^[A-Za-z0-9]{48},kapi-admin,kapi-admin,"system:masters"\n$/);
  // Service account tokens (`kubectl create token`): an RSA key signs them and, read as its public half, verifies them.
  assert.ok(args.includes('--service-account-issuer=https://kubernetes.default.svc'));
  assert.equal(args.find((a) => a.startsWith('--service-account-key-file=')), '--service-account-key-file=/var/lib/kapi/auth/sa.key');
  assert.equal(createPrivateKey(Buffer.from(authData['sa.key']!, 'base64').toString()).asymmetricKeyType, 'rsa');

  const service = find<ServiceManifest>(objects, 'Service', 'kapi');
  assert.deepEqual(service.spec.ports.map((p) => [p.name, p.port, p.targetPort]), [['https', 6443, 'https']]);
  assert.ok(kapi.ports!.some((p) => p.name === service.spec.ports[0]!.targetPort));
  assert.equal(find<Budget>(objects, 'PodDisruptionBudget', 'kapi').spec.maxUnavailable, 1);

  // --cert-dir holds the Secret's pair under the names kapi reads (apiserver.crt / apiserver.key).
  const certDir = args.find((a) => a.startsWith('--cert-dir='))!.slice('--cert-dir='.length);
  const mount = kapi.volumeMounts!.find((m) => m.mountPath === certDir)!;
  assert.equal(mount.readOnly, true);
  const volume = pod.volumes!.find((v) => v.name === mount.name)!;
  assert.deepEqual(volume.secret?.items, [{ key: 'tls.crt', path: 'apiserver.crt' }, { key: 'tls.key', path: 'apiserver.key' }]);
  assert.equal(volume.secret?.secretName, find(objects, 'Secret', 'kapi-tls').metadata.name);
  assert.match(deployment.spec.template.metadata.annotations?.['checksum/tls'] ?? '', /^[0-9a-f]{64}$/);

  // The image keeps the bundled server's V8 code cache in KAPI_CODE_CACHE_DIR: the pod gives
  // it a writable emptyDir there (the root filesystem may be read-only).
  const cacheDir = /^ENV KAPI_CODE_CACHE_DIR=(\S+)$/m.exec(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'))?.[1];
  assert.ok(cacheDir !== undefined, 'the Dockerfile sets KAPI_CODE_CACHE_DIR');
  const cacheMount = kapi.volumeMounts!.find((m) => m.mountPath === cacheDir);
  assert.ok(cacheMount !== undefined && cacheMount.readOnly !== true, JSON.stringify(kapi.volumeMounts));
  assert.deepEqual(pod.volumes!.find((v) => v.name === cacheMount.name)?.emptyDir, {});
});

void test('the generated serving certificate is signed by the chart\'s CA and names the Service', { skip }, () => {
  const secret = find<Manifest & { type: string; data: Record<string, string> }>(objects, 'Secret', 'kapi-tls');
  assert.equal(secret.type, 'kubernetes.io/tls');
  assert.deepEqual(Object.keys(secret.data).sort(), ['ca.crt', 'tls.crt', 'tls.key']);
  const cert = new X509Certificate(Buffer.from(secret.data['tls.crt']!, 'base64'));
  const ca = new X509Certificate(Buffer.from(secret.data['ca.crt']!, 'base64'));
  assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), 'tls.crt is issued and signed by ca.crt');
  assert.ok(ca.ca, 'ca.crt is a CA certificate');
  for (const name of ['kapi', `kapi.${namespace}`, `kapi.${namespace}.svc`, `kapi.${namespace}.svc.cluster.local`, 'localhost']) {
    assert.ok(cert.checkHost(name), `the certificate names ${name}`);
  }
  assert.ok(cert.checkIP('127.0.0.1'));
});

void test('helm test hook: a Pod that calls /readyz through the Service with the chart\'s CA', { skip }, () => {
  const pod = find<Manifest & { spec: PodSpec & { restartPolicy: string } }>(objects, 'Pod');
  assert.equal(pod.metadata.annotations?.['helm.sh/hook'], 'test');
  assert.equal(pod.spec.restartPolicy, 'Never');
  const [container] = pod.spec.containers;
  const command = container!.command ?? [];
  assert.equal(command[0], 'curl');
  assert.ok(command.includes('--fail'));
  assert.equal(command.at(-1), `https://kapi.${namespace}.svc:6443/readyz?verbose`);
  const caPath = command[command.indexOf('--cacert') + 1]!;
  const mount = container!.volumeMounts!.find((m) => caPath.startsWith(`${m.mountPath}/`))!;
  const volume = pod.spec.volumes!.find((v) => v.name === mount.name)!;
  assert.equal(volume.secret?.secretName, 'kapi-tls');
  assert.deepEqual(volume.secret?.items, [{ key: 'ca.crt', path: caPath.slice(mount.mountPath.length + 1) }]);
});

void test('NOTES.txt tells how to wait for, test and reach the release', { skip }, () => {
  assert.match(notes, /rollout status statefulset\/kapi-etcd/);
  assert.match(notes, /helm test kapi -n kapi-system/);
  assert.match(notes, /https:\/\/kapi\.kapi-system\.svc\.cluster\.local:6443/);
  assert.match(notes, /secret kapi-auth -o jsonpath='\{\.data\.admin-token\}'/);
  assert.match(notes, /Node,RBAC/);
});

void test('values: ServiceMonitor, hard anti-affinity, five etcd members, an existing TLS Secret, no persistence; bad values fail to render', { skip }, async () => {
  const monitored = (await render({ set: ['serviceMonitor.enabled=true'] })).manifests;
  const monitor = find<Manifest & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string; scheme: string }[] } }>(monitored, 'ServiceMonitor');
  assert.equal(monitor.apiVersion, 'monitoring.coreos.com/v1');
  const service = find<ServiceManifest>(monitored, 'Service', 'kapi');
  assert.ok(subset(monitor.spec.selector.matchLabels, service.metadata.labels), 'the ServiceMonitor selects the kapi Service');
  assert.ok(!subset(monitor.spec.selector.matchLabels, find(monitored, 'Service', 'kapi-etcd-headless').metadata.labels));
  assert.deepEqual(monitor.spec.endpoints.map((e) => [e.port, e.path, e.scheme]), [[service.spec.ports[0]!.name, '/metrics', 'https']]);

  const hard = (await render({ set: ['apiServer.podAntiAffinity=hard', 'etcd.podAntiAffinity='] })).manifests;
  const required = find<Workload>(hard, 'Deployment').spec.template.spec.affinity?.podAntiAffinity?.['requiredDuringSchedulingIgnoredDuringExecution'] as AffinityTerm[];
  assert.equal(required[0]!.topologyKey, 'kubernetes.io/hostname');
  assert.equal(find<Workload>(hard, 'StatefulSet').spec.template.spec.affinity, undefined);

  const five = (await render({ set: ['etcd.replicaCount=5'] })).manifests;
  assert.equal(find<Budget>(five, 'PodDisruptionBudget', 'kapi-etcd').spec.minAvailable, 3);
  const kapiArgs = find<Workload>(five, 'Deployment').spec.template.spec.containers[0]!.args!;
  assert.equal(kapiArgs.find((a) => a.startsWith('--etcd-servers='))!.split(',').length, 5);
  const etcdArgs = find<Workload>(five, 'StatefulSet').spec.template.spec.containers[0]!.args!;
  assert.equal(etcdArgs.find((a) => a.startsWith('--initial-cluster='))!.split(',').length, 5);

  const own = (await render({ set: ['apiServer.tls.existingSecret=my-tls', 'etcd.tls.existingSecret=my-etcd-tls', 'etcd.persistence.enabled=false'] })).manifests;
  assert.deepEqual(own.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name), ['kapi-auth']);
  const ownPod = find<Workload>(own, 'Deployment').spec.template;
  assert.equal(ownPod.spec.volumes!.find((v) => v.name === 'certs')?.secret?.secretName, 'my-tls');
  assert.equal(ownPod.spec.volumes!.find((v) => v.name === 'etcd-tls')?.secret?.secretName, 'my-etcd-tls');
  // The chart still makes the authentication Secret, so the checksum covers it.
  assert.match(ownPod.metadata.annotations?.['checksum/tls'] ?? '', /^[0-9a-f]{64}$/);
  const ephemeral = find<Workload>(own, 'StatefulSet');
  assert.equal(ephemeral.spec.volumeClaimTemplates, undefined);
  assert.deepEqual(ephemeral.spec.template.spec.volumes?.[0], { name: 'data', emptyDir: {} });
  assert.equal(ephemeral.spec.template.spec.volumes?.[1]?.secret?.secretName, 'my-etcd-tls');

  const bad = await renderChart(renderer, { set: ['apiServer.podAntiAffinity=sometimes'] });
  assert.notEqual(bad.code, 0);
  // values.schema.json refuses it before the template's own check would.
  assert.match(bad.stderr, /at '\/apiServer\/podAntiAffinity': value must be one of '', 'soft', 'hard'/);
});

void test('etcd certificates: one CA signs the members\' certificate (server and peer, every member\'s name) and kapi\'s client certificate', { skip }, () => {
  const secret = find<Manifest & { data: Record<string, string> }>(objects, 'Secret', 'kapi-etcd-tls');
  assert.deepEqual(Object.keys(secret.data).sort(), ['ca.crt', 'client.crt', 'client.key', 'member.crt', 'member.key']);
  const pem = (key: string) => new X509Certificate(Buffer.from(secret.data[key]!, 'base64'));
  const ca = pem('ca.crt');
  const member = pem('member.crt');
  const client = pem('client.crt');
  assert.ok(ca.ca);
  for (const cert of [member, client]) assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey));
  for (const i of [0, 1, 2]) assert.ok(member.checkHost(`kapi-etcd-${i}.kapi-etcd-headless.${namespace}.svc.cluster.local`), `member ${i}`);
  assert.ok(member.checkIP('127.0.0.1'));
  assert.match(member.keyUsage?.join(',') ?? '', /1\.3\.6\.1\.5\.5\.7\.3\.1/, 'serverAuth');
  assert.match(member.keyUsage?.join(',') ?? '', /1\.3\.6\.1\.5\.5\.7\.3\.2/, 'clientAuth (peers dial each other)');
  assert.match(client.subject, /CN=kapi-apiserver/);
  assert.match(client.keyUsage?.join(',') ?? '', /1\.3\.6\.1\.5\.5\.7\.3\.2/);
  // Another CA: the API's serving CA is not etcd's.
  const api = find<Manifest & { data: Record<string, string> }>(objects, 'Secret', 'kapi-tls');
  assert.notEqual(api.data['ca.crt'], secret.data['ca.crt']);
});

void test('NetworkPolicy: only kapi reaches etcd\'s client port, only members its peer port; health and metrics stay open', { skip }, () => {
  const policy = find<Manifest & { spec: { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress: { from?: { podSelector: { matchLabels: Record<string, string> } }[]; ports: { port: number }[] }[] } }>(objects, 'NetworkPolicy', 'kapi-etcd');
  const etcdPods = find<Workload>(objects, 'StatefulSet').spec.template.metadata.labels;
  const kapiPods = find<Workload>(objects, 'Deployment').spec.template.metadata.labels;
  assert.ok(subset(policy.spec.podSelector.matchLabels, etcdPods) && !subset(policy.spec.podSelector.matchLabels, kapiPods));
  assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
  const allowed = (labels: Record<string, string> | undefined, port: number) =>
    policy.spec.ingress.some((rule) => rule.ports.some((p) => p.port === port) && (rule.from === undefined || rule.from.some((f) => subset(f.podSelector.matchLabels, labels))));
  assert.ok(allowed(kapiPods, 2379));
  assert.ok(!allowed(kapiPods, 2380));
  assert.ok(allowed(etcdPods, 2380) && allowed(etcdPods, 2379));
  assert.ok(!allowed({ app: 'stranger' }, 2379) && !allowed({ app: 'stranger' }, 2380));
  assert.ok(allowed({ app: 'stranger' }, 2381));
});

void test('certificates are made once: rendering an upgrade over the stored Secrets changes neither them nor the pods\' checksum', { skip }, async () => {
  const secrets = objects.filter((o) => o.kind === 'Secret');
  const dir = mkdtempSync(join(tmpdir(), 'kapi-helm-'));
  try {
    const file = join(dir, 'existing.yaml');
    writeFileSync(file, secrets.map((o) => stringifyYaml(o)).join('---\n'));
    const upgraded = (await render({ existing: file, upgrade: true })).manifests;
    for (const secret of secrets) assert.deepEqual(find<Manifest & { data: unknown }>(upgraded, 'Secret', secret.metadata.name).data, (secret as Manifest & { data: unknown }).data, secret.metadata.name);
    const checksum = (list: Manifest[]) => find<Workload>(list, 'Deployment').spec.template.metadata.annotations?.['checksum/tls'];
    assert.equal(checksum(upgraded), checksum(objects));
    // A release from before the service account key gets one on upgrade; the rest is kept.
    const authData = (list: Manifest[]) => find<Manifest & { data: Record<string, string> }>(list, 'Secret', 'kapi-auth').data;
    const { 'sa.key': _key, ...older } = authData(objects);
    writeFileSync(file, secrets.map((o) => stringifyYaml(o.metadata.name === 'kapi-auth' ? { ...o, data: older } : o)).join('---\n'));
    const withKey = authData((await render({ existing: file, upgrade: true })).manifests);
    assert.deepEqual({ ...withKey, 'sa.key': undefined }, { ...older, 'sa.key': undefined });
    assert.match(Buffer.from(withKey['sa.key']!, 'base64').toString(), /^-----BEGIN RSA PRIVATE KEY-----/);
    // Without the stored Secrets (a fresh install) the chart makes a new CA, and the checksum follows it.
    const fresh = (await render()).manifests;
    assert.notEqual(checksum(fresh), checksum(objects));
    assert.notDeepEqual(find<Manifest & { data: unknown }>(fresh, 'Secret', 'kapi-tls').data, find<Manifest & { data: unknown }>(objects, 'Secret', 'kapi-tls').data);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('values.schema.json: integer replica counts, an odd etcd; no budget over a single replica; etcd.tls.enabled=false is plain HTTP', { skip }, async () => {
  for (const [set, message] of [
    ['apiServer.replicaCount=three', /replicaCount/],
    ['apiServer.replicaCount=1.5', /replicaCount/],
    ['etcd.replicaCount=4', /replicaCount/],
    ['etcd.replicaCount=0', /replicaCount/],
  ] as const) {
    const bad = await renderChart(renderer, { set: [set] });
    assert.notEqual(bad.code, 0, set);
    assert.match(bad.stderr, /values don't meet the specifications of the schema/, set);
    assert.match(bad.stderr, message, set);
  }
  const single = (await render({ set: ['apiServer.replicaCount=1', 'etcd.replicaCount=1'] })).manifests;
  assert.equal(single.filter((o) => o.kind === 'PodDisruptionBudget').length, 0, 'a budget over one pod would block every drain');
  assert.equal(find<Workload>(single, 'StatefulSet').spec.replicas, 1);

  const plain = (await render({ set: ['etcd.tls.enabled=false', 'etcd.networkPolicy.enabled=false'] })).manifests;
  assert.deepEqual(plain.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name), ['kapi-tls', 'kapi-auth']);
  assert.equal(plain.filter((o) => o.kind === 'NetworkPolicy').length, 0);
  const plainArgs = find<Workload>(plain, 'Deployment').spec.template.spec.containers[0]!.args!;
  assert.match(plainArgs.find((a) => a.startsWith('--etcd-servers='))!, /^--etcd-servers=http:\/\//);
  assert.equal(plainArgs.some((a) => a.startsWith('--etcd-cafile')), false);
});

// ---- server-side validation in a real kapi ----

let etcd: TestEtcd | undefined;
let server: KapiServer | undefined;

after(async () => {
  await server?.stop();
  await etcd?.stop();
});

/** The plural resource kapi serves for `apiVersion`/`kind`, from its discovery documents; undefined when not served. */
async function servedResource(baseURL: string, apiVersion: string, kind: string): Promise<string | undefined> {
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const res = await httpRequestJson('GET', `${baseURL}${path}`);
  if (res.status !== 200) return undefined;
  const list = res.json as { resources: { name: string; kind: string; namespaced: boolean }[] };
  return list.resources.find((r) => r.kind === kind && !r.name.includes('/'))?.name;
}

void test('server-side validation: kapi accepts every rendered object of a kind it serves with dryRun=All and persists none', { skip }, async (t) => {
  etcd = await startEtcd();
  server = await startKapiServer({ etcdServers: etcd.endpoints });
  const ns = await httpRequestJson('POST', `${server.url}/api/v1/namespaces`, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } });
  assert.equal(ns.status, 201, ns.body);

  const validated: string[] = [];
  const waiting = new Set<string>();
  for (const o of objects) {
    const resource = await servedResource(server.url, o.apiVersion, o.kind);
    const label = `${o.apiVersion}/${o.kind}`;
    if (resource === undefined) {
      waiting.add(label);
      continue;
    }
    const prefix = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
    const collection = `${server.url}${prefix}/namespaces/${namespace}/${resource}`;
    const res = await httpRequestJson('POST', `${collection}?dryRun=All&fieldValidation=Strict`, { body: o });
    assert.equal(res.status, 201, `${label} ${o.metadata.name} rejected: ${res.body}`);
    assert.equal((res.json as Manifest).metadata.name, o.metadata.name);
    const stored = await httpRequestJson('GET', `${collection}/${o.metadata.name}`);
    assert.equal(stored.status, 404, `${label} ${o.metadata.name} was persisted by a dry run`);
    validated.push(`${label} ${o.metadata.name}`);
  }
  assert.ok(validated.some((v) => v.startsWith('v1/Secret')) && validated.filter((v) => v.startsWith('v1/ServiceAccount')).length === 2, validated.join(', '));
  t.diagnostic(`validated by kapi (dryRun=All, fieldValidation=Strict): ${validated.join(', ')}`);
  t.diagnostic(`server-side validation waits for kapi to serve: ${[...waiting].sort().join(', ')} (checked structurally above)`);
});

void test('server-side validation is real: kapi\'s dry run rejects a broken rendered Secret with 422', { skip }, async () => {
  assert.ok(server, 'the previous test started kapi');
  const secret = structuredClone(find<Manifest & { data: Record<string, string> }>(objects, 'Secret', 'kapi-tls'));
  secret.data['not a valid key!'] = 'eA==';
  const res = await httpRequestJson('POST', `${server.url}/api/v1/namespaces/${namespace}/secrets?dryRun=All`, { body: secret });
  assert.equal(res.status, 422, res.body);
  assert.match((res.json as { message: string }).message, /not a valid key!/);
  const unknownField = await httpRequestJson('POST', `${server.url}/api/v1/namespaces/${namespace}/serviceaccounts?dryRun=All&fieldValidation=Strict`, {
    body: { ...find(objects, 'ServiceAccount', 'kapi'), bogusField: true },
  });
  assert.equal(unknownField.status, 400, unknownField.body);
  assert.match(unknownField.body, /unknown field \\?"bogusField\\?"/);
});
