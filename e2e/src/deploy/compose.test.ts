/**
 * deploy/docker-compose.yml and the Dockerfile, without a container engine: the compose file is
 * parsed and checked against deploy/topology.mjs (the commands `make cluster` runs) and for its
 * structure (services, health checks, dependencies, volumes, addresses); the Dockerfile is parsed
 * for its stages, user, entrypoint, ports and the files it copies; the health check script the
 * containers run is run against real local HTTP servers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { chartDir, deployDir, flagNames, loadCompose, loadTopology, repoRoot, type Command, type Topology } from './repo.js';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  volumes?: string[];
  ports?: { target: number; published: string }[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; interval: string; timeout: string; retries: number };
  restart?: string;
}
interface ComposeFile {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const composePath = join(deployDir, 'docker-compose.yml');
const compose = parseYaml(readFileSync(composePath, 'utf8')) as ComposeFile;
const topology: Topology = await loadTopology();

/** An address-free rendering of a flag value: URLs, host:port pairs, paths, IPs and ports become placeholders. */
function shape(value: string): string {
  return value
    .replace(/https?:\/\/[^,/\s]+/g, 'URL')
    .replace(/^\/\S*$/, 'PATH')
    .replace(/[\w.-]+:\d+/g, 'HOSTPORT')
    .replace(/^\d+\.\d+\.\d+\.\d+$/, 'IP')
    .replace(/^\d+$/, 'PORT');
}

function flag(args: readonly string[], name: string): string {
  const arg = args.find((a) => a.startsWith(`${name}=`));
  assert.ok(arg, `${name} missing from ${args.join(' ')}`);
  return arg.slice(name.length + 1);
}

void test('the committed docker-compose.yml is what deploy/gen-compose.mjs generates from deploy/topology.mjs', async () => {
  const { composeDocument } = await loadCompose();
  assert.deepEqual(compose, composeDocument(), 'deploy/docker-compose.yml is stale: run `node deploy/gen-compose.mjs`');
});

void test('compose commands are the commands `make cluster` runs, differing only in addresses and paths', () => {
  const local = topology.clusterCommands(topology.localLayout({ dir: '/tmp/kapi-cluster', basePort: 16443 }));
  const inCompose = topology.clusterCommands(topology.composeLayout());
  assert.deepEqual(local.map((c) => c.name), inCompose.map((c) => c.name));
  for (const [i, localCommand] of local.entries()) {
    const composeCommand = inCompose[i] as Command;
    const service = compose.services[localCommand.name];
    assert.ok(service, `no compose service ${localCommand.name}`);
    const composeArgs: string[] = service.command ?? [];
    assert.deepEqual(composeArgs, composeCommand.args, `${localCommand.name}: compose command`);
    assert.deepEqual(flagNames(composeArgs), flagNames(localCommand.args), `${localCommand.name}: the same flags in the same order`);
    const kind = localCommand.program === 'etcd' ? 'etcd' : localCommand.program === 'kapi-lb' ? 'lb' : 'kapi';
    for (const [j, [name, localValue]] of topology.flagPairs(localCommand.args).entries()) {
      const composeValue: string = topology.flagPairs(composeArgs)[j]![1];
      if (topology.addressFlags[kind].includes(name)) {
        assert.equal(shape(composeValue), shape(localValue), `${localCommand.name} ${name}: ${composeValue} vs ${localValue}`);
      } else {
        assert.equal(composeValue, localValue, `${localCommand.name} ${name} differs from make cluster`);
      }
    }
  }
});

void test('compose services: three etcd members, three replicas and the balancer, each with a health check and restart policy', async () => {
  const { etcdImage, kapiImage } = await loadCompose();
  assert.equal(compose.name, 'kapi');
  assert.deepEqual(Object.keys(compose.services).sort(), [...topology.etcdMembers, ...topology.kapiReplicas, topology.balancer, 'etcd-certs'].sort());
  // The one-shot service that makes the CAs and certificates in its own `ca` volume (kept across
  // restarts) and hands etcd and kapi each their files in separate volumes.
  const certs = compose.services['etcd-certs']!;
  assert.equal(certs.image, kapiImage);
  assert.deepEqual(certs.entrypoint, ['node', '/opt/kapi/deploy/etcd-certs.mjs']);
  assert.deepEqual(certs.command, ['/var/lib/kapi/ca', 'localhost', '127.0.0.1', ...topology.etcdMembers, '--etcd-out=/var/lib/kapi/etcd-certs', '--kapi-out=/var/lib/kapi/pki']);
  assert.deepEqual(certs.volumes, ['ca:/var/lib/kapi/ca', 'etcd-certs:/var/lib/kapi/etcd-certs', 'kapi-pki:/var/lib/kapi/pki']);
  // Only the one-shot mounts the CA keys' volume.
  for (const [name, service] of Object.entries(compose.services)) {
    if (name !== 'etcd-certs') assert.ok(!(service.volumes ?? []).some((v) => v.startsWith('ca:')), `${name} mounts the CA volume`);
  }
  assert.equal(certs.restart, 'no');
  for (const [name, service] of Object.entries(compose.services).filter(([n]) => n !== 'etcd-certs')) {
    assert.ok(service.healthcheck, `${name} has no healthcheck`);
    assert.equal(service.healthcheck.test[0], 'CMD', `${name}: exec-form health check (the images have no shell to rely on)`);
    assert.match(service.healthcheck.interval, /^\d+s$/);
    assert.ok(service.healthcheck.retries > 0);
    assert.equal(service.restart, 'unless-stopped');
    for (const volume of service.volumes ?? []) {
      const source = volume.split(':')[0]!;
      assert.ok(source in compose.volumes, `${name} mounts undeclared volume ${source}`);
    }
  }
  for (const m of topology.etcdMembers) {
    const s = compose.services[m]!;
    assert.match(s.image ?? '', /^quay\.io\/coreos\/etcd:v3\.5\.\d+$/);
    assert.equal(s.image, etcdImage);
    assert.deepEqual(s.entrypoint, ['/usr/local/bin/etcd']);
    const tls = ['--cacert=/var/lib/kapi/etcd-certs/ca.crt', '--cert=/var/lib/kapi/etcd-certs/member.crt', '--key=/var/lib/kapi/etcd-certs/member.key'];
    assert.deepEqual(s.healthcheck!.test.slice(1), ['/usr/local/bin/etcdctl', '--endpoints=https://127.0.0.1:2379', ...tls, 'endpoint', 'health']);
    // Each member advertises itself by its service name and lists every member by name, over mutual TLS.
    assert.equal(flag(s.command!, '--advertise-client-urls'), `https://${m}:2379`);
    assert.equal(flag(s.command!, '--initial-advertise-peer-urls'), `https://${m}:2380`);
    assert.equal(flag(s.command!, '--initial-cluster'), topology.etcdMembers.map((x) => `${x}=https://${x}:2380`).join(','));
    assert.equal(flag(s.command!, '--client-cert-auth'), 'true');
    assert.equal(flag(s.command!, '--peer-client-cert-auth'), 'true');
    assert.equal(flag(s.command!, '--trusted-ca-file'), '/var/lib/kapi/etcd-certs/ca.crt');
    assert.ok(s.volumes!.includes('etcd-certs:/var/lib/kapi/etcd-certs:ro'));
    assert.ok(!s.volumes!.some((v) => v.startsWith('kapi-pki:')), `${m} sees kapi's keys`);
    assert.equal(flag(s.command!, '--experimental-watch-progress-notify-interval'), '5s');
    const dataDir = flag(s.command!, '--data-dir');
    assert.ok(s.volumes!.some((v) => dataDir.startsWith(`${v.split(':')[1]}/`)), `${m}: --data-dir ${dataDir} is on a volume`);
  }
  for (const r of topology.kapiReplicas) {
    const s = compose.services[r]!;
    assert.equal(s.image, kapiImage);
    assert.deepEqual(s.build, { context: '..', dockerfile: 'Dockerfile' });
    assert.ok(existsSync(join(deployDir, s.build!.context, s.build!.dockerfile)), 'the build context holds the Dockerfile');
    assert.equal(s.entrypoint, undefined, 'replicas use the image entrypoint (kapi-apiserver)');
    assert.deepEqual(flag(s.command!, '--etcd-servers').split(','), topology.etcdMembers.map((m) => flag(compose.services[m]!.command!, '--advertise-client-urls')));
    const port = flag(s.command!, '--secure-port');
    assert.deepEqual(s.healthcheck!.test.slice(1), ['node', '/opt/kapi/deploy/healthcheck.mjs', `https://127.0.0.1:${port}${topology.readinessPath}`]);
    const certDir = flag(s.command!, '--cert-dir');
    assert.ok(s.volumes!.includes(`kapi-certs:${certDir}`), `${r}: --cert-dir is the shared kapi-certs volume`);
    assert.deepEqual([flag(s.command!, '--etcd-cafile'), flag(s.command!, '--etcd-certfile'), flag(s.command!, '--etcd-keyfile')], ['/var/lib/kapi/pki/ca.crt', '/var/lib/kapi/pki/client.crt', '/var/lib/kapi/pki/client.key']);
    assert.deepEqual([flag(s.command!, '--service-account-issuer'), flag(s.command!, '--service-account-key-file'), flag(s.command!, '--service-account-signing-key-file')], ['https://kubernetes.default.svc', '/var/lib/kapi/pki/sa.pub', '/var/lib/kapi/pki/sa.key']);
    assert.ok(s.volumes!.includes('kapi-pki:/var/lib/kapi/pki:ro'));
    assert.ok(!s.volumes!.some((v) => v.startsWith('etcd-certs:')), `${r} sees etcd's member key`);
  }
  const lb = compose.services[topology.balancer]!;
  assert.deepEqual(lb.entrypoint, ['node', '/opt/kapi/deploy/lb.mjs']);
  const backends = flag(lb.command!, '--backends').split(',');
  assert.deepEqual(backends, topology.kapiReplicas.map((r) => `${r}=${r}:${flag(compose.services[r]!.command!, '--secure-port')}`));
  assert.equal(flag(lb.command!, '--health-path'), '/readyz');
  const listenPort = Number(flag(lb.command!, '--listen').split(':')[1]);
  assert.deepEqual(lb.ports, [{ target: listenPort, published: '6443', protocol: 'tcp' }]);
});

void test('the certificates one-shot hands etcd only its files and kapi only its own, no CA key to either', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kapi-compose-pki-'));
  try {
    const run = (extra: string[]) => execFileSync(process.execPath, [join(deployDir, 'etcd-certs.mjs'), join(dir, 'ca'), 'localhost', 'etcd-1', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    // An etcd volume of the older layout, which held everything.
    mkdirSync(join(dir, 'etcd'));
    writeFileSync(join(dir, 'etcd', 'kapi-ca.key'), 'old');
    run([`--etcd-out=${join(dir, 'etcd')}`, `--kapi-out=${join(dir, 'kapi')}`]);
    assert.deepEqual(readdirSync(join(dir, 'etcd')).sort(), ['ca.crt', 'member.crt', 'member.key']);
    assert.deepEqual(readdirSync(join(dir, 'kapi')).sort(), ['admin-token', 'admin.crt', 'admin.key', 'ca.crt', 'client.crt', 'client.key', 'kapi-ca.crt', 'sa.key', 'sa.pub', 'tokens.csv']);
    assert.ok(['ca.key', 'kapi-ca.key', 'sa.key'].every((f) => existsSync(join(dir, 'ca', f))));
    assert.equal(statSync(join(dir, 'kapi', 'sa.key')).mode & 0o777, 0o600);
    // The service account pair matches, and a second run keeps every file.
    const before = readFileSync(join(dir, 'kapi', 'sa.key'), 'utf8');
    assert.equal(createPublicKey(createPrivateKey(before)).export({ type: 'spki', format: 'pem' }), readFileSync(join(dir, 'kapi', 'sa.pub'), 'utf8'));
    run([`--kapi-out=${join(dir, 'kapi')}`]);
    assert.equal(readFileSync(join(dir, 'kapi', 'sa.key'), 'utf8'), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('compose depends_on: replicas wait for healthy etcd members, the others for the replica that generates the certificate; no cycles', () => {
  const [first, ...rest] = topology.kapiReplicas;
  const etcdHealthy = Object.fromEntries(topology.etcdMembers.map((m) => [m, { condition: 'service_healthy' }]));
  assert.deepEqual(compose.services[first!]!.depends_on, etcdHealthy);
  for (const r of rest) assert.deepEqual(compose.services[r]!.depends_on, { ...etcdHealthy, [first!]: { condition: 'service_healthy' } });
  assert.deepEqual(Object.keys(compose.services[topology.balancer]!.depends_on ?? {}).sort(), [...topology.kapiReplicas].sort());
  for (const m of topology.etcdMembers) assert.deepEqual(compose.services[m]!.depends_on, { 'etcd-certs': { condition: 'service_completed_successfully' } });
  assert.equal(compose.services['etcd-certs']!.depends_on, undefined);

  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string): void => {
    assert.ok(name in compose.services, `depends_on names unknown service ${name}`);
    if (done.has(name)) return;
    assert.ok(!visiting.has(name), `dependency cycle through ${name}`);
    visiting.add(name);
    for (const dep of Object.keys(compose.services[name]!.depends_on ?? {})) visit(dep);
    visiting.delete(name);
    done.add(name);
  };
  for (const name of Object.keys(compose.services)) visit(name);
});

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function dockerfileInstructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const sp = l.indexOf(' ');
      return { op: l.slice(0, sp).toUpperCase(), args: l.slice(sp + 1).trim() };
    });
}

void test('Dockerfile: multi-stage build (npm ci + tsc -b), production-only runtime on node:20-slim, non-root, kapi-apiserver entrypoint, port 6443', () => {
  const instructions = dockerfileInstructions(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
  const nodeImage = /^NODE_IMAGE=(\S+)$/.exec(instructions.find((i) => i.op === 'ARG')!.args)?.[1];
  assert.equal(nodeImage, 'node:20-slim');
  const stages: { name: string; from: string; body: { op: string; args: string }[] }[] = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      assert.equal(as?.toUpperCase(), 'AS');
      stages.push({ name: name!, from: image!.replace('${NODE_IMAGE}', nodeImage!), body: [] });
    } else stages.at(-1)?.body.push(ins);
  }
  assert.deepEqual(stages.map((s) => s.name), ['build', 'deps', 'runtime']);
  const stage = (name: string) => stages.find((s) => s.name === name)!;
  const runs = (name: string) => stage(name).body.filter((i) => i.op === 'RUN').map((i) => i.args).join('\n');
  assert.match(runs('build'), /npm ci\b/);
  assert.match(runs('build'), /tsc -b packages\/apiserver/);
  assert.match(runs('deps'), /npm ci --omit=dev .*--workspace=@kapi\/apiserver/);
  assert.doesNotMatch(runs('runtime'), /npm (ci|install)/);

  const runtime = stage('runtime');
  assert.equal(runtime.from, 'node:20-slim');
  const last = (op: string) => runtime.body.filter((i) => i.op === op).at(-1)?.args;
  assert.ok(last('USER') && !['root', '0'].includes(last('USER')!), 'runs as a non-root user');
  assert.deepEqual(JSON.parse(last('ENTRYPOINT')!), ['kapi-apiserver']);
  assert.equal(last('EXPOSE'), '6443');
  assert.match(last('HEALTHCHECK') ?? '', /deploy\/healthcheck\.mjs", "https:\/\/127\.0\.0\.1:6443\/readyz"/);
  // The entrypoint links to the bin the apiserver package declares.
  const bin = (JSON.parse(readFileSync(join(repoRoot, 'packages/apiserver/package.json'), 'utf8')) as { bin: Record<string, string> }).bin['kapi-apiserver'];
  assert.match(runs('runtime'), new RegExp(`ln -s /opt/kapi/packages/apiserver/${bin!.replace('.', '\\.')} /usr/local/bin/kapi-apiserver`));

  // Every file copied from the build context exists; every --from names an earlier stage.
  const workspaces = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  for (const [index, s] of stages.entries()) {
    const copies = s.body.filter((i) => i.op === 'COPY');
    for (const copy of copies) {
      const parts = copy.args.split(/\s+/);
      const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length);
      const sources = parts.filter((p) => !p.startsWith('--')).slice(0, -1);
      if (from !== undefined) assert.ok(stages.slice(0, index).some((p) => p.name === from), `COPY --from=${from} in ${s.name}`);
      else for (const src of sources) assert.ok(existsSync(join(repoRoot, src)), `${s.name}: COPY ${src} is not in the repository`);
    }
    if (s.name !== 'runtime') {
      // npm ci needs every workspace's manifest, or it rejects the lock file.
      const manifests = copies.flatMap((c) => c.args.split(/\s+/).filter((p) => p.endsWith('/package.json')));
      assert.deepEqual(manifests.sort(), workspaces.map((w) => `${w}/package.json`).sort(), `${s.name} copies every workspace manifest`);
    }
  }
  // What compose runs from the image is in the image.
  const copied = runtime.body.filter((i) => i.op === 'COPY' && !i.args.includes('--from')).flatMap((i) => i.args.split(/\s+/).slice(0, -1));
  for (const file of ['deploy/lb.mjs', 'deploy/healthcheck.mjs']) assert.ok(copied.includes(file), `the image lacks ${file}`);
  assert.ok(existsSync(chartDir), 'the chart that deploys this image exists');
});

function runHealthcheck(url: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(deployDir, 'healthcheck.mjs'), url, '1000'], (error, _stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}

void test('deploy/healthcheck.mjs (the containers\' health check) exits 0 only for a 200', async () => {
  const server: Server = createServer((req, res) => {
    res.writeHead(req.url === '/readyz' ? 200 : 500);
    res.end(req.url === '/readyz' ? 'ok' : '[-]etcd failed: reason withheld\nreadyz check failed');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    assert.deepEqual(await runHealthcheck(`http://127.0.0.1:${port}/readyz`), { code: 0, stderr: '' });
    const failing = await runHealthcheck(`http://127.0.0.1:${port}/livez`);
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /500 \[-\]etcd failed/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  const refused = await runHealthcheck(`http://127.0.0.1:${port}/readyz`);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /ECONNREFUSED/);
});
