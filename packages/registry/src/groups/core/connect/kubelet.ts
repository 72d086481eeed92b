/**
 * pods/log, exec, attach, portforward and nodes/proxy as kube resolves them when no kubelet
 * answers: the pod (404), its container (400), its node (a pod on no node: an empty log, or
 * 400 `pod <p> does not have a host assigned`), the Node object (kube's 404 names it a pod),
 * the node's address by kube's preferred types (500 `no preferred addresses found`), then
 * exec/attach/portforward need an upgrade (400) and a dial of the kubelet's port answers
 * Go's dial error (500).
 */
import type { KubeObject } from '@kapi/machinery';
import { badRequest, isNotFound, notFound } from '@kapi/machinery';
import type { RequestContext } from '../../../definition.js';
import type { ConnectRequest, ConnectResponse, RestSubresource } from '../../../rest.js';
import type { KubeletAddressing, SubresourceStore } from '../../../subresource-store.js';
import { dial, plainError, reachProxied, relayUnsupported } from './dial.js';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((c) => String(rec(c)['name'] ?? '')) : [];
}


/** The container a request means: `container`, else the only one; 400 otherwise (kube's texts). */
function containerFor(pod: KubeObject, requested: string): string {
  const spec = rec(pod['spec']);
  const name = pod.metadata.name ?? '';
  // kube's VisitContainers order: init, regular, ephemeral.
  const all = [...names(spec['initContainers']), ...names(spec['containers']), ...names(spec['ephemeralContainers'])];
  if (requested !== '') {
    if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  const containers = names(spec['containers']);
  if (containers.length === 1) return containers[0]!;
  if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
}

/** The node's kubelet address and port, or kube's 500 when it has no address of a preferred type. */
function kubeletAddress(node: KubeObject, kubelet: KubeletAddressing): { host: string; port: number } {
  const status = rec(node['status']);
  const addresses = Array.isArray(status['addresses']) ? status['addresses'].map(rec) : [];
  for (const type of kubelet.preferredAddressTypes) {
    const found = addresses.find((a) => a['type'] === type && typeof a['address'] === 'string' && a['address'] !== '');
    if (found !== undefined) {
      const port = rec(rec(status['daemonEndpoints'])['kubeletEndpoint'])['Port'];
      return { host: String(found['address']), port: typeof port === 'number' && port > 0 ? port : kubelet.port };
    }
  }
  const known = addresses.map((a) => `{${String(a['type'] ?? '')} ${String(a['address'] ?? '')}}`).join(' ');
  throw plainError(`no preferred addresses found; known addresses: [${known}]`);
}

/** The Node a pod is on; kube reports a missing one as a missing pod of the node's name. */
async function nodeOf(store: SubresourceStore, nodeName: string): Promise<KubeObject> {
  const nodes = store.lookup('', 'nodes')?.getter;
  try {
    if (nodes === undefined) throw notFound({ group: '', resource: 'nodes' }, nodeName);
    return await nodes.get({ namespace: '' }, nodeName, {});
  } catch (err) {
    if (isNotFound(err)) throw notFound({ group: '', resource: 'pods' }, nodeName);
    throw err;
  }
}

type PodStream = 'log' | 'exec' | 'attach' | 'portforward';

/** kubelet paths as kube builds them (for the dial error's URL). */
function kubeletUrl(kind: PodStream, host: string, port: number, pod: KubeObject, container: string, query: URLSearchParams): string {
  const base = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const where = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  if (kind === 'log') return `${base}/containerLogs/${where}/${container}`;
  if (kind === 'portforward') return `${base}/portForward/${where}`;
  // kube's streamParams, encoded with sorted keys as Go's url.Values.Encode does.
  const flag = (name: string) => ['1', 'true'].includes(query.get(name) ?? '');
  const params: [string, string][] = kind === 'exec' ? query.getAll('command').map((c) => ['command', c]) : [];
  if (flag('stderr')) params.push(['error', '1']);
  if (flag('stdin')) params.push(['input', '1']);
  if (flag('stdout')) params.push(['output', '1']);
  if (flag('tty')) params.push(['tty', '1']);
  const suffix = params.length === 0 ? '' : `?${new URLSearchParams(params).toString()}`;
  return `${base}/${kind}/${where}/${container}${suffix}`;
}

async function podStream(store: SubresourceStore, kind: PodStream, req: RequestContext, name: string, request: ConnectRequest): Promise<ConnectResponse> {
  const pod = await store.get(req, name);
  const container = kind === 'portforward' ? '' : containerFor(pod, request.query.get('container') ?? '');
  const nodeName = rec(pod['spec'])['nodeName'];
  if (typeof nodeName !== 'string' || nodeName === '') {
    // kube answers an empty log for a pod on no node.
    if (kind === 'log') return { contentType: 'text/plain', body: '' };
    throw badRequest(`pod ${name} does not have a host assigned`);
  }
  const { host, port } = kubeletAddress(await nodeOf(store, nodeName), store.kubelet);
  if (kind !== 'log' && request.upgrade === '') throw badRequest('Upgrade request required');
  const failed = await dial(host, port);
  if (failed === undefined) throw relayUnsupported(`${kind} streams from kubelets`);
  const url = kubeletUrl(kind, host, port, pod, container, request.query);
  if (kind === 'log') throw plainError(`Get ${JSON.stringify(url)}: ${failed}`);
  // kube translates a v5 WebSocket exec/attach itself: it accepts the upgrade, then reports
  // the kubelet's failure on the error channel. Other upgrades are proxied, and fail to dial.
  if (request.upgrade === 'websocket' && kind !== 'portforward' && request.protocols.includes(WEBSOCKET_V5)) {
    const cause = `error sending request: Post ${JSON.stringify(url)}: ${failed}`;
    const flag = (name: string) => ['1', 'true'].includes(request.query.get(name) ?? '');
    return {
      websocket: {
        protocol: WEBSOCKET_V5,
        openChannels: flag('stdout') ? [1] : [],
        errorChannel: 3,
        status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${cause}`, reason: 'InternalError', details: { causes: [{ message: cause }] }, code: 500 },
      },
    };
  }
  throw plainError(`error dialing backend: ${failed}`);
}

/** The WebSocket stream protocol kube-apiserver translates for exec and attach. */
const WEBSOCKET_V5 = 'v5.channel.k8s.io';

/** pods/log (GET), exec, attach, portforward (GET and POST). */
export function podStreamSubresource(kind: PodStream): (store: SubresourceStore) => RestSubresource {
  return (store) => ({
    name: kind,
    kind: kind === 'log' ? { group: '', version: 'v1', kind: 'Pod' } : { group: '', version: 'v1', kind: kind === 'exec' ? 'PodExecOptions' : kind === 'attach' ? 'PodAttachOptions' : 'PodPortForwardOptions' },
    connecter: {
      verbs: kind === 'log' ? ['get'] : ['create', 'get'],
      subpaths: false,
      connect: (req, name, request) => podStream(store, kind, req, name, request),
    },
  });
}

/** The verbs the proxies answer (kube registers every method but HEAD and OPTIONS it proxies). */
export const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'] as const;

/** nodes/proxy: the Node (404), its address (500), then kube's refusal of local addresses or a dial. */
export function nodeProxySubresource(store: SubresourceStore): RestSubresource {
  return {
    name: 'proxy',
    kind: { group: '', version: 'v1', kind: 'NodeProxyOptions' },
    connecter: {
      verbs: PROXY_VERBS,
      subpaths: true,
      async connect(req, id) {
        // `name` or `[scheme:]name[:port]`, as kube's node proxy accepts.
        const parts = id.split(':');
        const name = parts.length === 3 ? parts[1]! : parts[0]!;
        const node = await store.get(req, name);
        const { host, port } = kubeletAddress(node, store.kubelet);
        return reachProxied(host, port, 'proxied requests to kubelets');
      },
    },
  };
}
