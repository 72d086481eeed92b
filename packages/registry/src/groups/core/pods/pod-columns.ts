/**
 * kubectl's pod columns as kube prints them server-side: NAME READY STATUS RESTARTS AGE, and
 * with -o wide IP NODE NOMINATED NODE READINESS GATES. STATUS is kube's summary of the phase,
 * init and app container states, scheduling gates and deletion; RESTARTS adds `(<age> ago)`
 * of the last restart.
 */
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { ageColumn, column, nameColumn, timestampSince } from '@kapi/machinery';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

function list(value: unknown): Rec[] {
  return Array.isArray(value) ? value.map(rec) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** A restartable (sidecar) init container: restartPolicy Always. */
function isRestartable(container: Rec | undefined): boolean {
  return container !== undefined && container['restartPolicy'] === 'Always';
}

function terminatedAt(status: Rec): number | undefined {
  const finished = str(rec(rec(status['lastState'])['terminated'])['finishedAt']);
  const at = Date.parse(finished);
  return finished === '' || Number.isNaN(at) ? undefined : at;
}

function hasCondition(pod: KubeObject, type: string, status?: string): boolean {
  return list(rec(pod['status'])['conditions']).some((c) => c['type'] === type && (status === undefined || c['status'] === status));
}

interface Summary {
  ready: string;
  reason: string;
  restarts: string;
}

/** kube's printPod: readiness, status reason and restarts of one pod at `now`. */
export function podSummary(pod: KubeObject, now: number): Summary {
  const spec = rec(pod['spec']);
  const status = rec(pod['status']);
  const initSpecs = new Map(list(spec['initContainers']).map((c) => [str(c['name']), c]));
  let total = list(spec['containers']).length + [...initSpecs.values()].filter(isRestartable).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined) => (b !== undefined && (a === undefined || b > a) ? b : a);
  const phase = str(status['phase']);
  let reason = str(status['reason']) !== '' ? str(status['reason']) : phase;
  if (list(status['conditions']).some((c) => c['type'] === 'PodScheduled' && c['reason'] === 'SchedulingGated')) reason = 'SchedulingGated';

  let initializing = false;
  const initStatuses = list(status['initContainerStatuses']);
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i]!;
    const state = rec(container['state']);
    const terminated = state['terminated'] !== undefined ? rec(state['terminated']) : undefined;
    const waiting = state['waiting'] !== undefined ? rec(state['waiting']) : undefined;
    restarts += num(container['restartCount']);
    lastRestart = later(lastRestart, terminatedAt(container));
    const restartable = isRestartable(initSpecs.get(str(container['name'])));
    if (restartable) {
      sidecarRestarts += num(container['restartCount']);
      lastSidecarRestart = later(lastSidecarRestart, terminatedAt(container));
    }
    if (terminated !== undefined && num(terminated['exitCode']) === 0) continue;
    if (restartable && container['started'] === true) {
      if (container['ready'] === true) ready++;
      continue;
    }
    if (terminated !== undefined) {
      const why = str(terminated['reason']);
      if (why !== '') reason = `Init:${why}`;
      else if (num(terminated['signal']) !== 0) reason = `Init:Signal:${num(terminated['signal'])}`;
      else reason = `Init:ExitCode:${num(terminated['exitCode'])}`;
    } else if (waiting !== undefined && str(waiting['reason']) !== '' && str(waiting['reason']) !== 'PodInitializing') {
      reason = `Init:${str(waiting['reason'])}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(pod, 'Initialized', 'True')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status['containerStatuses']);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i]!;
      const state = rec(container['state']);
      restarts += num(container['restartCount']);
      lastRestart = later(lastRestart, terminatedAt(container));
      const waiting = state['waiting'] !== undefined ? rec(state['waiting']) : undefined;
      const terminated = state['terminated'] !== undefined ? rec(state['terminated']) : undefined;
      if (waiting !== undefined && str(waiting['reason']) !== '') reason = str(waiting['reason']);
      else if (terminated !== undefined && str(terminated['reason']) !== '') reason = str(terminated['reason']);
      else if (terminated !== undefined) {
        reason = num(terminated['signal']) !== 0 ? `Signal:${num(terminated['signal'])}` : `ExitCode:${num(terminated['exitCode'])}`;
      } else if (container['ready'] === true && state['running'] !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
  if (deleting && str(status['reason']) === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  let restartText = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) restartText = `${restarts} (${timestampSince(new Date(lastRestart).toISOString(), now)} ago)`;
  total = Math.max(total, 0);
  return { ready: `${ready}/${total}`, reason, restarts: restartText };
}

function none(value: string): string {
  return value === '' ? '<none>' : value;
}

function readinessGates(pod: KubeObject): string {
  const gates = list(rec(pod['spec'])['readinessGates']);
  if (gates.length === 0) return '<none>';
  const conditions = list(rec(pod['status'])['conditions']);
  const satisfied = gates.filter((g) => conditions.find((c) => c['type'] === g['conditionType'])?.['status'] === 'True').length;
  return `${satisfied}/${gates.length}`;
}

export const podColumns: readonly PrinterColumn[] = [
  nameColumn,
  column('Ready', 'string', 'Ready containers out of all containers (restartable init containers included).', (pod, now) => podSummary(pod, now).ready),
  column('Status', 'string', 'A summary of the phase and the containers\' states.', (pod, now) => podSummary(pod, now).reason),
  column('Restarts', 'string', 'Container restarts, with the time since the last one.', (pod, now) => podSummary(pod, now).restarts),
  ageColumn,
  column('IP', 'string', 'The first of the pod\'s IPs.', (pod) => none(str(list(rec(pod['status'])['podIPs'])[0]?.['ip'])), { priority: 1 }),
  column('Node', 'string', 'The node the pod is bound to.', (pod) => none(str(rec(pod['spec'])['nodeName'])), { priority: 1 }),
  column('Nominated Node', 'string', 'The node preemption made room on, if any.', (pod) => none(str(rec(pod['status'])['nominatedNodeName'])), { priority: 1 }),
  column('Readiness Gates', 'string', 'Satisfied readiness gates out of all of them.', readinessGates, { priority: 1 }),
];
