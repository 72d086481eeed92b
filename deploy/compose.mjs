// @ts-check
/**
 * deploy/docker-compose.yml as data, built from deploy/topology.mjs with the compose layout:
 * the same commands `make cluster` runs, addressed by service name. `gen-compose.mjs` writes
 * it; e2e/src/deploy/compose.test.ts checks the committed file against it.
 */
import { composeLayout, etcdCommand, etcdMembers, imagePaths, kapiCommand, kapiReplicas, lbCommand, readinessPath } from './topology.mjs';

/** The etcd image (3.5 serves /livez and /readyz and still takes --experimental-watch-progress-notify-interval). */
export const etcdImage = 'quay.io/coreos/etcd:v3.5.21';
/** The image the repository's Dockerfile builds; the balancer runs from it too. */
export const kapiImage = 'kapi-apiserver:dev';

export function composeDocument() {
  const layout = composeLayout();
  const build = { context: '..', dockerfile: 'Dockerfile' };
  const readyz = (/** @type {number} */ port) => ['CMD', 'node', `${imagePaths.root}/deploy/healthcheck.mjs`, `https://127.0.0.1:${port}${readinessPath}`];
  const healthyEtcd = Object.fromEntries(etcdMembers.map((m) => [m, { condition: 'service_healthy' }]));

  const etcdCerts = `etcd-certs:${imagePaths.etcdCertDir}`;
  const kapiPki = `kapi-pki:${imagePaths.kapiCertDir}`;
  /** @type {Record<string, Record<string, unknown>>} */
  const services = {};
  // One shot, before etcd: the etcd CA, the members' certificate (server and peer), kapi's
  // client certificate, client CA, admin credentials and service account keys
  // (deploy/etcd-certs.mjs), kept in the `ca` volume across restarts. The etcd members' volume
  // gets only their files and kapi's only its own: no container but this one sees a CA key.
  services['etcd-certs'] = {
    image: kapiImage,
    build,
    user: '0',
    entrypoint: ['node', `${imagePaths.root}/deploy/etcd-certs.mjs`],
    command: [imagePaths.caDir, 'localhost', '127.0.0.1', ...etcdMembers, `--etcd-out=${imagePaths.etcdCertDir}`, `--kapi-out=${imagePaths.kapiCertDir}`],
    volumes: [`ca:${imagePaths.caDir}`, etcdCerts, kapiPki],
    restart: 'no',
  };
  const certsMade = { 'etcd-certs': { condition: 'service_completed_successfully' } };
  const tlsFlags = [`--cacert=${imagePaths.etcdCertDir}/ca.crt`, `--cert=${imagePaths.etcdCertDir}/member.crt`, `--key=${imagePaths.etcdCertDir}/member.key`];
  for (const m of etcdMembers) {
    services[m] = {
      image: etcdImage,
      entrypoint: ['/usr/local/bin/etcd'],
      command: etcdCommand(m, layout).args,
      volumes: [`${m}-data:${imagePaths.etcdDataDir.replace(/\/data$/, '')}`, `${etcdCerts}:ro`],
      depends_on: certsMade,
      healthcheck: {
        test: ['CMD', '/usr/local/bin/etcdctl', '--endpoints=https://127.0.0.1:2379', ...tlsFlags, 'endpoint', 'health'],
        interval: '2s',
        timeout: '5s',
        retries: 30,
        start_period: '5s',
      },
      restart: 'unless-stopped',
    };
  }
  const [first] = kapiReplicas;
  for (const r of kapiReplicas) {
    services[r] = {
      image: kapiImage,
      build,
      command: kapiCommand(r, layout).args,
      volumes: [`kapi-certs:${imagePaths.certDir}`, `${kapiPki}:ro`],
      // The first replica generates the serving pair in the shared volume; the others reuse it.
      depends_on: r === first ? healthyEtcd : { ...healthyEtcd, [first]: { condition: 'service_healthy' } },
      healthcheck: { test: readyz(layout.kapi(r).securePort), interval: '2s', timeout: '3s', retries: 3, start_period: '20s' },
      restart: 'unless-stopped',
    };
  }
  const lb = lbCommand(layout);
  services[lb.name] = {
    image: kapiImage,
    build,
    entrypoint: ['node', `${imagePaths.root}/deploy/lb.mjs`],
    command: lb.args,
    ports: [{ target: 6443, published: '6443', protocol: 'tcp' }],
    depends_on: Object.fromEntries(kapiReplicas.map((r) => [r, { condition: 'service_started' }])),
    healthcheck: { test: readyz(6443), interval: '2s', timeout: '3s', retries: 3, start_period: '5s' },
    restart: 'unless-stopped',
  };
  return {
    name: 'kapi',
    services,
    volumes: Object.fromEntries([...etcdMembers.map((m) => `${m}-data`), 'kapi-certs', 'ca', 'etcd-certs', 'kapi-pki'].map((v) => [v, {}])),
  };
}
