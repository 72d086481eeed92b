/**
 * The webhooks of every Mutating/ValidatingWebhookConfiguration, kept in memory by an
 * informer over the registry (as RBAC's informers are): configurations sorted by name, each
 * one's webhooks in their listed order, with the v1 defaults applied (failurePolicy Fail,
 * matchPolicy Equivalent, empty selectors, timeoutSeconds 10, reinvocationPolicy Never,
 * rule scope `*`, service port 443). The list is rebuilt on change and read without waiting.
 */
import type { KubeObject, LabelSelectorObject } from '@kapi/machinery';
import { startInformer, type Informer, type Registry } from '@kapi/registry';
import type { RuleWithOperations } from '../matching.js';

export type WebhookKind = 'mutating' | 'validating';

export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: { readonly namespace: string; readonly name: string; readonly path?: string; readonly port: number };
  readonly caBundle?: string;
}

export interface MatchCondition {
  readonly name: string;
  readonly expression: string;
}

/** One webhook with its defaults, and where it comes from. */
export interface WebhookEntry {
  /** Unique within its kind: `<configuration>/<index>` (kube's webhook accessor UID). */
  readonly uid: string;
  readonly configurationName: string;
  readonly name: string;
  readonly clientConfig: WebhookClientConfig;
  readonly rules: readonly RuleWithOperations[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: LabelSelectorObject;
  readonly objectSelector: LabelSelectorObject;
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  readonly matchConditions: readonly MatchCondition[];
}

export interface WebhookSource {
  /** The current webhooks in kube's order (a new array after every change; never mutated). */
  webhooks(): readonly WebhookEntry[];
  /** True once the first list arrived (before that, kube refuses requests the plugin handles). */
  synced(): boolean;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;
const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function rulesOf(value: unknown): RuleWithOperations[] {
  if (!Array.isArray(value)) return [];
  return value.map((r) => {
    const rule = rec(r) ?? {};
    return {
      operations: strings(rule['operations']),
      apiGroups: strings(rule['apiGroups']),
      apiVersions: strings(rule['apiVersions']),
      resources: strings(rule['resources']),
      scope: typeof rule['scope'] === 'string' ? rule['scope'] : '*',
    };
  });
}

function clientConfigOf(value: unknown): WebhookClientConfig {
  const config = rec(value) ?? {};
  const service = rec(config['service']);
  return {
    ...(typeof config['url'] === 'string' ? { url: config['url'] } : {}),
    ...(service !== undefined
      ? {
          service: {
            namespace: typeof service['namespace'] === 'string' ? service['namespace'] : '',
            name: typeof service['name'] === 'string' ? service['name'] : '',
            ...(typeof service['path'] === 'string' ? { path: service['path'] } : {}),
            port: typeof service['port'] === 'number' ? service['port'] : 443,
          },
        }
      : {}),
    ...(typeof config['caBundle'] === 'string' && config['caBundle'] !== '' ? { caBundle: config['caBundle'] } : {}),
  };
}

/** The webhooks of one configuration object, defaulted. */
export function webhooksOf(configuration: KubeObject, kind: WebhookKind): WebhookEntry[] {
  const configurationName = configuration.metadata.name ?? '';
  const hooks = (configuration as Json)['webhooks'];
  if (!Array.isArray(hooks)) return [];
  return hooks.map((h, index) => {
    const hook = rec(h) ?? {};
    const conditions = Array.isArray(hook['matchConditions']) ? hook['matchConditions'].map((c) => rec(c) ?? {}) : [];
    return {
      uid: `${configurationName}/${index}`,
      configurationName,
      name: typeof hook['name'] === 'string' ? hook['name'] : '',
      clientConfig: clientConfigOf(hook['clientConfig']),
      rules: rulesOf(hook['rules']),
      failurePolicy: hook['failurePolicy'] === 'Ignore' ? 'Ignore' : 'Fail',
      matchPolicy: hook['matchPolicy'] === 'Exact' ? 'Exact' : 'Equivalent',
      namespaceSelector: (rec(hook['namespaceSelector']) ?? {}) as LabelSelectorObject,
      objectSelector: (rec(hook['objectSelector']) ?? {}) as LabelSelectorObject,
      sideEffects: typeof hook['sideEffects'] === 'string' ? hook['sideEffects'] : undefined,
      timeoutSeconds: typeof hook['timeoutSeconds'] === 'number' ? hook['timeoutSeconds'] : 10,
      admissionReviewVersions: strings(hook['admissionReviewVersions']),
      reinvocationPolicy: kind === 'mutating' && hook['reinvocationPolicy'] === 'IfNeeded' ? 'IfNeeded' : 'Never',
      matchConditions: conditions.map((c) => ({ name: typeof c['name'] === 'string' ? c['name'] : '', expression: typeof c['expression'] === 'string' ? c['expression'] : '' })),
    };
  });
}

const PLURALS: Readonly<Record<WebhookKind, string>> = { mutating: 'mutatingwebhookconfigurations', validating: 'validatingwebhookconfigurations' };

/**
 * Starts the informer of one kind's configurations. Without the resource served (it is
 * turned off by --runtime-config) the source is empty and synced.
 */
export function startWebhookSource(registry: Pick<Registry, 'lookup'>, kind: WebhookKind, onError: (err: unknown) => void): WebhookSource {
  const resource = registry.lookup('admissionregistration.k8s.io', 'v1', PLURALS[kind]);
  if (resource === undefined) return { webhooks: () => [], synced: () => true, stop: () => Promise.resolve() };
  const configurations = new Map<string, KubeObject>();
  let current: readonly WebhookEntry[] = [];
  const rebuild = (): void => {
    const names = [...configurations.keys()].sort();
    current = names.flatMap((name) => webhooksOf(configurations.get(name)!, kind));
  };
  const informer: Informer = startInformer(resource, {
    onList(items) {
      configurations.clear();
      for (const item of items) configurations.set(item.metadata.name ?? '', item);
      rebuild();
    },
    onEvent(type, obj) {
      if (type === 'DELETED') configurations.delete(obj.metadata.name ?? '');
      else configurations.set(obj.metadata.name ?? '', obj);
      rebuild();
    },
  }, { userAgent: `kapi-apiserver/${PLURALS[kind]}-informer`, onError });
  return {
    webhooks: () => current,
    synced: () => informer.synced(),
    stop: () => informer.stop(),
  };
}
