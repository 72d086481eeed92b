/**
 * Syntax errors as cel-go reports them (what kube quotes after "compilation failed: "):
 * a recursive-descent pass over CEL's grammar that reports the first parse error the way
 * cel-go's ANTLR parser words it — "mismatched input 'X' expecting {...}", "extraneous input",
 * "missing 'X' at 'Y'", "no viable alternative at input '...'" — after any "token recognition
 * error" from the lexer, plus cel-go's "reserved identifier" errors.
 *
 * The engine parses the expression; this pass only supplies the wording and position.
 * Differences from cel-go, declared: after an error ANTLR resynchronizes and may report
 * further errors; this pass goes on only after a deleted ("extraneous") or inserted
 * ("missing") token and after a dangling '-', and stops at the first other error. cel-go's
 * follow-up non-syntax errors (e.g. "invalid argument to has() macro" for a broken has())
 * are not reported.
 */
import { displayText, kindDisplay, tokenize, TOKEN_KINDS, type Token, type TokenKind } from './syntax-lexer.js';

export interface SyntaxIssue {
  /** UTF-16 offset of the offending token. */
  readonly offset: number;
  readonly message: string;
  /** True for grammar and token errors ("Syntax error: ..."), false for a reserved identifier. */
  readonly syntax: boolean;
}

type Kinds = ReadonlySet<TokenKind>;
const set = (...kinds: TokenKind[]): Kinds => new Set(kinds);
const union = (...sets: Kinds[]): Kinds => new Set(sets.flatMap((s) => [...s]));

const LITERAL_START = set('-', 'true', 'false', 'null', 'NUM_FLOAT', 'NUM_INT', 'NUM_UINT', 'STRING', 'BYTES');
const MEMBER_START = union(set('[', '{', '(', '.', 'IDENTIFIER'), LITERAL_START);
const EXPR_START = union(MEMBER_START, set('!'));
const OPTIONAL_EXPR_START = union(EXPR_START, set('?'));
/** What may follow a complete primary or member inside an expression. */
const AFTER_MEMBER = set('.', '[', '==', '!=', 'in', '<', '<=', '>=', '>', '&&', '||', '-', '+', '*', '/', '%', '?');
const RELATIONS = set('==', '!=', 'in', '<', '<=', '>=', '>');
const ARITHMETIC = set('*', '/', '%', '+', '-');

/** cel-go's reserved words: refused as identifiers. */
const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** Ends the pass at an error ANTLR would recover from in ways this pass does not follow. */
class Stop extends Error {}

function expecting(kinds: Kinds): string {
  const ordered = TOKEN_KINDS.filter((k) => kinds.has(k));
  return ordered.length === 1 ? kindDisplay(ordered[0]!) : `{${ordered.map(kindDisplay).join(', ')}}`;
}

function tokenDisplay(t: Token): string {
  return `'${t.kind === 'EOF' ? '<EOF>' : displayText(t.text)}'`;
}

class Parser {
  private i = 0;
  readonly issues: SyntaxIssue[] = [];

  constructor(private readonly source: string, private readonly tokens: readonly Token[]) {}

  private la(k = 1): Token {
    return this.tokens[Math.min(this.i + k - 1, this.tokens.length - 1)]!;
  }

  private consume(): Token {
    const t = this.la();
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }

  private error(at: Token, message: string): void {
    this.issues.push({ offset: at.start, message: `Syntax error: ${message}`, syntax: true });
  }

  /** ANTLR's match(): the token, or one deleted before it, or one assumed missing, else a mismatch. */
  private match(kind: TokenKind, follow: Kinds): void {
    const t = this.la();
    if (t.kind === kind) { this.consume(); return; }
    if (this.la(2).kind === kind) {
      this.error(t, `extraneous input ${tokenDisplay(t)} expecting ${kindDisplay(kind)}`);
      this.consume();
      this.consume();
      return;
    }
    if (follow.has(t.kind)) {
      this.error(t, `missing ${kindDisplay(kind)} at ${tokenDisplay(t)}`);
      return;
    }
    this.error(t, `mismatched input ${tokenDisplay(t)} expecting ${kindDisplay(kind)}`);
    throw new Stop();
  }

  /** ANTLR's sync() before a block that must start with one of `kinds`. */
  private sync(kinds: Kinds): void {
    const t = this.la();
    if (kinds.has(t.kind)) return;
    if (kinds.has(this.la(2).kind)) {
      this.error(t, `extraneous input ${tokenDisplay(t)} expecting ${expecting(kinds)}`);
      this.consume();
      return;
    }
    this.error(t, `mismatched input ${tokenDisplay(t)} expecting ${expecting(kinds)}`);
    throw new Stop();
  }

  private noViableAlternative(from: Token, at: Token): void {
    const text = this.source.slice(from.start, at.kind === 'EOF' ? from.end : at.end);
    this.error(at, `no viable alternative at input '${displayText(text)}'`);
  }

  parse(): void {
    try {
      this.expr(set('EOF'));
      this.match('EOF', set());
    } catch (err) {
      if (!(err instanceof Stop)) throw err;
    }
  }

  /** `terms`: the tokens that may end this expression in its context (for "missing ..."). */
  private expr(terms: Kinds): void {
    this.binary(terms, 0);
    if (this.la().kind !== '?') return;
    this.consume();
    this.binary(set(':'), 0);
    this.match(':', EXPR_START);
    this.expr(terms);
  }

  private static readonly LEVELS: readonly Kinds[] = [set('||'), set('&&'), RELATIONS, ARITHMETIC];

  private binary(terms: Kinds, level: number): void {
    const ops = Parser.LEVELS[level];
    if (!ops) { this.unary(terms); return; }
    this.binary(terms, level + 1);
    while (ops.has(this.la().kind)) {
      this.consume();
      this.binary(terms, level + 1);
    }
  }

  private unary(terms: Kinds): void {
    this.sync(EXPR_START);
    const t = this.la();
    if (t.kind === '!') {
      while (this.la().kind === '!') this.consume();
      const next = this.la();
      if (!MEMBER_START.has(next.kind)) {
        this.error(next, `extraneous input ${tokenDisplay(next)} expecting ${expecting(EXPR_START)}`);
        throw new Stop();
      }
      this.member(terms);
      return;
    }
    if (t.kind === '-') { this.negation(terms); return; }
    this.member(terms);
  }

  /** A run of '-': negations, ending in a member (a number's sign belongs to its literal). */
  private negation(terms: Kinds): void {
    for (;;) {
      const minus = this.la();
      const next = this.la(2);
      if (next.kind === 'NUM_INT' || next.kind === 'NUM_FLOAT') { this.member(terms); return; }
      if (next.kind !== '-' && MEMBER_START.has(next.kind)) {
        this.consume();
        this.member(terms);
        return;
      }
      if (next.kind === '-') { this.consume(); continue; }
      this.noViableAlternative(minus, next);
      if (next.kind === 'EOF') {
        this.error(next, `mismatched input ${tokenDisplay(next)} expecting ${expecting(EXPR_START)}`);
        throw new Stop();
      }
      this.consume();
      this.unary(terms);
      return;
    }
  }

  private member(terms: Kinds): void {
    const follow = union(AFTER_MEMBER, terms);
    this.primary(follow);
    for (;;) {
      const t = this.la();
      if (t.kind === '.') {
        const name = this.la(2);
        if (name.kind === '?') {
          this.consume();
          this.consume();
          this.match('IDENTIFIER', follow);
        } else if (name.kind === 'IDENTIFIER') {
          this.consume();
          this.consume();
          if (this.la().kind === '(') { this.consume(); this.args(follow); }
        } else {
          this.noViableAlternative(t, name);
          throw new Stop();
        }
      } else if (t.kind === '[') {
        this.consume();
        this.sync(OPTIONAL_EXPR_START);
        if (this.la().kind === '?') this.consume();
        this.expr(set(']'));
        this.match(']', follow);
      } else return;
    }
  }

  /** Call arguments after '(' up to and including ')'. */
  private args(follow: Kinds): void {
    this.sync(union(EXPR_START, set(')')));
    if (this.la().kind !== ')') {
      const terms = set(',', ')');
      this.expr(terms);
      while (this.la().kind === ',') {
        this.consume();
        this.expr(terms);
      }
    }
    this.match(')', follow);
  }

  private identifier(t: Token, at: Token): void {
    if (RESERVED.has(t.text)) this.issues.push({ offset: at.start, message: `reserved identifier: ${t.text}`, syntax: false });
  }

  private primary(follow: Kinds): void {
    const t = this.la();
    switch (t.kind) {
      case '.':
        if (this.la(2).kind !== 'IDENTIFIER') { this.noViableAlternative(t, this.la(2)); throw new Stop(); }
        this.consume();
        this.qualified(t, follow);
        return;
      case 'IDENTIFIER':
        this.qualified(t, follow);
        return;
      case '(':
        this.consume();
        this.expr(set(')'));
        this.match(')', follow);
        return;
      case '[':
        this.consume();
        this.elements(']', follow, () => this.optionalExpr(set(',', ']')));
        return;
      case '{':
        this.consume();
        this.elements('}', follow, () => {
          this.optionalExpr(set(':'));
          this.match(':', EXPR_START);
          this.expr(set(',', '}'));
        });
        return;
      case '-':
        if (this.la(2).kind === 'NUM_INT' || this.la(2).kind === 'NUM_FLOAT') { this.consume(); this.consume(); return; }
        this.noViableAlternative(t, this.la(2));
        throw new Stop();
      default:
        this.consume();
    }
  }

  /** An identifier, a global call, or a message literal `a.b.C{...}` starting at `start`. */
  private qualified(start: Token, follow: Kinds): void {
    let k = 1;
    while (this.la(k).kind === 'IDENTIFIER' && this.la(k + 1).kind === '.' && this.la(k + 2).kind === 'IDENTIFIER') k += 2;
    if (this.la(k).kind === 'IDENTIFIER' && this.la(k + 1).kind === '{') {
      for (let j = 0; j <= k; j++) this.consume();
      this.elements('}', follow, () => {
        if (this.la().kind === '?') this.consume();
        this.match('IDENTIFIER', set(':'));
        this.match(':', EXPR_START);
        this.expr(set(',', '}'));
      }, set('?', 'IDENTIFIER'));
      return;
    }
    const name = this.consume();
    this.identifier(name, start);
    if (this.la().kind === '(') { this.consume(); this.args(follow); }
  }

  private optionalExpr(terms: Kinds): void {
    if (this.la().kind === '?') this.consume();
    this.expr(terms);
  }

  /**
   * The elements of a list, map or message literal after its opening bracket, an optional
   * trailing comma, and the closing `close`.
   */
  private elements(close: TokenKind, follow: Kinds, element: () => void, starts: Kinds = OPTIONAL_EXPR_START): void {
    this.sync(union(starts, set(',', close)));
    if (starts.has(this.la().kind)) {
      element();
      while (this.la().kind === ',' && starts.has(this.la(2).kind)) {
        this.consume();
        element();
      }
    }
    this.sync(set(',', close));
    if (this.la().kind === ',') this.consume();
    this.match(close, follow);
  }
}

/** cel-go's parse errors for `expression`, in source order (empty when it parses). */
export function syntaxIssues(expression: string): SyntaxIssue[] {
  const { tokens, errors } = tokenize(expression);
  const parser = new Parser(expression, tokens);
  parser.parse();
  const issues: SyntaxIssue[] = [
    ...errors.map((e) => ({ offset: e.offset, message: `Syntax error: ${e.message}`, syntax: true })),
    ...parser.issues,
  ];
  return issues.sort((a, b) => a.offset - b.offset);
}
