/**
 * The status half of kube-apiserver's priority-and-fairness config consumer (its
 * `priority-and-fairness-config-consumer` post-start hook, on with --enable-priority-and-fairness):
 * every FlowSchema carries a `Dangling` condition saying whether the
 * PriorityLevelConfiguration it names exists — True, reason `NotFound`, when it does not;
 * False, reason `Found`, when it does. A FlowSchema whose condition already says so (status,
 * reason and message) is not written; otherwise the condition, with the current time as
 * lastTransitionTime, is server-side applied to `/status` as kube's field manager
 * `api-priority-and-fairness-config-consumer-v1`, forced. kapi does not classify requests by
 * FlowSchema (it has no priority-and-fairness filter); only the objects are kube's. Every
 * replica runs it, as every kube-apiserver does; the writes are deterministic.
 */
import { isNotFound, nowRFC3339, type KubeObject } from '@kapi/machinery';
import type { Registry } from '@kapi/registry';
import type { TermController } from './controller.js';
import { FLOWCONTROL_GROUP } from './flowcontrol-bootstrap.js';
import { keyedController } from './keyed-controller.js';
import { startResourceCache } from './object-cache.js';

/** kube's field manager (and so the managedFields entry) of the condition. */
export const CONFIG_CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';
const USER_AGENT = 'kube-apiserver/v1.32.0';

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The Dangling condition kube wants on a FlowSchema naming `level`, which exists or not (without lastTransitionTime). */
export function danglingCondition(level: string, exists: boolean): Required<Condition> {
  return exists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object` };
}

const levelOf = (schema: KubeObject): string =>
  ((schema as { spec?: { priorityLevelConfiguration?: { name?: string } } }).spec?.priorityLevelConfiguration?.name) ?? '';

/** The consumer over the registry's FlowSchemas and priority levels; undefined when flowcontrol.apiserver.k8s.io/v1 is not served. */
export function flowcontrolConfigConsumer(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): TermController | undefined {
  const schemas = registry.lookup(FLOWCONTROL_GROUP, 'v1', 'flowschemas');
  const levels = registry.lookup(FLOWCONTROL_GROUP, 'v1', 'prioritylevelconfigurations');
  const status = schemas?.subresources?.get('status')?.patcher;
  if (schemas === undefined || levels === undefined || status === undefined) return undefined;
  const schemaCache = startResourceCache(schemas, onError);
  const levelCache = startResourceCache(levels, onError);

  const reconcile = async (name: string): Promise<void> => {
    const schema = schemaCache.get('', name);
    if (schema === undefined) return;
    const level = levelOf(schema);
    const wanted = danglingCondition(level, levelCache.get('', level) !== undefined);
    const current = ((schema['status'] as { conditions?: Condition[] | null } | undefined)?.conditions ?? []).find((c) => c.type === 'Dangling');
    if (current?.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) return;
    const applied = {
      apiVersion: `${FLOWCONTROL_GROUP}/v1`,
      kind: 'FlowSchema',
      metadata: { name },
      status: { conditions: [{ type: wanted.type, status: wanted.status, lastTransitionTime: nowRFC3339(), reason: wanted.reason, message: wanted.message }] },
    };
    try {
      await status.patch({ namespace: '', userAgent: USER_AGENT }, name, { type: 'application/apply-patch+yaml', body: applied }, { fieldManager: CONFIG_CONSUMER_FIELD_MANAGER, force: true });
    } catch (err) {
      // Deleted meanwhile: its DELETED event is on its way, nothing left to do.
      if (!isNotFound(err)) throw err;
    }
  };

  const allSchemas = () => schemaCache.list().map((s) => s.metadata.name ?? '');
  const controller = keyedController({
    caches: [schemaCache, levelCache],
    // A change of either kind: the FlowSchema of that name, and those naming a level of that
    // name (a reconcile that finds the condition right writes nothing).
    keysOf: (obj) => {
      const name = obj.metadata.name ?? '';
      return [name, ...schemaCache.list().filter((s) => levelOf(s) === name).map((s) => s.metadata.name ?? '')];
    },
    allKeys: allSchemas,
    reconcile,
    onError,
  });
  return {
    synced: () => controller.synced(),
    run: (signal) => controller.run(signal),
    async stop() {
      await controller.stop();
      await Promise.all([schemaCache.stop(), levelCache.stop()]);
    },
  };
}
