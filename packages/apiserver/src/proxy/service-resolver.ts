/**
 * Service references → where to send traffic (kube's aggregator ServiceResolvers, which
 * kube-apiserver also hands to admission webhooks): by default the Service's ClusterIP and
 * port (kube's ClusterIPServiceResolver), with `--enable-aggregator-routing` one ready
 * address of its Endpoints (EndpointServiceResolver). Services and Endpoints are read from
 * in-memory copies (informers), never from storage during a request.
 *
 * Errors carry kube's Status reason and message (the lister's NotFound, ServiceUnavailable
 * for a missing port or no endpoints; a plain Error for an unsupported Service type), so a
 * caller can print `err.message` as kube prints the resolver's error.
 */
import { notFound, serviceUnavailable, type KubeObject } from '@kapi/machinery';

/** A Service and port an APIService or a webhook's clientConfig names. */
export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  /** The Service's port (spec.ports[].port); 443 when an object leaves it out. */
  readonly port: number;
}

/** Read access to one kind's objects by namespace and name (an informer's copy). */
export interface ObjectLookup {
  get(namespace: string, name: string): KubeObject | undefined;
}

/** Where to connect: an IP address (v6 without brackets) or a DNS name, and a port. */
export interface BackendAddress {
  readonly host: string;
  readonly port: number;
}

/** `https://host:port` + `pathAndQuery` (which must start with `/`). */
export function backendUrl(address: BackendAddress, pathAndQuery = '/'): string {
  return `https://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}${pathAndQuery}`;
}

export interface ServiceResolver {
  /**
   * The address to send a request for `ref` to. Throws a
   * StatusError (404 `service "x" not found`, 503 `no service port N found for service "x"`,
   * 503 `no endpoints available for service "x"`) or an Error (`unsupported service type "X"`,
   * `cannot route to service with ClusterIP "None"`). Never waits.
   */
  resolve(ref: ServiceReference): BackendAddress;
}

interface ServicePort {
  readonly name?: string;
  readonly port?: number;
}

interface ServiceSpec {
  readonly type?: string;
  readonly clusterIP?: string;
  readonly externalName?: string;
  readonly ports?: readonly ServicePort[] | null;
}

interface EndpointSubset {
  readonly addresses?: readonly { readonly ip?: string }[] | null;
  readonly ports?: readonly { readonly name?: string; readonly port?: number }[] | null;
}

/** The TLS server name a backend behind `ref` must present: `<name>.<namespace>.svc` (kube's). */
export function serviceServerName(ref: Pick<ServiceReference, 'namespace' | 'name'>): string {
  return `${ref.name}.${ref.namespace}.svc`;
}

function hostPort(host: string, port: number): BackendAddress {
  return { host, port };
}

function serviceOf(services: ObjectLookup, ref: ServiceReference): ServiceSpec {
  const service = services.get(ref.namespace, ref.name);
  if (service === undefined) throw notFound({ group: '', resource: 'service' }, ref.name);
  return ((service as { spec?: ServiceSpec }).spec ?? {});
}

function findPort(spec: ServiceSpec, ref: ServiceReference): ServicePort {
  const port = (spec.ports ?? []).find((p) => p.port === ref.port);
  if (port === undefined) throw serviceUnavailable(`no service port ${ref.port} found for service ${JSON.stringify(ref.name)}`);
  return port;
}

const ROUTABLE_TYPES = new Set(['ClusterIP', 'LoadBalancer', 'NodePort']);

/** kube's ClusterIPServiceResolver (the default). */
export function clusterIpServiceResolver(services: ObjectLookup): ServiceResolver {
  return {
    resolve(ref) {
      const spec = serviceOf(services, ref);
      const type = spec.type ?? 'ClusterIP';
      if (type === 'ClusterIP' && spec.clusterIP === 'None') throw new Error('cannot route to service with ClusterIP "None"');
      if (ROUTABLE_TYPES.has(type)) return hostPort(spec.clusterIP ?? '', findPort(spec, ref).port ?? ref.port);
      if (type === 'ExternalName') return hostPort(spec.externalName ?? '', ref.port);
      throw new Error(`unsupported service type ${JSON.stringify(type)}`);
    },
  };
}

/** Every address the Service's Endpoints offer for `ref`'s port (by the port's name). Throws as resolve does. */
export function endpointUrls(services: ObjectLookup, endpoints: ObjectLookup, ref: ServiceReference): BackendAddress[] {
  const spec = serviceOf(services, ref);
  const port = findPort(spec, ref);
  const type = spec.type ?? 'ClusterIP';
  if (!ROUTABLE_TYPES.has(type)) throw new Error(`unsupported service type ${JSON.stringify(type)}`);
  const eps = endpoints.get(ref.namespace, ref.name);
  if (eps === undefined) throw notFound({ group: '', resource: 'endpoints' }, ref.name);
  const subsets = (eps as { subsets?: readonly EndpointSubset[] | null }).subsets ?? [];
  const urls: BackendAddress[] = [];
  for (const subset of subsets) {
    for (const p of subset.ports ?? []) {
      if ((p.name ?? '') !== (port.name ?? '') || p.port === undefined) continue;
      for (const address of subset.addresses ?? []) if (address.ip) urls.push(hostPort(address.ip, p.port));
    }
  }
  if (urls.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(ref.name)}`);
  return urls;
}

/** kube's EndpointServiceResolver (--enable-aggregator-routing=true): a random ready endpoint. */
export function endpointServiceResolver(services: ObjectLookup, endpoints: ObjectLookup): ServiceResolver {
  return {
    resolve(ref) {
      const urls = endpointUrls(services, endpoints, ref);
      return urls[Math.floor(Math.random() * urls.length)]!;
    },
  };
}
