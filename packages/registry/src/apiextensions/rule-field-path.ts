/**
 * The `fieldPath` of a CRD validation rule (kube's ValidFieldPath): a JSON path of field
 * and map-key accessors (`.spec.replicas`, `.labels['app.kubernetes.io/name']`) relative to
 * the schema node that holds the rule. Parsed against the schema, it becomes the field path
 * a failing rule's error names (`spec.kv.a`, `spec.labels[app]`). Pure.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { isPlainObject } from '@kapi/machinery';

export type FieldPathResult = { readonly path: string; readonly schema: JSONSchemaProps | undefined } | { readonly error: string };

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

/** The text of a single-quoted accessor (`'a\'b'` without its quotes), or an error for an unknown escape. */
function unescapeSingleQuoted(text: string): string | { error: string } {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\' || i + 1 >= text.length) {
      out += ch;
      continue;
    }
    const next = text[++i]!;
    const replacement = ESCAPES[next];
    if (replacement === undefined) return { error: `invalid escape char \\${next}` };
    out += replacement;
  }
  return out;
}

/** Splits a path into the delimiters `.`, `[`, `]` and the text between them; a quoted string is one token. */
function tokens(jsonPath: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    const ch = jsonPath[i]!;
    if (ch === '.' || ch === '[' || ch === ']') {
      out.push(ch);
      i++;
      continue;
    }
    if (ch === "'") {
      // Up to the next quote not preceded by a backslash (or the end).
      let j = i + 1;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== '\\')) j++;
      out.push(jsonPath.slice(i, Math.min(j + 1, jsonPath.length)));
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < jsonPath.length && !'.[]'.includes(jsonPath[j]!)) j++;
    out.push(jsonPath.slice(i, j));
    i = j;
  }
  return out;
}

function additionalSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function hasProperties(schema: JSONSchemaProps | undefined): boolean {
  return schema?.properties !== undefined && Object.keys(schema.properties).length > 0;
}

/**
 * Parses `jsonPath` against `schema` (the node holding the rule). Returns the normalized
 * field path (`kv.a`, `labels[app]`: named fields joined by dots, map keys in brackets) and
 * the schema it leads to, or kube's reason the path is not valid.
 */
export function parseRuleFieldPath(jsonPath: string, schema: JSONSchemaProps, options: { allowArrayNotation?: boolean } = {}): FieldPathResult {
  const allowBrackets = options.allowArrayNotation !== false;
  const parts = tokens(jsonPath);
  let path = '';
  let current: JSONSchemaProps | undefined = schema;
  const step = (name: string): string | undefined => {
    if (current === undefined) return 'does not refer to a valid field';
    if (hasProperties(current)) {
      const next: JSONSchemaProps | undefined = current.properties?.[name];
      if (next === undefined || !Object.prototype.hasOwnProperty.call(current.properties, name)) return 'does not refer to a valid field';
      path = path === '' ? name : `${path}.${name}`;
      current = next;
      return undefined;
    }
    if (current.additionalProperties !== undefined) {
      path = `${path}[${name}]`;
      current = additionalSchema(current);
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  for (let i = 0; i < parts.length; i++) {
    const tok = parts[i]!;
    if (tok === '[') {
      if (!allowBrackets) return { error: 'array notation is not allowed' };
      const quoted = parts[++i];
      if (quoted === undefined) return { error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return { error: `expected single quoted string but got ${quoted}` };
      const name = unescapeSingleQuoted(quoted.slice(1, -1));
      if (typeof name !== 'string') return { error: `invalid string literal: ${name.error}` };
      const problem = step(name);
      if (problem !== undefined) return { error: problem };
      const close = parts[++i];
      if (close === undefined) return { error: 'unexpected end of JSON path' };
      if (close !== ']') return { error: `expected ] but got ${close}` };
    } else if (tok === '.') {
      const name = parts[++i];
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      const problem = step(name);
      if (problem !== undefined) return { error: problem };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
  }
  return { path, schema: current };
}

/**
 * Appends a normalized rule field path to the field path of the rule's node as kube does
 * (as one more named child: `spec` + `[key]` prints `spec.[key]`).
 */
export function joinFieldPath(base: string, relative: string): string {
  if (relative === '') return base;
  return base === '' ? relative : `${base}.${relative}`;
}
