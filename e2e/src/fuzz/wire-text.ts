/**
 * JSON and YAML text of fuzzed values, including what `JSON.stringify` cannot write: number
 * literals beyond a double (`1e400`, `-0`, `00012`), objects with duplicate keys, and YAML
 * features (flow or block style, anchors and aliases, tags). A fuzzed value is plain JSON data
 * plus the two marker classes below.
 */

/** A literal written verbatim in JSON (and as a plain scalar in YAML), e.g. `1e400`. */
export class RawLiteral {
  constructor(readonly text: string) {}
}

/** An object whose entries may repeat a key; written in entry order. */
export class DuplicateKeys {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

/** True when the value (anywhere inside) has a {@link DuplicateKeys} object. */
export function hasDuplicateKeys(value: unknown): boolean {
  if (value instanceof DuplicateKeys) return true;
  if (Array.isArray(value)) return value.some(hasDuplicateKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof RawLiteral)) return Object.values(value).some(hasDuplicateKeys);
  return false;
}

function entriesOf(value: object): readonly (readonly [string, unknown])[] {
  return value instanceof DuplicateKeys ? value.entries : Object.entries(value);
}

/** JSON text; `undefined` members are left out (as JSON.stringify does). */
export function toJsonText(value: unknown): string {
  if (value instanceof RawLiteral) return value.text;
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  const parts = entriesOf(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
  return `{${parts.join(',')}}`;
}

/** How YAML text is written. */
export interface YamlStyle {
  /** Flow style (`{a: 1}`) for every collection nested deeper than this; 0 writes it all in flow style. */
  flowDepth: number;
}

/** A YAML double-quoted scalar (JSON's string escapes are valid YAML). */
function yamlString(s: string): string {
  return JSON.stringify(s);
}

function yamlScalar(value: unknown): string {
  if (value instanceof RawLiteral) return value.text;
  if (typeof value === 'string') return yamlString(value);
  if (value === null || value === undefined) return 'null';
  return String(value);
}

function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (value !== null && typeof value === 'object' && !(value instanceof RawLiteral)) {
    return `{${entriesOf(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${yamlString(k)}: ${flow(v)}`)
      .join(', ')}}`;
  }
  return yamlScalar(value);
}

function isCollection(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !(value instanceof RawLiteral);
}

function block(value: unknown, indent: string, depth: number, style: YamlStyle): string {
  if (!isCollection(value) || depth >= style.flowDepth) return ` ${flow(value)}\n`;
  if (Array.isArray(value)) {
    if (value.length === 0) return ' []\n';
    return `\n${value.map((item) => `${indent}-${block(item, `${indent}  `, depth + 1, style)}`).join('')}`;
  }
  const entries = entriesOf(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return ' {}\n';
  return `\n${entries.map(([k, v]) => `${indent}${yamlString(k)}:${block(v, `${indent}  `, depth + 1, style)}`).join('')}`;
}

/** YAML text: block style down to `style.flowDepth`, flow style below it. */
export function toYamlText(value: unknown, style: YamlStyle): string {
  if (!isCollection(value) || style.flowDepth === 0) return `${flow(value)}\n`;
  return block(value, '', 0, style).replace(/^\n/, '');
}
