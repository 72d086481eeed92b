/**
 * The label selector string grammar (labels/selector.go's lexer and parser), with kube's
 * error texts. Throws RequirementError; never anything else.
 */
import { fieldInvalid, formatFieldErrors } from './field-error.js';
import { newRequirement, RequirementError, type LabelOperator, type LabelRequirement } from './label-requirement.js';
import { isQualifiedName } from './validation.js';

type Token =
  | 'error'
  | 'end'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

const literalTokens: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

interface Scanned {
  token: Token;
  literal: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

function scan(input: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  // Go works on bytes; NUL ends the input as it does in kube's lexer.
  const at = (i: number): string => (i < input.length && input[i] !== '\0' ? input[i]! : '');
  for (;;) {
    while (at(pos) !== '' && isWhitespace(at(pos))) pos++;
    const ch = at(pos);
    if (ch === '') {
      items.push({ token: 'end', literal: '' });
      return items;
    }
    if (isSpecial(ch)) {
      let buffer = '';
      let last: Scanned | undefined;
      while (at(pos) !== '' && isSpecial(at(pos))) {
        buffer += at(pos);
        const token = literalTokens.get(buffer);
        if (token !== undefined) {
          last = { token, literal: buffer };
          pos++;
        } else if (last !== undefined) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { token: 'error', literal: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let buffer = '';
    while (at(pos) !== '' && !isSpecial(at(pos)) && !isWhitespace(at(pos))) buffer += at(pos++);
    items.push({ token: literalTokens.get(buffer) ?? 'identifier', literal: buffer });
  }
}

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private position = 0;
  constructor(private readonly items: Scanned[]) {}

  /** In a values context `in` and `notin` are plain identifiers. */
  private lookahead(values: boolean): Scanned {
    return this.asContext(this.items[this.position]!, values);
  }
  private consume(values: boolean): Scanned {
    const item = this.items[this.position]!;
    if (this.position < this.items.length - 1) this.position++;
    return this.asContext(item, values);
  }
  private asContext(item: Scanned, values: boolean): Scanned {
    if (values && (item.token === 'in' || item.token === 'notin')) return { token: 'identifier', literal: item.literal };
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.lookahead(true);
      if (token === 'identifier' || token === '!') {
        try {
          requirements.push(this.parseRequirement());
        } catch (err) {
          if (err instanceof RequirementError) throw new RequirementError(`unable to parse requirement: ${err.message}`);
          throw err;
        }
        const next = this.consume(true);
        if (next.token === 'end') return requirements;
        if (next.token === ',') {
          const after = this.lookahead(true);
          if (after.token !== 'identifier' && after.token !== '!') {
            throw new RequirementError(`found '${after.literal}', expected: identifier after ','`);
          }
          continue;
        }
        throw new RequirementError(`found '${next.literal}', expected: ',' or 'end of string'`);
      }
      if (token === 'end') return requirements;
      throw new RequirementError(`found '${literal}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume(true);
    if (item.token === '!') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.token !== 'identifier') throw new RequirementError(`found '${item.literal}', expected: identifier`);
    const keyErrors = isQualifiedName(item.literal);
    if (keyErrors.length > 0) {
      throw new RequirementError(formatFieldErrors([fieldInvalid('<nil>', item.literal, keyErrors.join('; '))]));
    }
    const next = this.lookahead(true).token;
    if ((next === 'end' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelOperator {
    const { token, literal } = this.consume(false);
    switch (token) {
      case 'in':
        return 'in';
      case '=':
        return '=';
      case '==':
        return '==';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      case 'notin':
        return 'notin';
      case '!=':
        return '!=';
      default:
        throw new RequirementError(`found '${literal}', expected: ${binaryOperators}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.token !== '(') throw new RequirementError(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.lookahead(true);
    if (token === 'identifier' || token === ',') {
      const values = this.parseIdentifiersList();
      if (this.consume(true).token !== ')') throw new RequirementError(`found '${literal}', expected: ')'`);
      return values;
    }
    if (token === ')') {
      this.consume(true);
      return new Set(['']);
    }
    throw new RequirementError(`found '${literal}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { token, literal } = this.consume(true);
      if (token === 'identifier') {
        values.add(literal);
        const next = this.lookahead(true);
        if (next.token === ',') continue;
        if (next.token === ')') return values;
        throw new RequirementError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (token === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true).token;
        if (next === ')') {
          values.add('');
          return values;
        }
        if (next === ',') {
          this.consume(true);
          values.add('');
        }
        continue;
      }
      throw new RequirementError(`found '${literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).token;
    if (next === 'end' || next === ',') return new Set(['']);
    const { token, literal } = this.consume(true);
    if (token === 'identifier') return new Set([literal]);
    throw new RequirementError(`found '${literal}', expected: identifier`);
  }
}

/** Parses the whole selector text into requirements (unsorted). */
export function parseRequirements(text: string): LabelRequirement[] {
  return new Parser(scan(text)).parse();
}
