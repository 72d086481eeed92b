/**
 * kube's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins over the webhook
 * configurations (configurations.ts), as admission plugins of the chain (chain.ts).
 *
 * Mutating (the mutating phase): matching webhooks are called one after another in order;
 * each JSON patch is applied to the object (in the webhook's matched version), the result
 * re-defaulted, and the next webhook sees it. When a webhook changed the object, the earlier
 * webhooks with reinvocationPolicy IfNeeded are called once more (round 1), as kube's
 * reinvocation does; every call is recorded in the audit annotations
 * `mutation.webhook.admission.k8s.io/round_<r>_index_<i>`.
 *
 * Validating (the validating phase): matching webhooks are called at once; the request is
 * refused with the first refusal in webhook order.
 *
 * failurePolicy: a webhook that cannot be called (connection, TLS, timeout, bad response)
 * fails the request with kube's `Internal error occurred: failed calling webhook "x": ...`
 * under Fail, and is skipped under Ignore. A denial is the webhook's Status (`admission
 * webhook "x" denied the request: ...`).
 */
import { applyJsonPatch, decodeJsonPatch, forbidden, internalError, isStatusError, type KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionPlugin } from '@kapi/registry';
import { matchWebhook, type MatchResult, type NamespaceLabels } from '../matching.js';
import type { AdmissionMetrics, WebhookMetricType } from '../metrics.js';
import { CallingWebhookError, WebhookRejection, callWebhook } from './call.js';
import type { WebhookClient } from './client.js';
import type { WebhookEntry, WebhookSource } from './configurations.js';
import { matchConditionsAllow } from './match-conditions.js';

export interface WebhookPluginOptions {
  readonly source: WebhookSource;
  readonly client: WebhookClient;
  readonly namespaceLabels: NamespaceLabels;
  readonly metrics?: AdmissionMetrics;
  /** Logs a webhook that failed open (kube's klog warning). */
  readonly onFailOpen?: (webhook: string, err: Error) => void;
}

const semanticallyEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** How long a request waits for the configurations' first list (kube's WaitForReady: 10 s). */
const READY_WAIT_MS = 10_000;

/** Waits (bounded) for the first list of the configurations; false when it did not come. */
async function waitForReady(source: WebhookSource): Promise<boolean> {
  const deadline = Date.now() + READY_WAIT_MS;
  while (!source.synced()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** kube refuses requests the plugin handles until its configurations are listed. */
function notReady(attributes: AdmissionAttributes): Error {
  return forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, attributes.name, 'not yet ready to handle request');
}

interface Objects {
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
}

/** The request's objects in the matched version (converted when the match is an equivalent resource). */
function objectsFor(attributes: AdmissionAttributes, match: MatchResult): Objects {
  const convert = match.equivalent?.convert;
  if (convert === undefined) return { object: attributes.object, oldObject: attributes.oldObject };
  return {
    object: attributes.object === undefined ? undefined : convert(attributes.object),
    oldObject: attributes.oldObject === undefined ? undefined : convert(attributes.oldObject),
  };
}

/** Records the metrics of a call's outcome and turns it into what the dispatcher does next: undefined to go on, or the error to end with. */
function settle(options: WebhookPluginOptions, type: WebhookMetricType, hook: WebhookEntry, attributes: AdmissionAttributes, started: number, err: unknown): Error | undefined {
  const seconds = (performance.now() - started) / 1000;
  const metrics = options.metrics;
  const operation = attributes.operation;
  if (err === undefined) {
    metrics?.recordWebhook(hook.name, type, operation, false, 200, seconds);
    return undefined;
  }
  if (err instanceof CallingWebhookError) {
    const ignore = hook.failurePolicy === 'Ignore';
    if (!ignore) metrics?.recordWebhookRejection(hook.name, type, operation, 'calling_webhook_error', err.code);
    metrics?.recordWebhook(hook.name, type, operation, !ignore, err.code, seconds);
    if (ignore) {
      metrics?.recordWebhookFailOpen(hook.name, type);
      options.onFailOpen?.(hook.name, err);
      return undefined;
    }
    return internalError(err);
  }
  if (err instanceof WebhookRejection) {
    metrics?.recordWebhookRejection(hook.name, type, operation, 'no_error', err.status.code);
    metrics?.recordWebhook(hook.name, type, operation, true, err.status.code, seconds);
    return err.status;
  }
  metrics?.recordWebhookRejection(hook.name, type, operation, 'apiserver_internal_error', 0);
  metrics?.recordWebhook(hook.name, type, operation, true, 0, seconds);
  return isStatusError(err) ? err : internalError(err);
}

const operationsOf = (hooks: readonly WebhookEntry[]) => new Set(hooks.flatMap((h) => h.rules.flatMap((r) => r.operations ?? [])));

function handles(source: WebhookSource, operation: string): boolean {
  if (!source.synced()) return true;
  const operations = operationsOf(source.webhooks());
  return operations.has('*') || operations.has(operation);
}

/** kube's MutatingAdmissionWebhook. */
export function mutatingWebhookPlugin(options: WebhookPluginOptions): AdmissionPlugin {
  const { source } = options;
  return {
    name: 'MutatingAdmissionWebhook',
    handles: (operation) => handles(source, operation),
    async admit(attributes) {
      if (!source.synced() && !(await waitForReady(source))) throw notReady(attributes);
      const hooks = source.webhooks();
      if (hooks.length === 0) return;
      const previouslyInvoked = new Set<string>();
      let reinvoke = new Set<string>();
      let reinvocationNeeded = false;
      for (const round of [0, 1]) {
        if (round === 1 && !reinvocationNeeded) break;
        const eligible = round === 1 ? reinvoke : undefined;
        for (let index = 0; index < hooks.length; index++) {
          const hook = hooks[index]!;
          if (eligible !== undefined && !eligible.has(hook.uid)) continue;
          const match = await matchWebhook(hook, attributes, options.namespaceLabels);
          if (match === undefined) continue;
          const objects = objectsFor(attributes, match);
          if (!matchConditionsAllow(hook, attributes, match, objects.object, objects.oldObject)) continue;
          const started = performance.now();
          let changed = false;
          let failure: unknown;
          try {
            changed = await mutate(options.client, hook, attributes, match, objects);
          } catch (err) {
            failure = err;
          }
          attributes.annotate(`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }));
          const ended = settle(options, 'admit', hook, attributes, started, failure);
          if (failure instanceof CallingWebhookError && ended === undefined) {
            attributes.annotate(`failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`, hook.name);
          }
          if (changed) {
            reinvoke = new Set([...reinvoke, ...previouslyInvoked]);
            reinvocationNeeded = true;
          }
          if (hook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(hook.uid);
          if (ended !== undefined) throw ended;
        }
      }
    },
  };
}

/** Calls a mutating webhook and applies its patch to `attributes.object`; returns whether the object changed. */
async function mutate(client: WebhookClient, hook: WebhookEntry, attributes: AdmissionAttributes, match: MatchResult, objects: Objects): Promise<boolean> {
  const { object, oldObject } = objects;
  const response = await callWebhook(client, { hook, attributes, match, object, oldObject, mutating: true });
  if (response.patch === undefined) return false;
  let operations;
  try {
    operations = decodeJsonPatch(response.patch);
  } catch (err) {
    throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: ${err instanceof Error ? err.message : String(err)}`, 503);
  }
  if (operations.length === 0) return false;
  if (object === undefined) {
    throw internalError(new Error(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`));
  }
  let patched: KubeObject;
  try {
    patched = applyJsonPatch(object, operations) as KubeObject;
  } catch (err) {
    throw internalError(err);
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) throw internalError(new Error('the patched object is not an object'));
  patched.metadata ??= {};
  const changed = !semanticallyEqual(object, patched);
  const normalized = attributes.normalize(match.equivalent !== undefined ? match.equivalent.convertBack(patched) : patched);
  attributes.object = normalized;
  return changed;
}

/** kube's ValidatingAdmissionWebhook. */
export function validatingWebhookPlugin(options: WebhookPluginOptions): AdmissionPlugin {
  const { source } = options;
  return {
    name: 'ValidatingAdmissionWebhook',
    handles: (operation) => handles(source, operation),
    async validate(attributes) {
      if (!source.synced() && !(await waitForReady(source))) throw notReady(attributes);
      const hooks = source.webhooks();
      if (hooks.length === 0) return;
      const calls: { hook: WebhookEntry; match: MatchResult; objects: Objects }[] = [];
      const converted = new Map<string, Objects>();
      for (const hook of hooks) {
        const match = await matchWebhook(hook, attributes, options.namespaceLabels);
        if (match === undefined) continue;
        const key = `${match.resource.group}/${match.resource.version}`;
        let objects = converted.get(key);
        if (objects === undefined) {
          objects = objectsFor(attributes, match);
          converted.set(key, objects);
        }
        if (matchConditionsAllow(hook, attributes, match, objects.object, objects.oldObject)) calls.push({ hook, match, objects });
      }
      if (calls.length === 0) return;
      const outcomes = await Promise.all(calls.map(async ({ hook, match, objects }) => {
        const started = performance.now();
        try {
          await callWebhook(options.client, { hook, attributes, match, ...objects, mutating: false });
          return settle(options, 'validating', hook, attributes, started, undefined);
        } catch (err) {
          return settle(options, 'validating', hook, attributes, started, err);
        }
      }));
      const refusal = outcomes.find((o) => o !== undefined);
      if (refusal !== undefined) throw refusal;
    },
  };
}
