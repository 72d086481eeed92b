/**
 * kube's "simple JSONPath" for CRDs: printer columns (`.spec.replicas`,
 * `.status.conditions[?(@.type=="Ready")].status`), scale paths and selectable fields. A path
 * is a chain of `.field`, `['field']`, `[n]`, `[*]` and equality filters `[?(@.a.b=="x")]`;
 * evaluation returns every match in document order (callers take the first, as kube's
 * table convertor does).
 */
import { isPlainObject } from '@kapi/machinery';

type Step =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'all' }
  | { readonly kind: 'filter'; readonly path: readonly string[]; readonly op: '==' | '!='; readonly value: unknown };

export interface CompiledPath {
  readonly source: string;
  readonly steps: readonly Step[];
}

/** Parses `path` (with or without kubectl's `{...}` braces). Throws Error with a reason for a malformed path. */
export function compileJsonPath(path: string): CompiledPath {
  let text = path.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  const steps: Step[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`unrecognized JSONPath ${JSON.stringify(path)}: ${why}`);
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '.') {
      i++;
      let name = '';
      while (i < text.length && text[i] !== '.' && text[i] !== '[') name += text[i++];
      if (name === '') {
        if (i >= text.length && steps.length === 0) break; // "." alone: the object itself
        fail('empty field name');
      }
      steps.push({ kind: 'field', name });
    } else if (ch === '[') {
      const end = text.indexOf(']', i);
      if (end < 0) fail('unclosed [');
      const inner = text.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) steps.push(parseFilter(inner.slice(2, -1).trim(), fail));
      else fail(`unsupported subscript [${inner}]`);
    } else {
      fail(`unexpected ${JSON.stringify(ch)}`);
    }
  }
  return { source: path, steps };
}

function parseFilter(expr: string, fail: (why: string) => never): Step {
  const match = /^@((?:\.[^.=!\s]+)+)\s*(==|!=)\s*(.+)$/.exec(expr);
  if (match === null) return fail(`unsupported filter ${expr}`);
  let value: unknown;
  const raw = match[3]!.trim();
  if (/^'.*'$/.test(raw)) value = raw.slice(1, -1);
  else {
    try {
      value = JSON.parse(raw);
    } catch {
      return fail(`unsupported filter value ${raw}`);
    }
  }
  return { kind: 'filter', path: match[1]!.slice(1).split('.'), op: match[2] as '==' | '!=', value };
}

function walk(value: unknown, steps: readonly Step[], at: number, out: unknown[]): void {
  if (at === steps.length) {
    out.push(value);
    return;
  }
  const step = steps[at]!;
  switch (step.kind) {
    case 'field':
      if (isPlainObject(value) && Object.prototype.hasOwnProperty.call(value, step.name)) walk(value[step.name], steps, at + 1, out);
      return;
    case 'index':
      if (Array.isArray(value)) {
        const index = step.index < 0 ? value.length + step.index : step.index;
        if (index >= 0 && index < value.length) walk(value[index], steps, at + 1, out);
      }
      return;
    case 'all':
      if (Array.isArray(value)) for (const item of value) walk(item, steps, at + 1, out);
      else if (isPlainObject(value)) for (const item of Object.values(value)) walk(item, steps, at + 1, out);
      return;
    case 'filter':
      if (!Array.isArray(value)) return;
      for (const item of value) {
        let cur: unknown = item;
        for (const key of step.path) cur = isPlainObject(cur) ? cur[key] : undefined;
        if ((cur === step.value) === (step.op === '==')) walk(item, steps, at + 1, out);
      }
      return;
  }
}

/** Every value `path` selects in `obj`, in document order. */
export function evaluateJsonPath(path: CompiledPath, obj: unknown): unknown[] {
  const out: unknown[] = [];
  walk(obj, path.steps, 0, out);
  return out;
}

/** The field names of a plain dotted path (`.spec.replicas` → ['spec', 'replicas']), or undefined for anything else. */
export function dottedFields(path: string): string[] | undefined {
  if (!/^(\.[^.[\]]+)+$/.test(path)) return undefined;
  return path.slice(1).split('.');
}

/**
 * kube's validateSimpleJSONPath messages: `must not be empty`, `must be a simple json path
 * starting with .`; a path kapi cannot evaluate is `must be a json path in the dot notation`.
 */
export function simpleJsonPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (path[0] !== '.') return 'must be a simple json path starting with .';
  try {
    compileJsonPath(path);
  } catch {
    return 'must be a json path in the dot notation';
  }
  return undefined;
}
