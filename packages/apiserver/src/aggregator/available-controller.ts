/**
 * kube-aggregator's AvailableConditionControllers (1.32, Endpoints-based). An APIService
 * without a Service is local: Available=True, reason `Local` (kube's local controller). For
 * every APIService that names a Service, checks that the Service exists, has the port, has
 * Endpoints with an address on that port's name, and that the backend answers its discovery
 * path; writes `status.conditions[Available]` with kube's reasons and messages when it
 * changes. Every replica runs it (as every kube-apiserver does). Checks are re-run on any
 * change of the APIService, its Service or Endpoints, every 30 s, and after a failed check
 * with a backoff (5 ms doubling to 30 s). Sets `aggregator_unavailable_apiservice`.
 */
import { isStatusError, type KubeObject } from '@kapi/machinery';
import { createWorkQueue, processQueue, type Registry } from '@kapi/registry';
import { Counter, Gauge, type Registry as MetricsRegistry } from 'prom-client';
import { authProxyHeaders, type ObjectLookup } from '../proxy/index.js';
import { availableCondition, serviceOf, type ApiServiceCondition, type ApiServiceIndex, type ApiServiceObject } from './apiservices.js';
import { backendGet, type BackendAccess } from './backend.js';

export interface AvailableControllerOptions {
  readonly registry: Pick<Registry, 'lookup'>;
  readonly apiServices: ApiServiceIndex;
  readonly services: ObjectLookup;
  readonly endpoints: ObjectLookup;
  /** Subscribes to Service and Endpoints changes (undefined: a re-list). */
  readonly onServiceChange: (listener: (obj: { namespace: string; name: string } | undefined) => void) => () => void;
  readonly access: BackendAccess;
  readonly metrics: MetricsRegistry;
  readonly onError: (err: unknown) => void;
  /** Called after an APIService's availability was checked (whatever the outcome). */
  readonly onChecked?: (name: string, available: boolean) => void;
  /** Resync period; default 30 s (kube's). */
  readonly resyncMs?: number;
}

export interface AvailableController {
  stop(): Promise<void>;
}

interface Verdict {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  /** Failed discovery checks are retried with backoff. */
  readonly retry?: boolean;
}

interface ServiceSpec {
  readonly type?: string;
  readonly ports?: readonly { readonly name?: string; readonly port?: number }[] | null;
}

interface EndpointSubset {
  readonly addresses?: readonly unknown[] | null;
  readonly ports?: readonly { readonly name?: string }[] | null;
}

/** kube's local availability controller's verdict for an APIService served by this server itself. */
const LOCAL: Verdict = { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

const ATTEMPTS = 5;
const CHECK_TIMEOUT_MS = 5000;

/** The discovery path an aggregated server must serve for `apiService`. */
function discoveryPath(apiService: ApiServiceObject): string {
  const { group = '', version = '' } = apiService.spec ?? {};
  return apiService.metadata.name === 'v1.' ? `/api/${version}` : `/apis/${group}/${version}`;
}

export function startAvailableController(options: AvailableControllerOptions): AvailableController {
  const { apiServices, access } = options;
  const queue = createWorkQueue<string>({ baseDelayMs: 5, maxDelayMs: 30_000 });
  const stopping = new AbortController();
  const unavailable = new Gauge({
    name: 'aggregator_unavailable_apiservice',
    help: '[ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.',
    labelNames: ['name'],
    registers: [options.metrics],
  });
  const unavailableTotal = new Counter({
    name: 'aggregator_unavailable_apiservice_total',
    help: '[ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.',
    labelNames: ['name', 'reason'],
    registers: [options.metrics],
  });
  const statusUpdater = options.registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')?.subresources?.get('status')?.updater;

  const check = async (apiService: ApiServiceObject): Promise<Verdict> => {
    const ref = serviceOf(apiService)!;
    const where = `service/${ref.name} in ${JSON.stringify(ref.namespace)}`;
    const service = options.services.get(ref.namespace, ref.name);
    if (service === undefined) return { status: 'False', reason: 'ServiceNotFound', message: `${where} is not present` };
    const spec = ((service as { spec?: ServiceSpec }).spec ?? {});
    if ((spec.type ?? 'ClusterIP') === 'ClusterIP') {
      const port = (spec.ports ?? []).find((p) => p.port === ref.port);
      if (port === undefined) return { status: 'False', reason: 'ServicePortError', message: `${where} is not listening on port ${ref.port}` };
      const endpoints = options.endpoints.get(ref.namespace, ref.name);
      if (endpoints === undefined) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for ${where}` };
      const portName = port.name ?? '';
      const subsets = (endpoints as { subsets?: readonly EndpointSubset[] | null }).subsets ?? [];
      const active = subsets.some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!active) return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}` };
    }
    // The backend must answer its discovery path: best effort, verification off, as the aggregator's own identity.
    const results = await Promise.all(Array.from({ length: ATTEMPTS }, () => attemptWithUrl(apiService)));
    if (results.some((r) => r === undefined)) return { status: 'True', reason: 'Passed', message: 'all checks passed' };
    return { status: 'False', reason: 'FailedDiscoveryCheck', message: results[results.length - 1]!, retry: true };
  };

  /** One discovery GET; undefined when it succeeded, else kube's message. */
  const attemptWithUrl = async (apiService: ApiServiceObject): Promise<string | undefined> => {
    const headers = authProxyHeaders({ name: 'system:kube-aggregator', uid: '', groups: ['system:masters'], extra: {} });
    let url: string;
    try {
      url = urlFor(apiService);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    try {
      const res = await backendGet(access, apiService, discoveryPath(apiService), headers, { timeoutMs: CHECK_TIMEOUT_MS, insecure: true, maxBytes: 4 * 1024 * 1024 });
      if (res.status >= 200 && res.status < 300) return undefined;
      return `failing or missing response from ${url}: bad status from ${url}: ${res.status}`;
    } catch (err) {
      if (isStatusError(err) || !(err instanceof Error) || !err.message.startsWith('Get ')) return err instanceof Error ? err.message : String(err);
      return `failing or missing response from ${url}: ${err.message}`;
    }
  };

  const urlFor = (apiService: ApiServiceObject): string => {
    const address = access.resolver.resolve(serviceOf(apiService)!);
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    return `https://${host}:${address.port}${discoveryPath(apiService)}`;
  };

  const record = (name: string, verdict: Verdict, changed: boolean) => {
    unavailable.set({ name }, verdict.status === 'True' ? 0 : 1);
    if (changed && verdict.status !== 'True') unavailableTotal.inc({ name, reason: verdict.reason });
  };

  const sync = async (name: string): Promise<boolean> => {
    const apiService = apiServices.get(name);
    if (apiService === undefined) {
      unavailable.remove({ name });
      return true;
    }
    const local = serviceOf(apiService) === undefined;
    const verdict = local ? LOCAL : await check(apiService);
    // Read again: the object may have changed while the check ran.
    const current = apiServices.get(name);
    if (current === undefined || (serviceOf(current) === undefined) !== local) return true;
    const old = availableCondition(current);
    const changed = old === undefined || old.status !== verdict.status || old.reason !== verdict.reason || old.message !== verdict.message;
    record(name, verdict, old?.status !== verdict.status);
    if (!local) options.onChecked?.(name, verdict.status === 'True');
    if (changed && statusUpdater !== undefined) {
      const condition: ApiServiceCondition = {
        type: 'Available',
        status: verdict.status,
        lastTransitionTime: old !== undefined && old.status === verdict.status ? (old.lastTransitionTime ?? null) : new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
        reason: verdict.reason,
        message: verdict.message,
      };
      const conditions = [...(current.status?.conditions ?? []).filter((c) => c.type !== 'Available'), condition];
      const existing = current.status?.conditions ?? [];
      const at = existing.findIndex((c) => c.type === 'Available');
      const ordered = at < 0 ? conditions : existing.map((c) => (c.type === 'Available' ? condition : c));
      const body: KubeObject = { ...current, status: { ...current.status, conditions: ordered } } as KubeObject;
      // kube's aggregator writes with the apiserver's loopback client: manager kube-apiserver.
      await statusUpdater.update({ namespace: '', userAgent: 'kube-apiserver/v1.32.0' }, name, body, {});
    }
    return verdict.retry !== true;
  };

  const offApiServices = apiServices.onChange((name) => {
    if (name !== undefined) queue.add(name);
    else for (const a of apiServices.all()) queue.add(a.metadata.name ?? '');
  });
  const offServices = options.onServiceChange((obj) => {
    for (const a of apiServices.all()) {
      const ref = serviceOf(a);
      if (ref !== undefined && (obj === undefined || (ref.namespace === obj.namespace && ref.name === obj.name))) queue.add(a.metadata.name ?? '');
    }
  });
  const resync = setInterval(() => {
    for (const a of apiServices.all()) if (serviceOf(a) !== undefined) queue.add(a.metadata.name ?? '');
  }, options.resyncMs ?? 30_000);
  resync.unref();
  for (const a of apiServices.all()) queue.add(a.metadata.name ?? '');

  const worker = processQueue(queue, stopping.signal, sync, options.onError);

  return {
    async stop() {
      stopping.abort();
      clearInterval(resync);
      offApiServices();
      offServices();
      queue.shutDown();
      await worker;
      options.metrics.removeSingleMetric('aggregator_unavailable_apiservice');
      options.metrics.removeSingleMetric('aggregator_unavailable_apiservice_total');
    },
  };
}
