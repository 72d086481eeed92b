/**
 * The aggregation layer (kube-aggregator in front of kube-apiserver): APIServices that name a
 * Service have their group-version proxied to it (proxy.ts), listed in discovery
 * (discovery.ts), and their Available condition kept (available-controller.ts); the local
 * APIServices of what this server serves itself are registered (autoregister.ts) and never
 * proxied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from '@kapi/registry';
import type { Registry as MetricsRegistry } from 'prom-client';
import type { UserInfo } from '../auth/user.js';
import { createBackendAgents, type ClientCertificate, type RunningServiceResolver } from '../proxy/index.js';
import { APIREGISTRATION_GROUP, isAvailable, startApiServiceIndex, type ApiServiceObject } from './apiservices.js';
import { startAutoregister } from './autoregister.js';
import { startAvailableController } from './available-controller.js';
import { createRemoteDiscovery, type RemoteDiscovery } from './discovery.js';
import { proxyToApiService } from './proxy.js';

export interface AggregatorOptions {
  /** Services (and with --enable-aggregator-routing, Endpoints) in memory; the caller starts and stops it. */
  readonly resolver: RunningServiceResolver;
  /** --proxy-client-cert-file/--proxy-client-key-file, read. */
  readonly clientCertificate?: ClientCertificate;
  /** RemoteRequestHeaderUID feature gate: X-Remote-Uid is sent. */
  readonly uidHeader?: boolean;
  /** Whether a group is served locally (its remote APIServices are then not listed). */
  readonly localGroup: (name: string) => boolean;
  /** false: no autoregistration and no availability checks (their writes); default true. */
  readonly controllers?: boolean;
  /** The built-in group-versions served (each gets its local APIService at start); apiregistration.k8s.io is left out here. */
  readonly builtinGroupVersions: readonly { readonly group: string; readonly version: string }[];
  readonly metrics: MetricsRegistry;
  readonly onError: (what: string, err: unknown) => void;
}

export interface Aggregator {
  /** The remote APIService serving `group`/`version`, if any. */
  target(group: string, version: string): ApiServiceObject | undefined;
  /** Proxies the request to `apiService`'s backend (see proxy.ts); never throws. */
  proxy(req: IncomingMessage, res: ServerResponse, apiService: ApiServiceObject, user: UserInfo | undefined, discovery: boolean): Promise<void>;
  readonly discovery: RemoteDiscovery;
  /**
   * kube's `autoregister-completion` readyz check: the built-in local APIServices not yet seen
   * Available (each is dropped from the list once it was; an empty list is ready).
   */
  pendingLocalApiServices(): string[];
  synced(): boolean;
  stop(): Promise<void>;
}

/** Starts the informers and the availability controller; undefined when apiregistration.k8s.io/v1 is not served. */
export function startAggregator(registry: Pick<Registry, 'lookup'>, options: AggregatorOptions): Aggregator | undefined {
  const apiServices = startApiServiceIndex(registry, (err) => options.onError('apiservice informer', err));
  if (apiServices === undefined) return undefined;
  const { resolver } = options;
  const agents = createBackendAgents(options.clientCertificate);
  const access = { resolver, agents };
  const discovery = createRemoteDiscovery(apiServices, access, options.localGroup, (err) => options.onError('aggregated discovery', err));
  const writing = options.controllers !== false;
  const available = !writing ? undefined : startAvailableController({
    registry,
    apiServices,
    services: resolver.services,
    endpoints: resolver.endpoints,
    onServiceChange: (listener) => resolver.onChange(listener),
    access,
    metrics: options.metrics,
    onError: (err) => options.onError('APIService availability', err),
    onChecked: (name, ok) => discovery.refresh(name, ok),
  });
  const autoregister = !writing ? undefined : startAutoregister({
    registry,
    apiServices,
    builtinGroupVersions: options.builtinGroupVersions.filter((gv) => gv.group !== APIREGISTRATION_GROUP),
    onError: (err) => options.onError('autoregister', err),
  });
  const pending = new Set((autoregister?.builtin ?? []).map((a) => a.metadata.name ?? ''));
  const offPending = apiServices.onChange((name) => {
    for (const n of name !== undefined ? [name] : [...pending]) {
      const a = apiServices.get(n);
      if (a !== undefined && isAvailable(a)) pending.delete(n);
    }
  });
  const proxyOptions = { access, uidHeader: options.uidHeader === true };
  return {
    target: (group, version) => apiServices.remote(group, version),
    proxy: (req, res, apiService, user, isDiscovery) => proxyToApiService(proxyOptions, apiService, req, res, user, isDiscovery),
    discovery,
    pendingLocalApiServices: () => [...pending].sort(),
    synced: () => apiServices.synced() && resolver.synced(),
    async stop() {
      offPending();
      await autoregister?.stop();
      await available?.stop();
      await apiServices.stop();
      agents.destroy();
    },
  };
}
export type { RemoteDiscovery, RemoteGroup } from './discovery.js';
