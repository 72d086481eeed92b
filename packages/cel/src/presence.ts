/**
 * has() on any operand. The engine's has() macro accepts only a selection chain that starts
 * at an identifier (`has(self.a.b)`); cel-go accepts a selection on any expression, e.g.
 * `has(self.matches[0].path)` or `has(f(x).y)`. The macro is re-typed here, on the parsed
 * AST before it is checked, so that its innermost operand may be any expression: it is
 * type-checked as such, and the engine's has() evaluation (run the innermost operand, then
 * test the selected fields) already works for any operand.
 */
import type { Node } from './ast.js';
import { walk } from './ast.js';

const INVALID = 'has() invalid argument';

interface Checker {
  check(node: Node, ctx: unknown): unknown;
  createError(code: string, message: string, node: Node): Error;
  getType(name: string): unknown;
}
interface HasMacro {
  args: Node[];
  macroHasProps?: Node[];
  typeCheck(checker: Checker, macro: HasMacro, ctx: unknown): unknown;
}

function typeCheck(checker: Checker, macro: HasMacro, ctx: unknown): unknown {
  let node = macro.args[0]!;
  if (node.op !== '.') throw checker.createError('invalid_macro_argument', INVALID, node);
  if (!macro.macroHasProps) {
    const props: Node[] = [];
    while (node.op === '.' || node.op === '.?') {
      props.push(node);
      node = (node.args as unknown as [Node])[0];
    }
    checker.check(node, ctx);
    props.push(node);
    macro.macroHasProps = props;
  }
  return checker.getType('bool');
}

/** Lets every has() in `root` take a selection on any expression. */
export function widenHasMacros(root: Node): void {
  walk(root, (n) => {
    if (n.op !== 'call' || (n.args as unknown as [string])[0] !== 'has') return;
    const macro = (n as unknown as { meta?: { macro?: HasMacro } }).meta?.macro;
    if (macro && typeof macro.typeCheck === 'function') macro.typeCheck = typeCheck;
  });
}
