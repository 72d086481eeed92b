/**
 * scheduling.k8s.io PriorityClass: kube 1.32's validation. A `system-` name is reserved for
 * kube's system classes (with their values and no globalDefault); any other class may not go
 * above 1000000000; preemptionPolicy is PreemptLowerPriority or Never. On update, value and
 * preemptionPolicy are immutable (and the create checks are not repeated, as in kube).
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldForbidden, fieldInvalid, fieldNotSupported } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { priorityClassColumns } from './columns.js';

const SYSTEM_PREFIX = 'system-';
const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
/** kube's system PriorityClasses: name → value (neither is globalDefault). */
const SYSTEM_CLASSES: Readonly<Record<string, number>> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

type Json = Record<string, unknown>;
const value = (obj: KubeObject): number => (typeof (obj as Json)['value'] === 'number' ? ((obj as Json)['value'] as number) : 0);

/** Why a `system-` class is not one of kube's, or undefined when it is. */
function notSystemClass(name: string, obj: KubeObject): string | undefined {
  const expected = SYSTEM_CLASSES[name];
  if (expected === undefined) return `${name} is not a known system priority class`;
  if (value(obj) !== expected) return `value of ${name} PriorityClass must be ${expected}`;
  if ((obj as Json)['globalDefault'] === true) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

function validateCreate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const why = notSystemClass(name, obj);
    if (why !== undefined) errs.push(fieldForbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`));
  } else if (value(obj) > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fieldForbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = (obj as Json)['preemptionPolicy'];
  if (typeof policy === 'string' && !PREEMPTION_POLICIES.includes(policy)) errs.push(fieldNotSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  return errs;
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (value(obj) !== value(old)) errs.push(fieldForbidden('value', 'may not be changed in an update.'));
  const policy = (obj as Json)['preemptionPolicy'];
  if (policy !== (old as Json)['preemptionPolicy']) errs.push(fieldInvalid('preemptionPolicy', policy, 'field is immutable'));
  return errs;
}

export const priorityClassOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: priorityClassColumns,
  strategy: { ...generated.strategy, validateCreate, validateUpdate },
});
