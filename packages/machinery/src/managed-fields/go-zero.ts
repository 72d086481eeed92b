/**
 * The struct skeleton of a built-in kind's Go zero value, for the field manager's comparisons.
 *
 * kube's field manager compares typed Go objects: a create compares the new object with the
 * kind's zero value, and every object carries its non-pointer structs (a Lease's `spec`, a
 * CRD's `spec.names`, a Deployment's `spec.template.spec`) even when the client left them
 * out. Such a struct is never "added" by a write, so its path gets no `".": {}` entry in
 * managedFields; only its children are recorded. The skeleton holds `{}` for every non-pointer
 * struct field (inline members merged into their parent), from the catalogue's wire facts.
 *
 * Not covered: lists and maps Go writes as null when nil (no omitempty), which the wire facts
 * do not tell apart from omitempty ones; scalars (their zero values only matter to writes of
 * that same zero value).
 */
import { wireMessage } from '@kapi/catalog';
import { isPlainObject } from '../object.js';

export type ZeroSkeleton = Readonly<Record<string, unknown>>;

const skeletons = new Map<string, ZeroSkeleton>();

function fill(out: Record<string, unknown>, message: string): void {
  for (const field of wireMessage(message)?.fields ?? []) {
    if (field.kind !== 'message' || field.message === undefined || field.container !== undefined || field.presence === 'pointer') continue;
    if (field.json === undefined) fill(out, field.message);
    else out[field.json] = goZeroSkeleton(field.message);
  }
}

/** The skeleton of protobuf message `message` (`k8s.io.api.coordination.v1.Lease`); `{}` when unknown. Shared: never mutate it. */
export function goZeroSkeleton(message: string): ZeroSkeleton {
  let skeleton = skeletons.get(message);
  if (skeleton === undefined) {
    const out: Record<string, unknown> = {};
    fill(out, message);
    skeleton = Object.freeze(out);
    skeletons.set(message, skeleton);
  }
  return skeleton;
}

/**
 * `value` with the structs of `skeleton` it lacks added as `{}` (recursively into the structs
 * it has). Returns `value` itself when nothing is missing; never mutates it (changed levels
 * are shallow copies, the rest is shared).
 */
export function withGoZeroStructs(value: unknown, skeleton: ZeroSkeleton | undefined): unknown {
  if (skeleton === undefined || !isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, child] of Object.entries(skeleton)) {
    const present = Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
    const filled = present === undefined ? child : withGoZeroStructs(present, child as ZeroSkeleton);
    if (filled === present) continue;
    out ??= { ...value };
    out[key] = filled;
  }
  return out ?? value;
}
