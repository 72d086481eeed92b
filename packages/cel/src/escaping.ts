/**
 * kube's escaping of object property names into CEL identifiers
 * (k8s.io/apiserver/pkg/cel/escaping.go): `__` → `__underscores__`, `.` → `__dot__`,
 * `-` → `__dash__`, `/` → `__slash__`, and a CEL reserved word `w` → `__w__`.
 */

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function',
  'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const EXPAND = /(__|[-./])/g;
const IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** The CEL identifier for a property name, or undefined when kube cannot expose it to CEL. */
export function escapePropertyName(name: string): string | undefined {
  if (name.length === 0 || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  const escaped = name.replace(EXPAND, (s) =>
    s === '__' ? '__underscores__' : s === '.' ? '__dot__' : s === '-' ? '__dash__' : '__slash__');
  return IDENT.test(escaped) ? escaped : undefined;
}

const UNEXPAND = /__(underscores|dot|dash|slash)__/g;

/** The property name a CEL identifier stands for (the inverse of escapePropertyName). */
export function unescapePropertyName(ident: string): string {
  if (ident.length > 4 && ident.startsWith('__') && ident.endsWith('__')) {
    const inner = ident.slice(2, -2);
    if (RESERVED.has(inner)) return inner;
  }
  return ident.replace(UNEXPAND, (_s, w: string) =>
    w === 'underscores' ? '__' : w === 'dot' ? '.' : w === 'dash' ? '-' : '/');
}
