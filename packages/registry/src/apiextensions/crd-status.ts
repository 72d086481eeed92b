/**
 * The status the CRD controller converges a CustomResourceDefinition to (kube's naming and
 * establishing controllers folded into one pure function): acceptedNames and the
 * NamesAccepted condition (names already taken by another CRD of the same group are
 * refused), Established once the names are accepted, storedVersions including the storage
 * version, and the Terminating condition of a CRD being deleted.
 */
import { nowRFC3339 } from '@kapi/machinery';
import { semanticEqual } from '../semantic-equal.js';
import type { CrdCondition, CrdNames, CrdStatus, CustomResourceDefinition } from './crd-types.js';

/** Terminating condition texts (kube's CRD finalizer). */
export const TERMINATING = {
  inProgress: { reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
  completed: { reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
} as const;

function namesOf(crd: CustomResourceDefinition): CrdNames {
  return crd.status?.acceptedNames?.kind ? crd.status.acceptedNames : {};
}

/** The first name of `crd` that another CRD of the same group already holds, with kube's reason. */
function conflict(crd: CustomResourceDefinition, others: readonly CustomResourceDefinition[], reserved: readonly CrdNames[]): { reason: string; message: string } | undefined {
  const names = crd.spec?.names ?? {};
  const group = crd.spec?.group;
  const taken = [...others.filter((o) => o.metadata.name !== crd.metadata.name && o.spec?.group === group).map(namesOf), ...reserved];
  const resources = new Set(taken.flatMap((n) => [n.plural, n.singular, ...(n.shortNames ?? [])].filter((x): x is string => !!x)));
  const kinds = new Set(taken.flatMap((n) => [n.kind, n.listKind].filter((x): x is string => !!x)));
  const inUse = (name: string) => `${JSON.stringify(name)} is already in use`;
  if (names.plural && resources.has(names.plural)) return { reason: 'PluralConflict', message: inUse(names.plural) };
  if (names.singular && resources.has(names.singular)) return { reason: 'SingularConflict', message: inUse(names.singular) };
  for (const short of names.shortNames ?? []) if (resources.has(short)) return { reason: 'ShortNamesConflict', message: inUse(short) };
  if (names.kind && kinds.has(names.kind)) return { reason: 'KindConflict', message: inUse(names.kind) };
  if (names.listKind && kinds.has(names.listKind)) return { reason: 'ListKindConflict', message: inUse(names.listKind) };
  return undefined;
}

function condition(existing: readonly CrdCondition[], type: string, status: CrdCondition['status'], reason: string, message: string): CrdCondition {
  const old = existing.find((c) => c.type === type);
  const lastTransitionTime = old !== undefined && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : nowRFC3339();
  return { type, status, lastTransitionTime, reason, message };
}

/**
 * The desired status of `crd` given every known CRD and the names of the group's resources
 * that are not CRDs (`reserved`, built-ins). `terminating` sets the Terminating condition.
 */
export function desiredStatus(
  crd: CustomResourceDefinition,
  all: readonly CustomResourceDefinition[],
  terminating?: { reason: string; message: string },
  reserved: readonly CrdNames[] = [],
): CrdStatus {
  const existing = crd.status?.conditions ?? [];
  const clash = conflict(crd, all, reserved);
  const conditions: CrdCondition[] = [];
  const established = existing.find((c) => c.type === 'Established')?.status === 'True';
  if (clash === undefined) {
    conditions.push(condition(existing, 'NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'));
    conditions.push(condition(existing, 'Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'));
  } else {
    conditions.push(condition(existing, 'NamesAccepted', 'False', clash.reason, clash.message));
    if (established) conditions.push(existing.find((c) => c.type === 'Established')!);
    else conditions.push(condition(existing, 'Established', 'False', 'NotAccepted', 'not all names are accepted'));
  }
  if (terminating !== undefined) conditions.push(condition(existing, 'Terminating', 'True', terminating.reason, terminating.message));
  const storage = crd.spec?.versions?.find((v) => v.storage === true)?.name;
  const stored = [...(crd.status?.storedVersions ?? [])];
  if (storage !== undefined && !stored.includes(storage)) stored.push(storage);
  const names = crd.spec?.names ?? {};
  return {
    conditions,
    acceptedNames: clash === undefined ? { ...names } : (crd.status?.acceptedNames ?? {}),
    storedVersions: stored,
  };
}

/** Whether two statuses agree (lastTransitionTime included: `desiredStatus` keeps it stable). */
export function sameStatus(a: CrdStatus | undefined, b: CrdStatus): boolean {
  return semanticEqual(a ?? {}, b);
}
