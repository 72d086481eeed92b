/**
 * pods/proxy and services/proxy as kube resolves them when nothing answers: the object
 * (404), its address (pods: the first pod IP; services: a ready endpoint, else 503
 * `no endpoints available for service`), kube's refusal of local addresses (400
 * `address not allowed`), then one bounded dial (503 `error trying to reach service`).
 */
import { StatusError, badRequest, isNotFound } from '@kapi/machinery';
import type { RestSubresource } from '../../../rest.js';
import type { SubresourceStore } from '../../../subresource-store.js';
import { dial, relayUnsupported } from './dial.js';
import { PROXY_VERBS, isDisallowedAddress } from './kubelet.js';

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

async function reach(host: string, port: number): Promise<never> {
  if (isDisallowedAddress(host)) throw badRequest('address not allowed');
  const failed = await dial(host, port);
  if (failed !== undefined) throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: `error trying to reach service: ${failed}` });
  throw relayUnsupported('proxied requests');
}

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

function serviceUnavailable(name: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message: `no endpoints available for service ${JSON.stringify(name)}` });
}

export function serviceProxySubresource(store: SubresourceStore): RestSubresource {
  return {
    name: 'proxy',
    kind: { group: '', version: 'v1', kind: 'ServiceProxyOptions' },
    connecter: {
      verbs: PROXY_VERBS,
      subpaths: true,
      async connect(req, id) {
        const { name, port } = splitName(id);
        await store.get(req, name);
        const endpoints = store.lookup('', 'endpoints')?.getter;
        let subsets: Rec[] = [];
        try {
          const found = endpoints === undefined ? undefined : await endpoints.get(req, name, {});
          subsets = Array.isArray(found?.['subsets']) ? found['subsets'].map(rec) : [];
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        for (const subset of subsets) {
          const addresses = Array.isArray(subset['addresses']) ? subset['addresses'].map(rec) : [];
          const ports = Array.isArray(subset['ports']) ? subset['ports'].map(rec) : [];
          const chosen = ports.find((p) => port === '' || p['name'] === port || String(p['port']) === port);
          if (addresses.length > 0 && chosen !== undefined) return reach(String(addresses[0]!['ip'] ?? ''), Number(chosen['port']));
        }
        throw serviceUnavailable(name);
      },
    },
  };
}
