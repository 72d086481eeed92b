/**
 * pods/eviction (kube's EvictionREST): a delete that honours PodDisruptionBudgets. A pod that
 * is Pending, terminal or already being deleted is deleted at once. Otherwise the one PDB of
 * the namespace whose selector matches the pod must allow a disruption: its status is checked
 * (observedGeneration, disruptionsAllowed) and, on success, written back with
 * disruptionsAllowed - 1 and the pod in disruptedPods (retried on conflicts), then the pod is
 * deleted with the eviction's deleteOptions. Refusals are kube's 429s and 403s.
 */
import type { KubeObject, Status } from '@kapi/machinery';
import { StatusError, badRequest, forbidden, isConflict, labelSelectorFromObject, nowRFC3339, timeout } from '@kapi/machinery';
import type { LabelSelectorObject } from '@kapi/machinery';
import type { RequestContext } from '../../../definition.js';
import type { DeleteOptions, RestResource, RestSubresource, WriteOptions } from '../../../rest.js';
import type { SubresourceStore } from '../../../subresource-store.js';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** kube's MaxDisruptedPodSize. */
const MAX_DISRUPTED_PODS = 2000;
/** kube retries a PDB status write 20 times on conflicts. */
const CONFLICT_RETRIES = 20;
export const EVICTION_REFUSED = "Cannot evict pod as it would violate the pod's disruption budget.";
const PDB_RESOURCE = { group: 'policy', resource: 'poddisruptionbudget' };
const SUCCESS: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

/** kube's NewTooManyRequests with a DisruptionBudget cause (no "Too many requests:" prefix). */
function budgetRefusal(retryAfterSeconds: number, cause: string): StatusError {
  return new StatusError(
    {
      code: 429,
      reason: 'TooManyRequests',
      message: EVICTION_REFUSED,
      details: { ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}), causes: [{ reason: 'DisruptionBudget', message: cause }] },
    },
    retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {},
  );
}

const stillProcessing = (pdb: string) => budgetRefusal(10, `The disruption budget ${pdb} is still being processed by the server.`);

function phaseOf(pod: KubeObject): string {
  const phase = rec(pod['status'])['phase'];
  return typeof phase === 'string' ? phase : '';
}

function isTerminal(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Succeeded' || phaseOf(pod) === 'Failed';
}

function isReady(pod: KubeObject): boolean {
  const conditions = rec(pod['status'])['conditions'];
  return Array.isArray(conditions) && conditions.some((c) => rec(c)['type'] === 'Ready' && rec(c)['status'] === 'True');
}

/** The eviction's deleteOptions as the store's DeleteOptions, with the request's dryRun. */
function deleteOptionsOf(eviction: Rec, options: WriteOptions): DeleteOptions {
  const body = rec(eviction['deleteOptions']);
  const preconditions = rec(body['preconditions']);
  const dryRun = options.dryRun === true || (Array.isArray(body['dryRun']) && body['dryRun'].includes('All'));
  return {
    ...(dryRun ? { dryRun: true } : {}),
    ...(typeof body['gracePeriodSeconds'] === 'number' ? { gracePeriodSeconds: body['gracePeriodSeconds'] } : {}),
    ...(typeof body['propagationPolicy'] === 'string' ? { propagationPolicy: body['propagationPolicy'] as DeleteOptions['propagationPolicy'] & string } : {}),
    ...(typeof body['orphanDependents'] === 'boolean' ? { orphanDependents: body['orphanDependents'] } : {}),
    ...(Object.keys(preconditions).length > 0
      ? {
          preconditions: {
            ...(typeof preconditions['uid'] === 'string' ? { uid: preconditions['uid'] } : {}),
            ...(typeof preconditions['resourceVersion'] === 'string' ? { resourceVersion: preconditions['resourceVersion'] } : {}),
          },
        }
      : {}),
  };
}

function withResourceVersion(options: DeleteOptions, resourceVersion: string | undefined): DeleteOptions {
  return { ...options, preconditions: { ...options.preconditions, ...(resourceVersion !== undefined ? { resourceVersion } : {}) } };
}

/** The PDBs of the pod's namespace whose selector matches it (an absent or empty selector matches nothing). */
async function matchingBudgets(budgets: RestResource, req: RequestContext, pod: KubeObject): Promise<KubeObject[]> {
  const list = await budgets.lister!.list({ namespace: req.namespace }, {});
  return list.items.filter((pdb) => {
    const selector = rec(pdb['spec'])['selector'];
    if (selector === undefined || selector === null) return false;
    try {
      const parsed = labelSelectorFromObject(selector as LabelSelectorObject);
      return !parsed.empty && parsed.matches(pod.metadata.labels ?? {});
    } catch {
      return false;
    }
  });
}

/** kube's UpdateDisruptionAllowedCondition once disruptionsAllowed reaches 0. */
function markInsufficient(status: Rec): void {
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]).map(rec) : [];
  const index = conditions.findIndex((c) => c['type'] === 'DisruptionAllowed');
  const old = index >= 0 ? conditions[index]! : undefined;
  const condition: Rec = {
    type: 'DisruptionAllowed',
    status: 'False',
    observedGeneration: status['observedGeneration'] ?? 0,
    lastTransitionTime: old !== undefined && old['status'] === 'False' ? old['lastTransitionTime'] : nowRFC3339(),
    reason: 'InsufficientPods',
    message: typeof old?.['message'] === 'string' ? old['message'] : '',
  };
  if (index >= 0) conditions[index] = condition;
  else conditions.push(condition);
  status['conditions'] = conditions;
}

/** kube's checkAndDecrement: refuses, or writes the PDB's status with one disruption fewer (nothing on dryRun). */
async function checkAndDecrement(budgets: RestResource, req: RequestContext, podName: string, pdb: KubeObject, dryRun: boolean): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const status = structuredClone(rec(pdb['status']));
  if (num(status['observedGeneration']) < num(pdb.metadata.generation)) throw stillProcessing(name);
  const allowed = num(status['disruptionsAllowed']);
  if (allowed < 0) throw forbidden(PDB_RESOURCE, name, 'pdb disruptions allowed is negative');
  if (Object.keys(rec(status['disruptedPods'])).length > MAX_DISRUPTED_PODS) {
    throw forbidden(PDB_RESOURCE, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (allowed === 0) {
    throw budgetRefusal(0, `The disruption budget ${name} needs ${num(status['desiredHealthy'])} healthy pods and has ${num(status['currentHealthy'])} currently`);
  }
  status['disruptionsAllowed'] = allowed - 1;
  if (allowed - 1 === 0) markInsufficient(status);
  if (dryRun) return;
  status['disruptedPods'] = { ...rec(status['disruptedPods']), [podName]: nowRFC3339() };
  const updated = { ...pdb, apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', status };
  await budgets.subresources!.get('status')!.updater!.update(req, name, updated, {});
}

async function evict(store: SubresourceStore, req: RequestContext, name: string, body: unknown, options: WriteOptions): Promise<Status> {
  const eviction = rec(body);
  if (rec(eviction['metadata'])['name'] !== name) throw badRequest('name in URL does not match name in Eviction object');
  const deleteOptions = deleteOptionsOf(eviction, options);
  const rvGiven = deleteOptions.preconditions?.resourceVersion !== undefined;

  // A pod that is Pending, terminal or being deleted disrupts nothing: delete it (retrying conflicts unless the client set a resourceVersion).
  let pod: KubeObject | undefined;
  for (let attempt = 0; ; attempt++) {
    pod = await store.get(req, name);
    const ignoresBudgets = phaseOf(pod) === 'Pending' || isTerminal(pod) || pod.metadata.deletionTimestamp !== undefined;
    if (!ignoresBudgets) break;
    const enforceVersion = !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined && !rvGiven;
    try {
      await store.delete(req, name, enforceVersion ? withResourceVersion(deleteOptions, pod.metadata.resourceVersion) : deleteOptions);
      return SUCCESS;
    } catch (err) {
      if (!isConflict(err) || rvGiven || attempt + 1 >= CONFLICT_RETRIES) throw err;
    }
  }

  const budgets = store.lookup('policy', 'poddisruptionbudgets');
  let pdbName = '';
  let checkReadiness = false;
  if (budgets?.lister !== undefined) {
    const matching = await matchingBudgets(budgets, req, pod);
    if (matching.length > 1) {
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 };
    }
    let pdb = matching[0];
    if (pdb !== undefined) {
      pdbName = pdb.metadata.name ?? '';
      const spec = rec(pdb['spec']);
      const status = rec(pdb['status']);
      const unhealthyMayGo =
        spec['unhealthyPodEvictionPolicy'] === 'AlwaysAllow' ||
        (num(status['currentHealthy']) >= num(status['desiredHealthy']) && num(status['desiredHealthy']) > 0);
      if (!isReady(pod) && unhealthyMayGo) checkReadiness = true;
      else {
        for (let attempt = 0; ; attempt++) {
          try {
            await checkAndDecrement(budgets, req, name, pdb, deleteOptions.dryRun === true);
            break;
          } catch (err) {
            if (!isConflict(err)) throw err;
            if (attempt + 1 >= CONFLICT_RETRIES) throw timeout(`couldn't update PodDisruptionBudget ${JSON.stringify(pdbName)} due to conflicts`, 10);
            pdb = await budgets.getter!.get(req, pdbName, {});
          }
        }
      }
    }
  }
  // An unready pod may go while the budget holds, as long as it has not become ready since it was read.
  const finalOptions = checkReadiness ? withResourceVersion(deleteOptions, pod.metadata.resourceVersion) : deleteOptions;
  try {
    await store.delete(req, name, finalOptions);
  } catch (err) {
    if (isConflict(err) && checkReadiness && !rvGiven) throw stillProcessing(pdbName);
    throw err;
  }
  return SUCCESS;
}

/** pods/eviction: POST a policy/v1 (or v1beta1) Eviction named as the pod. */
export function evictionSubresource(store: SubresourceStore): RestSubresource {
  return {
    name: 'eviction',
    kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
    creater: { create: (req, name, body, options) => evict(store, req, name, body, options) },
  };
}
