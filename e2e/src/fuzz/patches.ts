/**
 * Patches of every type kube takes: JSON patch (RFC 6902 operations on valid, odd and
 * malformed pointers), JSON merge patch and strategic merge patch (partial objects, nulls and
 * the `$patch`/`$retainKeys`/`$setElementOrder`/`$deleteFromPrimitiveList` directives), and
 * server-side apply (a whole object as YAML or JSON). Bodies may be mutated like objects.
 */
import fc from 'fast-check';
import { oddValue, text } from './values.js';
import { copy } from './mutations.js';
import { RawLiteral, toJsonText, toYamlText } from './wire-text.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

const pointer = fc.oneof(
  { arbitrary: fc.constantFrom('/metadata/labels/fz', '/metadata/labels', '/metadata/annotations/a~1b', '/data/k', '/data', '/spec', '/spec/size', '/spec/holderIdentity', '/spec/tags/-', '/spec/ports/0', '/metadata/finalizers/-', '/metadata/finalizers/0', '/metadata/ownerReferences/0/uid', '/stringData/s', '/binaryData/b', '/type', '/immutable', '/involvedObject/name', '/note', '/status/phase', '/status/replicas'), weight: 6 },
  { arbitrary: fc.constantFrom('/metadata/name', '/metadata/namespace', '/metadata/resourceVersion', '/metadata/uid', '/metadata/generation', '/metadata/creationTimestamp', '/metadata/deletionTimestamp', '/metadata/managedFields', '/kind', '/apiVersion'), weight: 3 },
  { arbitrary: fc.constantFrom('', '/', 'metadata', '/a~2b', '/~', '/data/\u00e9', '/spec/ports/99999999999999999999', '/spec/tags/-1', '/spec/tags/01', `/${'a/'.repeat(2000)}x`, '/metadata/labels/'.padEnd(300, 'x')), weight: 2 },
  { arbitrary: text.map((t) => `/${t}`), weight: 1 },
);

const jsonPatchOp = fc.record(
  {
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'ADD', 'bogus', ''),
    path: pointer,
    from: pointer,
    value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), oddValue.map((v) => v.value)),
  },
  { requiredKeys: ['op', 'path'] },
);

/** How a JSON patch body is shaped beyond a list of operations. */
const jsonPatch = fc.oneof(
  { arbitrary: fc.array(jsonPatchOp, { maxLength: 5 }), weight: 10 },
  { arbitrary: fc.constantFrom<unknown>({}, null, 'x', [[]], [null], [1]), weight: 1 },
  // Past kube's limit of 10,000 operations.
  { arbitrary: fc.constant(new RawLiteral(`[${Array.from({ length: 10_001 }, () => '{"op":"test","path":"/kind","value":"x"}').join(',')}]`)), weight: 1 },
);

const directive = fc.constantFrom<[string, unknown]>(
  ['$patch', 'replace'],
  ['$patch', 'delete'],
  ['$patch', 'merge'],
  ['$patch', 'bogus'],
  ['$retainKeys', ['data']],
  ['$retainKeys', 'x'],
  ['$setElementOrder/finalizers', ['a', 'b']],
  ['$setElementOrder/ownerReferences', [{ uid: 'x' }]],
  ['$deleteFromPrimitiveList/finalizers', ['example.com/keep']],
  ['$deleteFromPrimitiveList/finalizers', 'x'],
  ['$setElementOrder/ports', [{ name: 'a' }, { port: 1 }]],
);

export interface PatchPlan {
  readonly type: PatchType;
  readonly jsonPatch: unknown;
  /** Top-level fields of the object kept in a merge, strategic or apply patch (by index). */
  readonly keep: readonly number[];
  readonly nullOut: readonly number[];
  readonly directives: readonly { where: number; directive: [string, unknown] }[];
  readonly yaml: boolean;
}

export const patchPlan: fc.Arbitrary<PatchPlan> = fc.record({
  type: fc.constantFrom<PatchType>('json', 'merge', 'strategic', 'apply'),
  jsonPatch,
  keep: fc.array(fc.nat(8), { maxLength: 4 }),
  nullOut: fc.array(fc.nat(8), { maxLength: 2 }),
  directives: fc.array(fc.record({ where: fc.nat(8), directive }), { maxLength: 2 }),
  yaml: fc.boolean(),
});

/**
 * The patch body for `object` (the valid or mutated object the patch is derived from): JSON
 * text, or YAML for apply when the plan says so.
 */
export function patchBody(object: Record<string, unknown>, plan: PatchPlan): string {
  if (plan.type === 'json') return toJsonText(plan.jsonPatch);
  if (plan.type === 'apply') return plan.yaml ? toYamlText(object, { flowDepth: 3 }) : toJsonText(object);
  const keys = Object.keys(object);
  const partial: Record<string, unknown> = {};
  for (const i of plan.keep) if (keys.length > 0) partial[keys[i % keys.length]!] = object[keys[i % keys.length]!];
  for (const i of plan.nullOut) if (keys.length > 0) partial[keys[i % keys.length]!] = null;
  if (plan.type === 'strategic') {
    for (const { where, directive: [key, value] } of plan.directives) {
      const containers = Object.values(partial).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawLiteral));
      const target = containers.length > 0 && where % 2 === 1 ? containers[where % containers.length]! : partial;
      target[key] = copy(value);
    }
  }
  return toJsonText(partial);
}
