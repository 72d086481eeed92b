/**
 * The engine's parse, type and evaluation errors in cel-go's words, which is what kube
 * quotes: `ERROR: <input>:1:6: undefined field 'foo'` followed by the source line and a caret.
 */

interface EngineNode {
  readonly op?: string;
  readonly args?: unknown;
  readonly start?: number;
  readonly end?: number;
  readonly pos?: number;
}

interface EngineError {
  readonly message: string;
  readonly summary?: string;
  readonly range?: { readonly start: number; readonly end: number };
  readonly node?: EngineNode;
  readonly name?: string;
}

/** Function names the environment declares; a call to another name is an undeclared reference. */
let knownFunctions: ReadonlySet<string> = new Set();
export function setKnownFunctions(names: ReadonlySet<string>): void {
  knownFunctions = names;
}

const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in']);

/** Where cel-go reports an error on this node: an operator's symbol, a call's parenthesis. */
function celGoOffset(expression: string, node: EngineNode | undefined): number | undefined {
  if (!node || node.start === undefined) return undefined;
  if (node.op && BINARY.has(node.op) && Array.isArray(node.args)) {
    const [l, r] = node.args as EngineNode[];
    const at = expression.indexOf(node.op, l?.end ?? node.start);
    if (at >= 0 && (r?.start === undefined || at < r.start)) return at;
  }
  if (node.op === '?:' && Array.isArray(node.args)) {
    const [condition] = node.args as EngineNode[];
    const at = expression.indexOf('?', condition?.end ?? node.start);
    if (at >= 0) return at;
  }
  if (node.op === 'call' && Array.isArray(node.args)) {
    const at = expression.indexOf('(', node.start);
    if (at >= 0) return at;
  }
  if (node.op === 'rcall' && Array.isArray(node.args)) {
    const [name, target] = node.args as [string, EngineNode];
    const from = target?.end ?? node.start;
    const at = expression.indexOf(`${name}(`, from);
    if (at >= 0) return at + name.length;
  }
  return undefined;
}

/** cel-go writes list(int) and map(string, int) where the engine writes list<int>, map<string, int>. */
function celGoTypes(t: string): string {
  return t.replace(/</g, '(').replace(/>/g, ')');
}

const OPERATOR_NAMES: Record<string, string> = {
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '+': '_+_',
  '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', in: '@in', '!_': '!_', '-_': '-_',
};

/** cel-go's wording for an engine message. */
export function celGoMessage(summary: string): string {
  let m = /^No such key: (.*)$/.exec(summary);
  if (m) return `undefined field '${m[1]}'`;
  m = /^Unknown variable: (.*)$/.exec(summary);
  if (m) return `undeclared reference to '${m[1]}' (in container '')`;
  m = /^no such overload: (\S+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (\S+)$/.exec(summary);
  if (m) return `found no matching overload for '${OPERATOR_NAMES[m[2]!]}' applied to '(${m[1]}, ${m[3]})'`;
  m = /^found no matching overload for '(.*)' applied to '(.*)'$/.exec(summary);
  if (m) return summary;
  m = /^found no matching overload for '(?:(.+)\.)?([A-Za-z_][A-Za-z0-9_]*)\((.*)\)'$/.exec(summary);
  if (m) {
    const [, receiver, name, args] = m;
    if (!knownFunctions.has(name!) && !(receiver && knownFunctions.has(`${receiver}.${name}`))) return `undeclared reference to '${name}' (in container '')`;
    return receiver
      ? `found no matching overload for '${name}' applied to '${celGoTypes(receiver)}.(${celGoTypes(args!)})'`
      : `found no matching overload for '${name}' applied to '(${celGoTypes(args!)})'`;
  }
  m = /^Ternary branches must have the same type, got '(.*)' and '(.*)'$/.exec(summary);
  if (m) return `found no matching overload for '_?_:_' applied to '(bool, ${celGoTypes(m[1]!)}, ${celGoTypes(m[2]!)})'`;
  m = /^(?:List elements must have the same type|Map value uses wrong type|Map key uses wrong type), (expected type '.*' but found '.*')$/.exec(summary);
  if (m) return m[1]!;
  return summary;
}

function firstLine(message: string): string {
  const nl = message.indexOf('\n');
  return nl < 0 ? message : message.slice(0, nl);
}

/** `ERROR: <input>:L:C: message` plus the source line and a caret, as cel-go prints it. */
export function formatCompileError(expression: string, err: unknown): string {
  const e = err as EngineError;
  const summary = celGoMessage(e.summary ?? firstLine(e.message ?? String(err)));
  let offset = celGoOffset(expression, e.node) ?? e.range?.start ?? e.node?.start ?? e.node?.pos;
  // cel-go places a field selection's errors on its dot.
  if (offset !== undefined && summary.startsWith('undefined field') && expression[offset - 1] === '.') offset--;
  if (offset === undefined) return `ERROR: <input>:1:1: ${summary}`;
  return formatErrorAt(expression, offset, summary);
}

/**
 * `ERROR: <input>:L:C: message`, the offset's source line and a caret under it, as cel-go
 * prints an error: columns count code points, and the caret line shows a wide dot under a
 * non-ASCII character.
 */
export function formatErrorAt(expression: string, offset: number, message: string): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < expression.length; i++) {
    if (expression[i] === '\n') { line++; lineStart = i + 1; }
  }
  const lineEnd = expression.indexOf('\n', lineStart);
  const text = expression.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  const before = [...expression.slice(lineStart, offset)];
  const dots = before.map((ch) => (ch.codePointAt(0)! < 0x80 ? '.' : '\uff0e')).join('');
  return `ERROR: <input>:${line}:${before.length + 1}: ${message}\n | ${text}\n | ${dots}^`;
}

/** A runtime error's message as kube reports it (cel-go's evaluation error text). */
export function evaluationMessage(err: unknown): string {
  const e = err as EngineError;
  const summary = e.summary ?? firstLine(e.message ?? String(err));
  const m = /^No such key: (.*)$/.exec(summary);
  if (m) return `no such key: ${m[1]}`;
  return celGoMessage(summary);
}
