/**
 * Field selectors (apimachinery fields/selector.go): `k=v`, `k==v`, `k!=v` joined by `,`
 * (AND), with `\` escaping `\`, `,` and `=` in values. Selectors are immutable.
 */
import { badRequest } from './status.js';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  readonly requirements: readonly FieldRequirement[];
  /** True when every requirement holds; a missing field counts as `""`, as in kube. */
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** The value an `=` requirement demands for `field`, if any. */
  exactMatch(field: string): string | undefined;
  /** kube's canonical form: terms sorted, values escaped, `==` printed as `=`. */
  toString(): string;
}

/** Escapes `\`, `,` and `=` in a field selector value. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

class TermSelector implements FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => {
      const actual = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }
  exactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/** Matches everything. */
export const everythingFields: FieldSelector = new TermSelector([]);

/** Splits on commas not preceded by a backslash escape. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Undoes escapeFieldValue; throws a 400 for an unknown escape or an unescaped `,`/`=`. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * Parses a field selector string. The empty string selects everything. Throws a 400
 * BadRequest StatusError: `invalid selector: '<s>'; can't understand '<part>'`, or the
 * escape errors of unescapeFieldValue. Field names are not checked here: which fields a
 * resource supports is the registry's business.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort();
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (term === undefined) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeFieldValue(term.rhs);
    requirements.push({ field: term.lhs, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return new TermSelector(requirements);
}

/** A selector requiring each field to equal the given value (kube's fields.SelectorFromSet). */
export function fieldSelectorFromSet(set: Readonly<Record<string, string>>): FieldSelector {
  const requirements = Object.keys(set)
    .sort()
    .map((field) => ({ field, operator: '=' as const, value: set[field]! }));
  return new TermSelector(requirements);
}
