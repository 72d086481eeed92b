/**
 * autoscaling/v1 HorizontalPodAutoscaler as a view of the stored autoscaling/v2 object, with
 * kube's conversion: the CPU utilization metric is `targetCPUUtilizationPercentage` (and
 * `status.currentCPUUtilizationPercentage`); what v1 has no field for travels in annotations —
 * other metrics (`autoscaling.alpha.kubernetes.io/metrics`, in v1's MetricSpec shape), their
 * current values (`.../current-metrics`), conditions (`.../conditions`) and behavior
 * (`.../behavior`, written with Go's field names as kube does) — so a v1 round trip loses
 * nothing. Pure functions over private copies.
 */
import type { KubeObject } from '@kapi/machinery';
import { isPlainObject } from '@kapi/machinery';

type Json = Record<string, unknown>;

export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ANNOTATIONS = [METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

const rec = (v: unknown): Json => (isPlainObject(v) ? v : {});
/** An object without its undefined entries (key order kept). */
const compact = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function isCpuUtilization(metric: Json): boolean {
  const resource = rec(metric['resource']);
  return metric['type'] === 'Resource' && resource['name'] === 'cpu' && rec(resource['target'])['averageUtilization'] !== undefined;
}

/** A CrossVersionObjectReference in Go's field order (kind, name, apiVersion), as kube's JSON has it. */
function crossVersionRef(ref: unknown): Json {
  const r = rec(ref);
  return compact({ kind: r['kind'], name: r['name'], apiVersion: r['apiVersion'] });
}

/** A v2 MetricSpec in v1's annotation shape. */
function metricToV1(m: Json): Json {
  const type = m['type'];
  if (type === 'Resource' || type === 'ContainerResource') {
    const key = type === 'Resource' ? 'resource' : 'containerResource';
    const s = rec(m[key]);
    const t = rec(s['target']);
    return { type, [key]: compact({ name: s['name'], targetAverageUtilization: t['averageUtilization'], targetAverageValue: t['averageValue'], container: s['container'] }) };
  }
  if (type === 'Pods') {
    const s = rec(m['pods']);
    const metric = rec(s['metric']);
    return { type, pods: compact({ metricName: metric['name'], targetAverageValue: rec(s['target'])['averageValue'], selector: metric['selector'] }) };
  }
  if (type === 'Object') {
    const s = rec(m['object']);
    const metric = rec(s['metric']);
    const t = rec(s['target']);
    // v1's targetValue is a plain Quantity: always written, "0" when the target is an average.
    return { type, object: compact({ target: crossVersionRef(s['describedObject']), metricName: metric['name'], targetValue: t['value'] ?? '0', selector: metric['selector'], averageValue: t['averageValue'] }) };
  }
  if (type === 'External') {
    const s = rec(m['external']);
    const metric = rec(s['metric']);
    const t = rec(s['target']);
    return { type, external: compact({ metricName: metric['name'], metricSelector: metric['selector'], targetValue: t['value'], targetAverageValue: t['averageValue'] }) };
  }
  return { type };
}

/** A v1 annotation MetricSpec as v2. */
function metricToV2(m: Json): Json {
  const type = m['type'];
  const target = (value: unknown, average: unknown, utilization?: unknown): Json =>
    utilization !== undefined
      ? { type: 'Utilization', averageUtilization: utilization }
      : average !== undefined
        ? { type: 'AverageValue', averageValue: average }
        : { type: 'Value', value: value };
  if (type === 'Resource' || type === 'ContainerResource') {
    const key = type === 'Resource' ? 'resource' : 'containerResource';
    const s = rec(m[key]);
    return { type, [key]: compact({ name: s['name'], container: s['container'], target: target(undefined, s['targetAverageValue'], s['targetAverageUtilization']) }) };
  }
  if (type === 'Pods') {
    const s = rec(m['pods']);
    return { type, pods: { metric: compact({ name: s['metricName'], selector: s['selector'] }), target: { type: 'AverageValue', averageValue: s['targetAverageValue'] } } };
  }
  if (type === 'Object') {
    const s = rec(m['object']);
    const value = s['averageValue'] !== undefined && (s['targetValue'] === '0' || s['targetValue'] === 0) ? undefined : s['targetValue'];
    return { type, object: { describedObject: s['target'], metric: compact({ name: s['metricName'], selector: s['selector'] }), target: compact(target(value, s['averageValue'])) } };
  }
  if (type === 'External') {
    const s = rec(m['external']);
    return { type, external: { metric: compact({ name: s['metricName'], selector: s['metricSelector'] }), target: compact(target(s['targetValue'], s['targetAverageValue'])) } };
  }
  return { type };
}

/** A v2 MetricStatus in v1's annotation shape. */
function statusToV1(m: Json): Json {
  const type = m['type'];
  if (type === 'Resource' || type === 'ContainerResource') {
    const key = type === 'Resource' ? 'resource' : 'containerResource';
    const s = rec(m[key]);
    const c = rec(s['current']);
    return { type, [key]: compact({ name: s['name'], currentAverageUtilization: c['averageUtilization'], currentAverageValue: c['averageValue'] ?? '0', container: s['container'] }) };
  }
  if (type === 'Pods') {
    const s = rec(m['pods']);
    const metric = rec(s['metric']);
    return { type, pods: compact({ metricName: metric['name'], currentAverageValue: rec(s['current'])['averageValue'] ?? '0', selector: metric['selector'] }) };
  }
  if (type === 'Object') {
    const s = rec(m['object']);
    const metric = rec(s['metric']);
    const c = rec(s['current']);
    return { type, object: compact({ target: crossVersionRef(s['describedObject']), metricName: metric['name'], currentValue: c['value'] ?? '0', selector: metric['selector'], averageValue: c['averageValue'] }) };
  }
  if (type === 'External') {
    const s = rec(m['external']);
    const metric = rec(s['metric']);
    const c = rec(s['current']);
    return { type, external: compact({ metricName: metric['name'], metricSelector: metric['selector'], currentValue: c['value'] ?? '0', currentAverageValue: c['averageValue'] }) };
  }
  return { type };
}

/** A v1 annotation MetricStatus as v2. */
function statusToV2(m: Json): Json {
  const type = m['type'];
  if (type === 'Resource' || type === 'ContainerResource') {
    const key = type === 'Resource' ? 'resource' : 'containerResource';
    const s = rec(m[key]);
    return { type, [key]: compact({ name: s['name'], container: s['container'], current: compact({ averageUtilization: s['currentAverageUtilization'], averageValue: s['currentAverageValue'] }) }) };
  }
  if (type === 'Pods') {
    const s = rec(m['pods']);
    return { type, pods: { metric: compact({ name: s['metricName'], selector: s['selector'] }), current: { averageValue: s['currentAverageValue'] } } };
  }
  if (type === 'Object') {
    const s = rec(m['object']);
    return { type, object: { describedObject: s['target'], metric: compact({ name: s['metricName'], selector: s['selector'] }), current: compact({ value: s['currentValue'], averageValue: s['averageValue'] }) } };
  }
  if (type === 'External') {
    const s = rec(m['external']);
    return { type, external: { metric: compact({ name: s['metricName'], selector: s['metricSelector'] }), current: compact({ value: s['currentValue'], averageValue: s['currentAverageValue'] }) } };
  }
  return { type };
}

/** Behavior as kube writes it into the annotation: Go field names, absent pointers as null. */
function behaviorToGo(b: Json): Json {
  const rules = (r: unknown): Json | null => {
    if (!isPlainObject(r)) return null;
    return {
      StabilizationWindowSeconds: r['stabilizationWindowSeconds'] ?? null,
      SelectPolicy: r['selectPolicy'] ?? null,
      Policies: Array.isArray(r['policies']) ? r['policies'].map((p) => ({ Type: rec(p)['type'], Value: rec(p)['value'], PeriodSeconds: rec(p)['periodSeconds'] })) : null,
    };
  };
  return { ScaleUp: rules(b['scaleUp']), ScaleDown: rules(b['scaleDown']) };
}

function behaviorFromGo(b: Json): Json {
  const rules = (r: unknown): Json | undefined => {
    if (!isPlainObject(r)) return undefined;
    return compact({
      stabilizationWindowSeconds: r['StabilizationWindowSeconds'] ?? undefined,
      selectPolicy: r['SelectPolicy'] ?? undefined,
      policies: Array.isArray(r['Policies']) ? r['Policies'].map((p) => ({ type: rec(p)['Type'], value: rec(p)['Value'], periodSeconds: rec(p)['PeriodSeconds'] })) : undefined,
    });
  };
  return compact({ scaleUp: rules(b['ScaleUp']), scaleDown: rules(b['ScaleDown']) });
}

function parseAnnotation(annotations: Record<string, string>, key: string): unknown {
  const raw = annotations[key];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** The stored v2 object as autoscaling/v1. */
export function hpaToV1(stored: KubeObject): KubeObject {
  const spec = rec(stored['spec']);
  const status = rec(stored['status']);
  const annotations: Record<string, string> = { ...(stored.metadata.annotations ?? {}) };
  for (const key of ANNOTATIONS) delete annotations[key];
  const metrics = (Array.isArray(spec['metrics']) ? spec['metrics'] : []).map(rec);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricToV1);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (isPlainObject(spec['behavior'])) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(behaviorToGo(spec['behavior']));
  const current = (Array.isArray(status['currentMetrics']) ? status['currentMetrics'] : []).map(rec);
  const cpuCurrent = current.find((m) => m['type'] === 'Resource' && rec(m['resource'])['name'] === 'cpu');
  if (current.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(statusToV1));
  const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
  if (conditions.length > 0) {
    const v1Conditions = conditions.map(rec).map((c) => compact({ type: c['type'], status: c['status'], lastTransitionTime: c['lastTransitionTime'] ?? null, reason: c['reason'], message: c['message'] }));
    annotations[CONDITIONS_ANNOTATION] = JSON.stringify(v1Conditions);
  }
  const metadata = { ...stored.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    ...(stored['spec'] === undefined
      ? {}
      : {
          spec: compact({
            scaleTargetRef: spec['scaleTargetRef'],
            minReplicas: spec['minReplicas'],
            maxReplicas: spec['maxReplicas'],
            targetCPUUtilizationPercentage: cpu === undefined ? undefined : rec(rec(cpu['resource'])['target'])['averageUtilization'],
          }),
        }),
    // v1's replica counts are written even when zero (v2 omits currentReplicas at 0).
    ...(stored['status'] === undefined
      ? {}
      : {
          status: compact({
            observedGeneration: status['observedGeneration'],
            lastScaleTime: status['lastScaleTime'],
            currentReplicas: status['currentReplicas'] ?? 0,
            desiredReplicas: status['desiredReplicas'] ?? 0,
            currentCPUUtilizationPercentage: cpuCurrent === undefined ? undefined : rec(rec(cpuCurrent['resource'])['current'])['averageUtilization'],
          }),
        }),
  };
}

/** A v1 object in the stored v2 form (the annotations become fields again). */
export function hpaFromV1(obj: KubeObject): KubeObject {
  const spec = rec(obj['spec']);
  const status = rec(obj['status']);
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  const otherMetrics = parseAnnotation(annotations, METRICS_ANNOTATION);
  const currentMetrics = parseAnnotation(annotations, CURRENT_METRICS_ANNOTATION);
  const conditions = parseAnnotation(annotations, CONDITIONS_ANNOTATION);
  const behavior = parseAnnotation(annotations, BEHAVIOR_ANNOTATION);
  for (const key of ANNOTATIONS) delete annotations[key];
  const metrics: Json[] = Array.isArray(otherMetrics) ? otherMetrics.map((m) => metricToV2(rec(m))) : [];
  const cpu = spec['targetCPUUtilizationPercentage'];
  if (typeof cpu === 'number') metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } } });
  const current: Json[] = Array.isArray(currentMetrics) ? currentMetrics.map((m) => statusToV2(rec(m))) : [];
  const cpuCurrent = status['currentCPUUtilizationPercentage'];
  if (typeof cpuCurrent === 'number' && !current.some((m) => m['type'] === 'Resource' && rec(m['resource'])['name'] === 'cpu')) {
    current.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpuCurrent } } });
  }
  const metadata = { ...obj.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    ...(obj['spec'] === undefined
      ? {}
      : {
          spec: compact({
            scaleTargetRef: spec['scaleTargetRef'],
            minReplicas: spec['minReplicas'],
            maxReplicas: spec['maxReplicas'],
            metrics: metrics.length > 0 ? metrics : undefined,
            behavior: isPlainObject(behavior) ? behaviorFromGo(behavior) : undefined,
          }),
        }),
    ...(obj['status'] === undefined
      ? {}
      : {
          status: compact({
            observedGeneration: status['observedGeneration'],
            lastScaleTime: status['lastScaleTime'],
            currentReplicas: status['currentReplicas'] === 0 ? undefined : status['currentReplicas'],
            desiredReplicas: status['desiredReplicas'] ?? 0,
            currentMetrics: current.length > 0 ? current : undefined,
            conditions: Array.isArray(conditions) && conditions.length > 0 ? conditions.map((c) => compact(rec(c))).map((c) => (c['lastTransitionTime'] === null ? (({ lastTransitionTime: _l, ...rest }) => rest)(c) : c)) : undefined,
          }),
        }),
  };
}
