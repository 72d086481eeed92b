/**
 * autoscaling/v2 HorizontalPodAutoscaler. Defaults: minReplicas 1, a CPU utilization target
 * of 80% when no metric is given, and, when behavior is given, kube's scale-up (0 s window,
 * Max of 4 pods or 100% per 15 s) and scale-down (Max of 100% per 15 s) rules filled in.
 * Validation: the target's kind and name, minReplicas ≥ 1 (0 also needs an Object or
 * External metric), maxReplicas > 0 and not below minReplicas. `kubectl get hpa`: REFERENCE TARGETS MINPODS MAXPODS REPLICAS.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldForbidden, fieldInvalid, fieldRequired, isPlainObject, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { hpaFromV1, hpaToV1 } from './hpa-v1.js';
import { ensureRecord, intAt, setIfAbsent, specOf, statusOf, workloadStatusHooks } from '../apps/pod-controller.js';

type Json = Record<string, unknown>;

function defaultRules(rules: Json, policies: Json[], window: number | undefined): void {
  if (window !== undefined) setIfAbsent(rules, 'stabilizationWindowSeconds', window);
  setIfAbsent(rules, 'selectPolicy', 'Max');
  setIfAbsent(rules, 'policies', policies);
}

function defaultHpa(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  // autoscaling/v1: minReplicas, and the 80% CPU target kube's v2 defaulting gives a stored
  // object without metrics when it is read back.
  if (obj.apiVersion === 'autoscaling/v1') {
    setIfAbsent(spec, 'minReplicas', 1);
    const otherMetrics = obj.metadata.annotations?.['autoscaling.alpha.kubernetes.io/metrics'];
    if (otherMetrics === undefined) setIfAbsent(spec, 'targetCPUUtilizationPercentage', 80);
    return;
  }
  setIfAbsent(spec, 'minReplicas', 1);
  if (!Array.isArray(spec['metrics']) || spec['metrics'].length === 0) {
    spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  const behavior = recordAt(spec, 'behavior');
  if (behavior !== undefined) {
    defaultRules(ensureRecord(behavior, 'scaleUp'), [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }], 0);
    defaultRules(ensureRecord(behavior, 'scaleDown'), [{ type: 'Percent', value: 100, periodSeconds: 15 }], undefined);
  }
}

function validateHpa(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const ref = recordAt(spec, 'scaleTargetRef') ?? {};
  if (typeof ref['kind'] !== 'string' || ref['kind'] === '') errs.push(fieldRequired('spec.scaleTargetRef.kind'));
  if (typeof ref['name'] !== 'string' || ref['name'] === '') errs.push(fieldRequired('spec.scaleTargetRef.name'));
  const min = spec['minReplicas'];
  const max = intAt(spec, 'maxReplicas');
  if (typeof min === 'number' && min < 1) errs.push(fieldInvalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than 0'));
  else if (typeof min === 'number' && max < min) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  const metrics = Array.isArray(spec['metrics']) ? spec['metrics'] : [];
  if (min === 0 && !metrics.some((m) => isPlainObject(m) && (m['type'] === 'Object' || m['type'] === 'External'))) {
    errs.push(fieldForbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  return errs;
}

const UNKNOWN = '<unknown>';

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** One metric as kubectl's TARGETS prints it: `<current>/<target>`, prefixed by the resource name for resource metrics. */
function formatMetric(spec: Json, status: Json | undefined): string {
  const type = spec['type'];
  const key = { External: 'external', Pods: 'pods', Object: 'object', Resource: 'resource', ContainerResource: 'containerResource' }[String(type)];
  if (key === undefined) return '<unknown type>';
  const source = recordAt(spec, key) ?? {};
  const target = recordAt(source, 'target') ?? {};
  const current = recordAt(recordAt(status ?? {}, key) ?? {}, 'current');
  if (type === 'Resource' || type === 'ContainerResource') {
    const name = String(source['name'] ?? '');
    if (target['averageValue'] !== undefined) return `${name}: ${text(current?.['averageValue']) ?? UNKNOWN}/${text(target['averageValue'])}`;
    const utilization = current?.['averageUtilization'];
    const wanted = target['averageUtilization'];
    return `${name}: ${typeof utilization === 'number' ? `${utilization}%` : UNKNOWN}/${typeof wanted === 'number' ? `${wanted}%` : '<auto>'}`;
  }
  if (type === 'Pods') return `${text(current?.['averageValue']) ?? UNKNOWN}/${text(target['averageValue'])}`;
  if (target['averageValue'] !== undefined) return `${text(current?.['averageValue']) ?? UNKNOWN}/${text(target['averageValue'])} (avg)`;
  return `${text(current?.['value']) ?? UNKNOWN}/${text(target['value'])}`;
}

function targets(obj: KubeObject): string {
  const metrics = specOf(obj)['metrics'];
  if (!Array.isArray(metrics) || metrics.length === 0) return '<none>';
  const statuses = statusOf(obj)['currentMetrics'];
  const list = metrics.map((m, i) => formatMetric(isPlainObject(m) ? m : {}, Array.isArray(statuses) && isPlainObject(statuses[i]) ? statuses[i] : undefined));
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

/** kubectl's NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE. */
export const hpaColumns = [
  nameColumn,
  column('Reference', 'string', 'The kind and name of the scaled resource.', (obj) => {
    const ref = recordAt(specOf(obj), 'scaleTargetRef') ?? {};
    return `${String(ref['kind'] ?? '')}/${String(ref['name'] ?? '')}`;
  }),
  column('Targets', 'string', 'Current and target values of each metric.', targets),
  column('MinPods', 'string', 'The lower limit of replicas.', (obj) => (typeof specOf(obj)['minReplicas'] === 'number' ? String(specOf(obj)['minReplicas']) : '<unset>')),
  column('MaxPods', 'string', 'The upper limit of replicas.', (obj) => intAt(specOf(obj), 'maxReplicas')),
  column('Replicas', 'string', 'The current number of replicas.', (obj) => intAt(statusOf(obj), 'currentReplicas')),
  ageColumn,
];

export const hpaOverride: ResourceOverride = (generated) => ({
  ...generated,
  versions: generated.versions.map((v) => (v.name === 'v1' ? { ...v, fromStorage: hpaToV1, toStorage: hpaFromV1 } : v)),
  printerColumns: hpaColumns,
  strategy: builtinStrategy({
    decode: defaultHpa,
    validate: validateHpa,
    ...workloadStatusHooks(['desiredReplicas']),
  }),
});
