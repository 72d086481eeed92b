/**
 * What the admission webhook plugins run on, started once per server: the configuration
 * informers, the namespace informer (namespaceSelector), the Service (and Endpoints)
 * informers that resolve `clientConfig.service`, and one HTTPS client.
 */
import { isNotFound } from '@kapi/machinery';
import { startObjectCache } from '@kapi/controllers';
import type { Registry } from '@kapi/registry';
import type { ServiceResolver } from '../proxy/index.js';
import type { NamespaceLabels } from './matching.js';
import type { AdmissionMetrics } from './metrics.js';
import { createWebhookClient } from './webhook/client.js';
import { startWebhookSource, type WebhookSource } from './webhook/configurations.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './webhook/plugins.js';
import type { AdmissionPlugin } from '@kapi/registry';

export interface AdmissionWebhooks {
  /** MutatingAdmissionWebhook, when enabled. */
  readonly mutating: AdmissionPlugin | undefined;
  /** ValidatingAdmissionWebhook, when enabled. */
  readonly validating: AdmissionPlugin | undefined;
  /**
   * Starts the informers on the registry (the plugins are handed to the registry before it
   * exists; until then, and until the configurations are listed, they wait as kube's do).
   */
  start(registry: Pick<Registry, 'lookup'>, services: ServiceResolver): void;
  stop(): Promise<void>;
}

export interface AdmissionWebhookOptions {
  readonly mutating: boolean;
  readonly validating: boolean;
  readonly metrics?: AdmissionMetrics;
  readonly onError: (err: unknown) => void;
  readonly onFailOpen?: (webhook: string, err: Error) => void;
}

/** Namespace labels from an informer copy, else a quorum read (kube's lister, then a live GET). */
function namespaceLabelsOf(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): { labels: NamespaceLabels; stop(): Promise<void> } {
  const cache = startObjectCache(registry, 'namespaces', onError);
  return {
    labels: async (name) => {
      const cached = cache.get('', name);
      if (cached !== undefined) return cached.metadata.labels ?? {};
      const getter = registry.lookup('', 'v1', 'namespaces')?.getter;
      if (getter === undefined) return undefined;
      try {
        return (await getter.get({ namespace: '' }, name, {})).metadata.labels ?? {};
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    stop: () => cache.stop(),
  };
}

const PENDING: WebhookSource = { webhooks: () => [], synced: () => false, stop: () => Promise.resolve() };

/** The enabled webhook plugins; their informers start with `start` (nothing runs when neither is enabled). */
export function createAdmissionWebhooks(options: AdmissionWebhookOptions): AdmissionWebhooks {
  if (!options.mutating && !options.validating) return { mutating: undefined, validating: undefined, start: () => undefined, stop: () => Promise.resolve() };
  let namespaces: { labels: NamespaceLabels; stop(): Promise<void> } | undefined;
  let services: ServiceResolver | undefined;
  const client = createWebhookClient({
    resolve: (ref) => {
      if (services === undefined) throw new Error('the service resolver is not started');
      return services.resolve(ref);
    },
  });
  const sources: Record<'mutating' | 'validating', WebhookSource> = { mutating: PENDING, validating: PENDING };
  const plugin = (kind: 'mutating' | 'validating') => {
    const source: WebhookSource = { webhooks: () => sources[kind].webhooks(), synced: () => sources[kind].synced(), stop: () => sources[kind].stop() };
    const pluginOptions = {
      source,
      client,
      namespaceLabels: (name: string) => (namespaces === undefined ? Promise.resolve(undefined) : namespaces.labels(name)),
      ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
      ...(options.onFailOpen !== undefined ? { onFailOpen: options.onFailOpen } : {}),
    };
    return kind === 'mutating' ? mutatingWebhookPlugin(pluginOptions) : validatingWebhookPlugin(pluginOptions);
  };
  return {
    mutating: options.mutating ? plugin('mutating') : undefined,
    validating: options.validating ? plugin('validating') : undefined,
    start(registry, serviceResolver) {
      namespaces = namespaceLabelsOf(registry, options.onError);
      services = serviceResolver;
      if (options.mutating) sources.mutating = startWebhookSource(registry, 'mutating', options.onError);
      if (options.validating) sources.validating = startWebhookSource(registry, 'validating', options.onError);
    },
    async stop() {
      client.destroy();
      await Promise.all([namespaces?.stop(), sources.mutating.stop(), sources.validating.stop()]);
    },
  };
}
