/**
 * Keeps kube's API Priority and Fairness bootstrap configuration (kube's
 * `priority-and-fairness-config-producer` post-start hook): every mandatory and suggested
 * FlowSchema and PriorityLevelConfiguration of generated/flowcontrol-bootstrap.json is created
 * when missing; a mandatory one always gets kube's spec back and `autoupdate-spec: "true"`; a
 * suggested one gets kube's spec while its `apf.kubernetes.io/autoupdate-spec` annotation is
 * true (or, without a boolean there, while its generation is still 1), and the annotation is set
 * to what was decided. Objects that carry `autoupdate-spec: "true"` but are no longer part of
 * the configuration are deleted. An object already right is not written, so a restart writes
 * nothing; replicas racing are safe (AlreadyExists and NotFound mean another one did it; a Conflict reads the
 * object again and decides anew).
 */
import { flowcontrolBootstrap } from '@kapi/catalog';
import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from '@kapi/machinery';
import { sleep, type Registry, type RequestContext, type RestResource } from '@kapi/registry';
import type { TermController } from './controller.js';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';
const AUTOUPDATE = 'apf.kubernetes.io/autoupdate-spec';
const CTX: RequestContext = { namespace: '', userAgent: 'kube-apiserver/v1.32.0' };
/** kube's ensurer writes as this field manager. */
const FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';

type Obj = Record<string, unknown> & { metadata: { name: string; generation?: number; annotations?: Record<string, string> }; spec?: Record<string, unknown> };

/** JSON with sorted keys and empty values dropped: equal for specs that Go's semantic equality calls equal after a JSON round trip. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** Go's strconv.ParseBool. */
function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** Whether `actual` has the bootstrap spec; the exempt priority level's shares and lendable percent are the operator's. */
function specEqualish(plural: string, expected: Obj, actual: Obj): boolean {
  let want = expected.spec ?? {};
  if (plural === 'prioritylevelconfigurations' && expected.metadata.name === 'exempt') {
    const exempt = actual.spec?.['exempt'] as Record<string, unknown> | undefined;
    if (exempt === undefined || exempt === null) return false;
    want = { ...want, exempt: { ...(want['exempt'] as Record<string, unknown>), nominalConcurrencyShares: exempt['nominalConcurrencyShares'], lendablePercent: exempt['lendablePercent'] } };
  }
  return canonical(want) === canonical(actual.spec ?? {});
}

/** The revised object when `current` needs an update (kube's ensurer strategy), else undefined. */
function revised(plural: string, current: Obj, bootstrap: Obj, mandatory: boolean): Obj | undefined {
  const annotation = parseBool(current.metadata.annotations?.[AUTOUPDATE]);
  const autoUpdate = mandatory || (annotation ?? current.metadata.generation === 1);
  const updateAnnotation = annotation !== autoUpdate;
  const specChanged = autoUpdate && !specEqualish(plural, bootstrap, current);
  if (!updateAnnotation && !specChanged) return undefined;
  return {
    ...current,
    metadata: updateAnnotation ? { ...current.metadata, annotations: { ...(current.metadata.annotations ?? {}), [AUTOUPDATE]: String(autoUpdate) } } : current.metadata,
    ...(specChanged ? { spec: bootstrap.spec } : {}),
  };
}

function served(registry: Pick<Registry, 'lookup'>, plural: string): RestResource | undefined {
  const resource = registry.lookup(FLOWCONTROL_GROUP, 'v1', plural);
  if (resource?.getter === undefined || resource.creater === undefined || resource.updater === undefined || resource.lister === undefined || resource.deleter === undefined) return undefined;
  return resource;
}

async function ensure(resource: RestResource, plural: string, kind: string, raw: Record<string, unknown>, mandatory: boolean): Promise<void> {
  const { status: _status, ...rest } = raw;
  const { creationTimestamp: _created, ...metadata } = raw['metadata'] as Record<string, unknown>;
  const bootstrap = { apiVersion: `${FLOWCONTROL_GROUP}/v1`, kind, ...rest, metadata } as unknown as Obj;
  const name = bootstrap.metadata.name;
  for (;;) {
    let current: KubeObject;
    try {
      current = await resource.getter!.get(CTX, name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await resource.creater!.create(CTX, structuredClone(bootstrap), { fieldManager: FIELD_MANAGER });
        return;
      } catch (createErr) {
        if (!isAlreadyExists(createErr)) throw createErr;
        continue;
      }
    }
    const update = revised(plural, current as unknown as Obj, bootstrap, mandatory);
    if (update === undefined) return;
    try {
      await resource.updater!.update(CTX, name, update, { fieldManager: FIELD_MANAGER });
    } catch (err) {
      // Another replica, or the config consumer's status write: decide again on what is there now.
      if (!isConflict(err)) throw err;
      continue;
    }
    return;
  }
}

async function removeDangling(resource: RestResource, wanted: ReadonlySet<string>): Promise<void> {
  const list = await resource.lister!.list(CTX, {});
  for (const item of list.items as unknown as Obj[]) {
    if (wanted.has(item.metadata.name)) continue;
    if (parseBool(item.metadata.annotations?.[AUTOUPDATE]) !== true) continue;
    try {
      await resource.deleter!.delete(CTX, item.metadata.name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * One pass of kube's ensurer: suggested objects, mandatory objects, then the dangling ones.
 * Does nothing when flowcontrol.apiserver.k8s.io/v1 is not served. Throws the first storage
 * error other than the races above (the caller retries).
 */
export async function ensureFlowcontrolBootstrap(registry: Pick<Registry, 'lookup'>): Promise<void> {
  const levels = served(registry, 'prioritylevelconfigurations');
  const schemas = served(registry, 'flowschemas');
  if (levels === undefined || schemas === undefined) return;
  const config = flowcontrolBootstrap();
  for (const pl of config.suggestedPriorityLevelConfigurations) await ensure(levels, 'prioritylevelconfigurations', 'PriorityLevelConfiguration', pl, false);
  for (const fs of config.suggestedFlowSchemas) await ensure(schemas, 'flowschemas', 'FlowSchema', fs, false);
  for (const pl of config.mandatoryPriorityLevelConfigurations) await ensure(levels, 'prioritylevelconfigurations', 'PriorityLevelConfiguration', pl, true);
  for (const fs of config.mandatoryFlowSchemas) await ensure(schemas, 'flowschemas', 'FlowSchema', fs, true);
  const names = (objs: readonly Record<string, unknown>[]) => objs.map((o) => (o['metadata'] as { name: string }).name);
  await removeDangling(schemas, new Set([...names(config.mandatoryFlowSchemas), ...names(config.suggestedFlowSchemas)]));
  await removeDangling(levels, new Set([...names(config.mandatoryPriorityLevelConfigurations), ...names(config.suggestedPriorityLevelConfigurations)]));
}

/** Runs ensureFlowcontrolBootstrap every `intervalMs` (kube: every minute) while it runs; the first pass is the caller's (at start). */
export function flowcontrolBootstrapKeeper(registry: Pick<Registry, 'lookup'>, intervalMs: number, onError: (err: unknown) => void): TermController {
  return {
    synced: () => true,
    async run(signal) {
      for (;;) {
        await sleep(intervalMs, signal);
        if (signal.aborted) return;
        await ensureFlowcontrolBootstrap(registry).catch(onError);
      }
    },
    stop: () => Promise.resolve(),
  };
}
