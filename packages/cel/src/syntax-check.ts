/**
 * Syntax errors as cel-go reports them (what kube quotes after "compilation failed: "):
 * a recursive-descent pass over CEL's grammar that reports the first parse error the way
 * cel-go's ANTLR parser words it — "mismatched input 'X' expecting {...}", "extraneous input",
 * "missing 'X' at 'Y'", "no viable alternative at input '...'" — after any "token recognition
 * error" from the lexer, plus cel-go's "reserved identifier" errors.
 *
 * The engine parses the expression; this pass only supplies the wording and position.
 * After an error the pass recovers as ANTLR's default strategy does (see Parser), so later
 * errors are reported too. Differences from cel-go, declared: ANTLR's adaptive prediction
 * is approximated by fixed lookahead, so a recovery may resume at a slightly different token
 * and find a different follow-up error; cel-go's non-syntax errors on the broken tree (e.g.
 * "invalid argument to has() macro" for a broken has()) are not reported.
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
// Token sets are built once per distinct content (the parser asks for the same few all the time).
const sets = new Map<string, Kinds>();
const set = (...kinds: TokenKind[]): Kinds => {
  const key = kinds.join(' ');
  let found = sets.get(key);
  if (found === undefined) sets.set(key, (found = new Set(kinds)));
  return found;
};
const unions = new WeakMap<Kinds, WeakMap<Kinds, Kinds>>();
/** The union of two sets, built once per pair. */
const union2 = (a: Kinds, b: Kinds): Kinds => {
  let byB = unions.get(a);
  if (byB === undefined) unions.set(a, (byB = new WeakMap()));
  let found = byB.get(b);
  if (found === undefined) byB.set(b, (found = new Set([...a, ...b])));
  return found;
};
const union = (...parts: Kinds[]): Kinds => parts.reduce(union2, set());

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

/** A recognition error: the rule it is raised in recovers (ANTLR's catch in every rule). */
class RecognitionError extends Error {}

/** More errors than this and the pass gives up (ANTLR always makes progress; this only guards). */
const MAX_ERRORS = 100;

function expecting(kinds: Kinds): string {
  const ordered = TOKEN_KINDS.filter((k) => kinds.has(k));
  return ordered.length === 1 ? kindDisplay(ordered[0]!) : `{${ordered.map(kindDisplay).join(', ')}}`;
}

function tokenDisplay(t: Token): string {
  return `'${t.kind === 'EOF' ? '<EOF>' : displayText(t.text)}'`;
}

const NONE: Kinds = new Set();

/**
 * CEL's grammar by recursive descent, with ANTLR's default error strategy: an error is
 * reported unless one was reported since the last token matched; a failed match first tries
 * deleting one token, then inserting the expected one; otherwise the innermost rule recovers
 * by skipping to a token that may follow one of the rules in progress.
 */
class Parser {
  private i = 0;
  readonly issues: SyntaxIssue[] = [];
  /** Set after an error until the next token is matched (errors in between are not reported). */
  private recovering = false;
  private lastErrorIndex = -1;
  /** What may follow each rule invocation in progress, innermost last. */
  private readonly follows: Kinds[] = [];

  constructor(private readonly source: string, private readonly tokens: readonly Token[]) {}

  private la(k = 1): Token {
    return this.tokens[Math.min(this.i + k - 1, this.tokens.length - 1)]!;
  }

  private skip(): void {
    if (this.i < this.tokens.length - 1) this.i++;
  }

  /** Matches the current token: the error condition ends. */
  private consume(): Token {
    const t = this.la();
    this.skip();
    this.recovering = false;
    return t;
  }

  private error(at: Token, message: string): void {
    if (this.recovering) return;
    this.recovering = true;
    if (this.issues.length >= MAX_ERRORS) throw new RecognitionError();
    this.issues.push({ offset: at.start, message: `Syntax error: ${message}`, syntax: true });
  }

  /** Runs one rule invocation that `follow` may come after; a recognition error inside ends it, recovered. */
  private rule(follow: Kinds, body: () => void): void {
    this.follows.push(follow);
    try {
      body();
    } catch (err) {
      if (!(err instanceof RecognitionError) || this.issues.length >= MAX_ERRORS) throw err;
      this.recover();
    } finally {
      this.follows.pop();
    }
  }

  /** ANTLR's recover(): skip to a token some rule in progress may be followed by (at least one after a repeated failure). */
  private recover(): void {
    if (this.lastErrorIndex === this.i) this.skip();
    this.lastErrorIndex = this.i;
    this.skipUntil(union(...this.follows));
  }

  private skipUntil(kinds: Kinds): void {
    while (this.la().kind !== 'EOF' && !kinds.has(this.la().kind)) this.skip();
  }

  /** ANTLR's match(): the token, or one deleted before it, or one assumed missing, else a mismatch. */
  private match(kind: TokenKind, follow: Kinds): void {
    const t = this.la();
    if (t.kind === kind) { this.consume(); return; }
    if (this.la(2).kind === kind) {
      this.error(t, `extraneous input ${tokenDisplay(t)} expecting ${kindDisplay(kind)}`);
      this.skip();
      this.consume();
      return;
    }
    if (follow.has(t.kind)) {
      this.error(t, `missing ${kindDisplay(kind)} at ${tokenDisplay(t)}`);
      return;
    }
    this.error(t, `mismatched input ${tokenDisplay(t)} expecting ${kindDisplay(kind)}`);
    throw new RecognitionError();
  }

  /** ANTLR's sync() before a block that must start with one of `kinds` (nothing while recovering). */
  private sync(kinds: Kinds): void {
    const t = this.la();
    if (this.recovering || kinds.has(t.kind)) return;
    if (kinds.has(this.la(2).kind)) {
      this.error(t, `extraneous input ${tokenDisplay(t)} expecting ${expecting(kinds)}`);
      this.skip();
      return;
    }
    this.error(t, `mismatched input ${tokenDisplay(t)} expecting ${expecting(kinds)}`);
    throw new RecognitionError();
  }

  /** No alternative fits the tokens from `from` (where the decision started) to `at`. */
  private noViableAlternative(from: Token, at: Token): never {
    const text = this.source.slice(from.start, at.kind === 'EOF' ? from.end : at.end);
    this.error(at, `no viable alternative at input '${displayText(text)}'`);
    throw new RecognitionError();
  }

  parse(): void {
    try {
      this.rule(set('EOF'), () => this.expr(set('EOF')));
      this.match('EOF', NONE);
    } catch (err) {
      if (!(err instanceof RecognitionError)) throw err;
    }
  }

  /** `terms`: the tokens that may end this expression in its context (for "missing ..."). */
  private expr(terms: Kinds): void {
    this.rule(set('?'), () => this.binary(terms, 0));
    if (this.la().kind !== '?') return;
    this.consume();
    this.rule(set(':'), () => this.binary(set(':'), 0));
    this.match(':', EXPR_START);
    this.rule(NONE, () => this.expr(terms));
  }

  private static readonly LEVELS: readonly Kinds[] = [set('||'), set('&&'), RELATIONS, ARITHMETIC];

  /** conditionalOr, conditionalAnd, relation, calc: operands of the next level joined by this level's operators. */
  private binary(terms: Kinds, level: number): void {
    const ops = Parser.LEVELS[level];
    if (!ops) { this.unary(terms); return; }
    this.rule(ops, () => this.binary(terms, level + 1));
    while (ops.has(this.la().kind)) {
      this.consume();
      this.rule(ops, () => this.binary(terms, level + 1));
    }
  }

  private unary(terms: Kinds): void {
    this.sync(EXPR_START);
    const t = this.la();
    if (!EXPR_START.has(t.kind)) this.noViableAlternative(t, t);
    if (t.kind === '!') {
      while (this.la().kind === '!') this.consume();
      const next = this.la();
      if (!MEMBER_START.has(next.kind)) {
        // The loop's sync: the token is unwanted; skip to what may continue.
        this.error(next, `extraneous input ${tokenDisplay(next)} expecting ${expecting(EXPR_START)}`);
        this.skipUntil(union(EXPR_START, ...this.follows));
      }
      this.rule(NONE, () => this.member(terms));
      return;
    }
    if (t.kind === '-') { this.negation(terms); return; }
    this.rule(NONE, () => this.member(terms));
  }

  /** A run of '-': negations, ending in a member (a number's sign belongs to its literal). */
  private negation(terms: Kinds): void {
    for (;;) {
      const minus = this.la();
      const next = this.la(2);
      if (next.kind === 'NUM_INT' || next.kind === 'NUM_FLOAT') { this.rule(NONE, () => this.member(terms)); return; }
      if (next.kind !== '-' && MEMBER_START.has(next.kind)) {
        this.consume();
        this.rule(NONE, () => this.member(terms));
        return;
      }
      if (next.kind !== '-') this.noViableAlternative(minus, next);
      this.consume();
    }
  }

  private member(terms: Kinds): void {
    const follow = union(AFTER_MEMBER, terms);
    this.rule(set('.', '['), () => this.primary(follow));
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
        }
      } else if (t.kind === '[') {
        this.consume();
        this.sync(OPTIONAL_EXPR_START);
        if (this.la().kind === '?') this.consume();
        this.rule(set(']'), () => this.expr(set(']')));
        this.match(']', follow);
      } else return;
    }
  }

  /** Call arguments after '(' up to and including ')'. */
  private args(follow: Kinds): void {
    this.sync(union(EXPR_START, set(')')));
    if (this.la().kind !== ')') {
      this.rule(set(')'), () => {
        const terms = set(',', ')');
        this.rule(set(','), () => this.expr(terms));
        while (this.la().kind === ',') {
          this.consume();
          this.rule(set(','), () => this.expr(terms));
        }
      });
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
        if (this.la(2).kind !== 'IDENTIFIER') this.noViableAlternative(t, this.la(2));
        this.consume();
        this.qualified(t, follow);
        return;
      case 'IDENTIFIER':
        this.qualified(t, follow);
        return;
      case '(':
        this.consume();
        this.rule(set(')'), () => this.expr(set(')')));
        this.match(')', follow);
        return;
      case '[':
        this.consume();
        this.elements(']', follow, () => this.optionalExpr(set(',', ']')));
        return;
      case '{':
        this.consume();
        this.elements('}', follow, () => {
          this.rule(set(':'), () => this.optionalExpr(set(':')));
          this.match(':', EXPR_START);
          this.rule(set(','), () => this.expr(set(',', '}')));
        });
        return;
      case '-':
        if (this.la(2).kind !== 'NUM_INT' && this.la(2).kind !== 'NUM_FLOAT') this.noViableAlternative(t, this.la(2));
        this.consume();
        this.consume();
        return;
      default:
        if (!LITERAL_START.has(t.kind)) this.noViableAlternative(t, t);
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
        this.rule(set(':'), () => {
          if (this.la().kind === '?') this.consume();
          this.match('IDENTIFIER', set(':'));
        });
        this.match(':', EXPR_START);
        this.rule(set(','), () => this.expr(set(',', '}')));
      }, set('?', 'IDENTIFIER'));
      return;
    }
    const name = this.consume();
    this.identifier(name, start);
    if (this.la().kind === '(') { this.consume(); this.args(follow); }
  }

  private optionalExpr(terms: Kinds): void {
    if (this.la().kind === '?') this.consume();
    this.rule(NONE, () => this.expr(terms));
  }

  /**
   * The elements of a list, map or message literal after its opening bracket, an optional
   * trailing comma, and the closing `close`.
   */
  private elements(close: TokenKind, follow: Kinds, element: () => void, starts: Kinds = OPTIONAL_EXPR_START): void {
    this.sync(union(starts, set(',', close)));
    if (starts.has(this.la().kind)) {
      this.rule(set(',', close), () => {
        element();
        while (this.la().kind === ',' && starts.has(this.la(2).kind)) {
          this.consume();
          element();
        }
      });
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
