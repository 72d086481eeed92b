/**
 * Variables whose names contain dots (VAP's `authorizer.requestResource`): cel-go resolves
 * `a.b` to a declared variable named "a.b" before reading field b of a. The engine reads a
 * selection, so each selection chain that spells a declared dotted name is redirected, on
 * the parsed AST before it is checked, to an identifier of that name.
 */
import type { Node } from './ast.js';
import { walk } from './ast.js';

interface EngineNode {
  readonly meta: { readonly check: unknown; readonly evaluate: unknown };
  clone(op: { name: string; check: unknown; evaluate: unknown }, args: unknown): EngineNode;
  setMeta(key: string, value: unknown): void;
}

/** The dotted name a chain of selections on an identifier spells (`a.b.c`), if it is one. */
function dottedName(n: Node): { name: string; root: Node } | undefined {
  if (n.op === 'id') return { name: n.args as string, root: n };
  if (n.op !== '.') return undefined;
  const [target, field] = n.args as unknown as [Node, string];
  const inner = dottedName(target);
  return inner === undefined ? undefined : { name: `${inner.name}.${field}`, root: inner.root };
}

/** Points each selection chain of `root` that spells one of `names` at that variable. */
export function resolveQualifiedNames(root: Node, names: ReadonlySet<string>): void {
  if (names.size === 0) return;
  walk(root, (n) => {
    if (n.op !== '.') return;
    const dotted = dottedName(n);
    if (dotted === undefined || !names.has(dotted.name)) return;
    const id = dotted.root as unknown as EngineNode;
    const variable = id.clone({ name: 'id', check: id.meta.check, evaluate: id.meta.evaluate }, dotted.name);
    (n as unknown as EngineNode).setMeta('alternate', variable);
  });
}
