/**
 * policy/v1 PodDisruptionBudget: at most one of minAvailable and maxUnavailable, each a
 * non-negative integer or a percent up to 100%; unhealthyPodEvictionPolicy AlwaysAllow or
 * IfHealthyBudget. Go writes the status counters even when zero. `kubectl get pdb`:
 * MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldInvalid, fieldNotSupported, nameColumn } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy } from '../../builtin/builtin-strategy.js';
import { goIntOrString } from '../apps/go-syntax.js';
import { intAt, invalidGo, specOf, statusOf, workloadStatusHooks } from '../apps/pod-controller.js';

const PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

function validateIntOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'number') return value < 0 ? [fieldInvalid(path, value, 'must be greater than or equal to 0')] : [];
  if (typeof value !== 'string') return [];
  if (!/^[0-9]+%$/.test(value)) return [invalidGo(path, goIntOrString(value), PERCENT_MESSAGE)];
  return Number(value.slice(0, -1)) > 100 ? [invalidGo(path, goIntOrString(value), 'must not be greater than 100%')] : [];
}

function validatePdb(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (spec['minAvailable'] !== undefined && spec['maxUnavailable'] !== undefined) {
    errs.push(invalidGo('spec', 'policy.PodDisruptionBudgetSpec{...}', 'minAvailable and maxUnavailable cannot be both set'));
  }
  errs.push(...validateIntOrPercent(spec['minAvailable'], 'spec.minAvailable'));
  errs.push(...validateIntOrPercent(spec['maxUnavailable'], 'spec.maxUnavailable'));
  const policy = spec['unhealthyPodEvictionPolicy'];
  if (policy !== undefined && policy !== 'AlwaysAllow' && policy !== 'IfHealthyBudget') {
    errs.push(fieldNotSupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  }
  return errs;
}

const intOrNA = (value: unknown) => (value === undefined ? 'N/A' : String(value));

/** kubectl's NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE. */
export const pdbColumns = [
  nameColumn,
  column('Min Available', 'string', 'The minimum number or percentage of pods that must stay available.', (obj) => intOrNA(specOf(obj)['minAvailable'])),
  column('Max Unavailable', 'string', 'The maximum number or percentage of pods that may be unavailable.', (obj) => intOrNA(specOf(obj)['maxUnavailable'])),
  column('Allowed Disruptions', 'integer', 'How many pods may be disrupted now.', (obj) => intAt(statusOf(obj), 'disruptionsAllowed')),
  ageColumn,
];

export const pdbOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: pdbColumns,
  strategy: builtinStrategy({
    validate: validatePdb,
    ...workloadStatusHooks(['currentHealthy', 'desiredHealthy', 'disruptionsAllowed', 'expectedPods']),
  }),
});
