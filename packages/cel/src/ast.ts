/** Walking the engine's AST (its node shapes are described in the engine's index.d.ts). */
import type { ASTNode } from '@marcbachmann/cel-js';

/** A parsed node as the engine gives it, with the type the checker recorded. */
export type Node = ASTNode & { checkedType?: { name: string; kind?: string } };

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && 'op' in x && 'args' in x && typeof (x as { op: unknown }).op === 'string';
}

/** The child nodes of `n`, in source order. */
export function children(n: Node): Node[] {
  const out: Node[] = [];
  const add = (x: unknown): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) for (const y of x) add(y);
  };
  switch (n.op) {
    case 'value': case 'id': return out;
    case '.': case '.?': add((n.args as unknown[])[0]); return out;
    case 'call': add((n.args as unknown[])[1]); return out;
    case 'rcall': add((n.args as unknown[])[1]); add((n.args as unknown[])[2]); return out;
    default: add(n.args); return out;
  }
}

/** Visits every node, parents before children. */
export function walk(n: Node, visit: (n: Node) => void): void {
  visit(n);
  for (const c of children(n)) walk(c, visit);
}
