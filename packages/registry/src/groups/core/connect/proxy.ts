/**
 * pods/proxy and services/proxy as kube resolves them when nothing answers: the object
 * (404), its address (pods: the first pod IP; services: see serviceProxySubresource),
 * kube's refusal of local addresses (400 `address not allowed`), then one bounded dial
 * (503 `error trying to reach service`).
 */
import { StatusError, isNotFound, notFound } from '@kapi/machinery';
import type { RestSubresource } from '../../../rest.js';
import type { SubresourceStore } from '../../../subresource-store.js';
import { reachProxied } from './dial.js';
import { PROXY_VERBS } from './kubelet.js';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

/** `name` or `name:port` (kube's proxy names: `[scheme:]name[:port]`). */
function splitName(id: string): { name: string; port: string } {
  const parts = id.split(':');
  if (parts.length === 3) return { name: parts[1]!, port: parts[2]! };
  if (parts.length === 2) return { name: parts[0]!, port: parts[1]! };
  return { name: id, port: '' };
}

const reach = (host: string, port: number): Promise<never> => reachProxied(host, port, 'proxied requests');

export function podProxySubresource(store: SubresourceStore): RestSubresource {
  return {
    name: 'proxy',
    kind: { group: '', version: 'v1', kind: 'PodProxyOptions' },
    connecter: {
      verbs: PROXY_VERBS,
      subpaths: true,
      async connect(req, id) {
        const { name, port } = splitName(id);
        const pod = await store.get(req, name);
        const ips = rec(pod['status'])['podIPs'];
        const ip = Array.isArray(ips) ? String(rec(ips[0])['ip'] ?? '') : '';
        return reach(ip, port === '' ? 80 : Number(port));
      },
    },
  };
}

function serviceUnavailable(message: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message });
}

/**
 * services/proxy as kube's service ResourceLocation resolves it: a port number names the
 * service port (the service must exist); then the Endpoints of the service (kube reports a
 * missing one as a missing service), a subset with addresses and the port's name, and an
 * address whose target pod has that IP; else 503 `no endpoints available`.
 */
export function serviceProxySubresource(store: SubresourceStore): RestSubresource {
  return {
    name: 'proxy',
    kind: { group: '', version: 'v1', kind: 'ServiceProxyOptions' },
    connecter: {
      verbs: PROXY_VERBS,
      subpaths: true,
      async connect(req, id) {
        const { name, port } = splitName(id);
        let portName = port;
        if (/^\d+$/.test(port)) {
          const service = await store.get(req, name);
          const ports = Array.isArray(rec(service['spec'])['ports']) ? (rec(service['spec'])['ports'] as unknown[]).map(rec) : [];
          const found = ports.find((p) => String(p['port']) === port);
          if (found === undefined) throw serviceUnavailable(`no service port ${port} found for service ${JSON.stringify(name)}`);
          portName = typeof found['name'] === 'string' ? found['name'] : '';
        }
        const endpointsStore = store.lookup('', 'endpoints')?.getter;
        if (endpointsStore === undefined) throw notFound(store.resource, name);
        let endpoints;
        try {
          endpoints = await endpointsStore.get(req, name, {});
        } catch (err) {
          if (isNotFound(err)) throw notFound(store.resource, name);
          throw err;
        }
        const subsets = Array.isArray(endpoints['subsets']) ? endpoints['subsets'].map(rec) : [];
        if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
        const pods = store.lookup('', 'pods')?.getter;
        for (const subset of subsets) {
          const addresses = Array.isArray(subset['addresses']) ? subset['addresses'].map(rec) : [];
          const ports = Array.isArray(subset['ports']) ? subset['ports'].map(rec) : [];
          const chosen = ports.find((p) => (typeof p['name'] === 'string' ? p['name'] : '') === portName);
          if (addresses.length === 0 || chosen === undefined) continue;
          for (const address of addresses) {
            const target = rec(address['targetRef']);
            if (pods === undefined || typeof target['name'] !== 'string' || target['namespace'] !== req.namespace) continue;
            try {
              const pod = await pods.get(req, target['name'], {});
              const ips = rec(pod['status'])['podIPs'];
              if (Array.isArray(ips) && ips.some((ip) => rec(ip)['ip'] === address['ip'])) return await reach(String(address['ip']), Number(chosen['port']));
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
          }
        }
        throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
      },
    },
  };
}
