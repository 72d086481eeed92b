/**
 * Checks kube's environment makes that the engine does not: names kube 1.32's environment
 * does not declare (cel.bind, math.*, two-variable comprehensions), literal arguments
 * kube validates at compile time (regex patterns of matches, duration and timestamp strings),
 * and field selections on the authorizer library's values.
 */
import type { Node } from './ast.js';
import { walk } from './ast.js';
import { compileRe2 } from './library/regex-cache.js';
import { parseGoDuration } from './values.js';

export interface AstIssue {
  readonly offset: number;
  readonly message: string;
}

const UNDECLARED_NAMESPACES = new Set(['cel', 'math', 'base64', 'optional_type']);

export function validateAst(root: Node): AstIssue[] {
  const issues: AstIssue[] = [];
  walk(root, (n) => {
    if (n.op === 'rcall') {
      const [name, target, args] = n.args as unknown as [string, Node, Node[]];
      if (target.op === 'id' && UNDECLARED_NAMESPACES.has(target.args as string)) {
        issues.push({ offset: target.start, message: `undeclared reference to '${target.args as string}' (in container '')` });
      }
      if (name === 'matches' && args[0]?.op === 'value' && typeof args[0].args === 'string') {
        try { compileRe2(args[0].args); } catch { issues.push({ offset: args[0].start, message: 'invalid matches argument' }); }
      }
      if ((name === 'all' || name === 'exists' || name === 'exists_one' || name === 'map' || name === 'filter') && args.length === 3 && args[1]?.op === 'id' && name !== 'map') {
        issues.push({ offset: n.pos, message: `undeclared reference to '${name}' (in container '')` });
      }
    }
    if (n.op === '.' || n.op === '.?') {
      // The authorizer library's values have no fields: cel-go cannot resolve a selection on them.
      const target = (n.args as unknown as [Node])[0];
      const type = target.checkedType?.name;
      if (type !== undefined && type.startsWith('kubernetes.authorization.')) {
        issues.push({ offset: n.input.indexOf('.', target.end), message: `unexpected failed resolution of '${type}'` });
      }
    }
    if (n.op === 'call') {
      const [name, args] = n.args as unknown as [string, Node[]];
      const a = args[0];
      if (name === 'duration' && a?.op === 'value' && typeof a.args === 'string' && parseCelDuration(a.args) === undefined) {
        issues.push({ offset: a.start, message: 'invalid duration argument' });
      }
      if (name === 'timestamp' && a?.op === 'value' && typeof a.args === 'string' && Number.isNaN(Date.parse(a.args))) {
        issues.push({ offset: a.start, message: 'invalid timestamp argument' });
      }
    }
  });
  return issues;
}

function parseCelDuration(s: string): unknown {
  return parseGoDuration(s);
}
