/**
 * The resolver kube-apiserver builds from its flags: Services (and, with
 * --enable-aggregator-routing, Endpoints) kept in memory by informers over the registry.
 */
import { startObjectCache, type ObjectCache } from '@kapi/controllers';
import type { Registry } from '@kapi/registry';
import { clusterIpServiceResolver, endpointServiceResolver, type ObjectLookup, type ServiceResolver } from './service-resolver.js';

export interface RunningServiceResolver extends ServiceResolver {
  readonly services: ObjectLookup;
  readonly endpoints: ObjectLookup;
  /** Calls `listener` after any Service or Endpoints change (or re-list); returns the unsubscribe function. */
  onChange(listener: (obj: { namespace: string; name: string } | undefined) => void): () => void;
  synced(): boolean;
  stop(): Promise<void>;
}

export interface ServiceResolverOptions {
  /** --enable-aggregator-routing: route to endpoint addresses instead of the ClusterIP. */
  readonly aggregatorRouting: boolean;
  readonly onError: (err: unknown) => void;
}

/** Starts the Service and Endpoints informers and returns the resolver over them. */
export function startServiceResolver(registry: Pick<Registry, 'lookup'>, options: ServiceResolverOptions): RunningServiceResolver {
  const services: ObjectCache = startObjectCache(registry, 'services', options.onError);
  const endpoints: ObjectCache = startObjectCache(registry, 'endpoints', options.onError);
  const resolver = options.aggregatorRouting ? endpointServiceResolver(services, endpoints) : clusterIpServiceResolver(services);
  return {
    resolve: (ref) => resolver.resolve(ref),
    services,
    endpoints,
    onChange(listener) {
      const forward = (obj: { metadata: { namespace?: string; name?: string } } | undefined) =>
        listener(obj === undefined ? undefined : { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });
      const offServices = services.onChange((obj) => forward(obj));
      const offEndpoints = endpoints.onChange((obj) => forward(obj));
      return () => {
        offServices();
        offEndpoints();
      };
    },
    synced: () => services.synced() && endpoints.synced(),
    async stop() {
      await Promise.all([services.stop(), endpoints.stop()]);
    },
  };
}
