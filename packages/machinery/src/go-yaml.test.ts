import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goYamlKeyCompare, goYamlKeyLess, goYamlMarshal, goYamlMarshalSliced, goYamlNumber } from './go-yaml.js';
import { isStatusError } from './status.js';

// kube-apiserver 1.32 answered a ConfigMap holding these values with exactly this YAML
// (Accept: application/yaml; the data section of the answer).
const DATA: Record<string, string> = {"bool": "true", "colon": "a: b", "dash": "- x", "empty": "", "hash": "a #b", "lead": " leading space", "long": "word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ", "long-colon": "key: value value value value value value value value value value value value value value value value value value value value value value value value value value value value value value ", "longnospace": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "longquote": "it's word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ", "multi": "line1\nline2\n", "multilong": "word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \nword word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \nword word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \n", "null": "null", "num": "123", "quote": "it's \"q\"", "star": "*x", "tab": "a\tb", "tilde": "~", "unicode": "héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld "};
const KUBE_YAML = "data:\n  bool: \"true\"\n  colon: 'a: b'\n  dash: '- x'\n  empty: \"\"\n  hash: 'a #b'\n  lead: ' leading space'\n  long: 'word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word word word\n    word word word word word word word word word '\n  long-colon: 'key: value value value value value value value value value value value\n    value value value value value value value value value value value value value\n    value value value value value value '\n  longnospace: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  longquote: 'it''s word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word word word\n    word '\n  multi: |\n    line1\n    line2\n  multilong: \"word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word word word\n    \\nword word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word \\nword word\n    word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word \\n\"\n  \"null\": \"null\"\n  num: \"123\"\n  quote: it's \"q\"\n  star: '*x'\n  tab: \"a\\tb\"\n  tilde: \"~\"\n  unicode: 'héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld\n    héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld héllo wörld '\n";

void test('strings get the styles, quoting and folding kube-apiserver 1.32 writes', () => {
  assert.equal(goYamlMarshal({ data: DATA }), KUBE_YAML);
});

void test('literal blocks carry go-yaml\'s indentation and chomping hints', () => {
  assert.equal(goYamlMarshal({ a: 'x\ny\n' }), 'a: |\n  x\n  y\n');
  assert.equal(goYamlMarshal({ a: 'x\ny' }), 'a: |-\n  x\n  y\n');
  assert.equal(goYamlMarshal({ a: 'x\n\n' }), 'a: |+\n  x\n\n');
  assert.equal(goYamlMarshal({ a: ' x\ny' }), 'a: |2-\n   x\n  y\n');
});

void test('collections: keys in go-yaml\'s order, sequences under a key not indented, empty ones in flow style', () => {
  assert.equal(
    goYamlMarshal({ b: [1, { y: true, x: null }, [2, 3]], a: {}, c: [], 'item10': 1, 'item2': 2, '.': {} }),
    '.: {}\na: {}\nb:\n- 1\n- x: null\n  "y": true\n- - 2\n  - 3\nc: []\nitem2: 2\nitem10: 1\n',
  );
  assert.equal(goYamlMarshal({}), '{}\n');
  assert.ok(goYamlKeyLess('f:a', 'f:b') && goYamlKeyLess('.', 'f:a') && goYamlKeyLess('a2', 'a10') && !goYamlKeyLess('a10', 'a2'));
});

void test('numbers as Go formats the int64 or float64 go-yaml reads', () => {
  assert.deepEqual([1, -5, 0.5, 1234567.5, 0.00001, 1e21, 123456.5, 5e18].map(goYamlNumber), ['1', '-5', '0.5', '1.2345675e+06', '1e-05', '1e+21', '123456.5', '5000000000000000000']);
});

// A ConfigMap of 80 such values (YAML 1.1 look-alikes, indicators, timestamps, tabs, keys
// that sort by their digits) gave the same bytes from kapi and kube-apiserver 1.32.
void test('strings YAML 1.1 would read as something else are quoted', () => {
  for (const s of ['true', 'no', 'ON', '~', '123', '0x1F', '1_000', '1e3', '.5', '12:30', '2026-11-27', '2026-11-27T14:25:29Z', '-1']) {
    assert.equal(goYamlMarshal({ k: s }), `k: "${s}"\n`, s);
  }
  assert.equal(goYamlMarshal({ k: '-' }), "k: '-'\n");
  for (const s of ['abc', '1.2.3', '2026-13-01', 'v1', '<<', '0xZZ']) assert.equal(goYamlMarshal({ k: s }), `k: ${s}\n`, s);
});

void test('in slices: the same bytes, in chunks, with the event loop served in between', async () => {
  assert.deepEqual(await goYamlMarshalSliced({ data: DATA }), [KUBE_YAML]);
  assert.deepEqual(await goYamlMarshalSliced({}), ['{}\n']);
  // A list of 2,000 ConfigMaps (some 3 MB of YAML): many chunks, joined exactly goYamlMarshal's text.
  const list = {
    apiVersion: 'v1',
    kind: 'ConfigMapList',
    metadata: { resourceVersion: '7' },
    items: Array.from({ length: 2000 }, (_, i) => ({ metadata: { name: `cm-${i}`, labels: { n: String(i) } }, data: { ...DATA, [`own-${i}`]: `x\n${i}` } })),
  };
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  const chunks = await goYamlMarshalSliced(list);
  clearInterval(ticker);
  assert.ok(chunks.length > 50, `${chunks.length} chunks`);
  assert.equal(chunks.join(''), goYamlMarshal(list));
  assert.ok(ticks > 0, 'timers ran while the list was written');
});

void test('goYamlKeyCompare orders keys as goYamlKeyLess does', () => {
  const reference = (a: string, b: string) => (goYamlKeyLess(a, b) ? -1 : goYamlKeyLess(b, a) ? 1 : 0);
  const pieces = ['a', 'B', 'z', '0', '00', '007', '1', '9', '10', '12345678901234567890', '-', '.', '_', '/', ':', 'é', 'Ω', '😀', '\ud83d', ' ', 'f:', 'item', 'x0', 'x01'];
  // A fixed pseudo-random walk over keys made of 1–4 pieces: every pair compared both ways.
  let seed = 17;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const keys = Array.from({ length: 400 }, () => Array.from({ length: 1 + random(4) }, () => pieces[random(pieces.length)]).join(''));
  keys.push('', 'a', 'a', 'item2', 'item10', 'a10', 'a2', 'a02', 'a002');
  for (const a of keys) {
    for (const b of keys) assert.equal(goYamlKeyCompare(a, b), reference(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
});

/**
 * `k: <words>` as a plain scalar folds: at the first space past column 80 the line ends and
 * the next word starts a line indented by two (go-yaml's rule, for single spaces between words).
 */
function foldedPlain(words: readonly string[]): string {
  let out = 'k:';
  let column = 2;
  for (const [i, word] of words.entries()) {
    if (i > 0 && column > 80) {
      out += '\n  ';
      column = 2;
    } else {
      out += ' ';
      column++;
    }
    out += word;
    column += word.length;
  }
  return `${out}\n`;
}

// Lengths around the emitter's step (64 Ki code units), where a long string is cut.
const LONG = [65_535, 65_536, 65_537, 200_001];

void test('long strings: every style, cut into steps anywhere (even inside a surrogate pair), as one string', async () => {
  const cases: [string, unknown, string][] = [];
  for (const n of LONG) {
    const x = 'x'.repeat(n);
    cases.push([`plain ${n}`, { k: x }, `k: ${x}\n`]);
    // 4-byte UTF-8 is not printable for go-yaml: each is a \U escape; an odd start puts a pair across the cut.
    const emoji = `x${'😀'.repeat(n >> 1)}`;
    cases.push([`emoji ${n}`, { k: emoji }, `k: "x${'\\U0001F600'.repeat(n >> 1)}"\n`]);
    // A leading indicator: single quotes, a quote in it doubled.
    const quoted = `*${"it's".repeat(Math.ceil(n / 4))}`;
    cases.push([`single ${n}`, { k: quoted }, `k: '*${"it''s".repeat(Math.ceil(n / 4))}'\n`]);
    // A line feed: a literal block, each line indented.
    const lines = Array.from({ length: Math.ceil(n / 9) }, (_, i) => `line ${String(i).padStart(3, '0')}`);
    cases.push([`literal ${n}`, { k: `${lines.join('\n')}\n` }, `k: |\n${lines.map((line) => `  ${line}\n`).join('')}`]);
    // Words folded past column 80.
    const words = Array.from({ length: Math.ceil(n / 6) }, (_, i) => (i % 7 === 3 ? 'wörd' : i % 11 === 5 ? 'long-word' : 'word'));
    cases.push([`folded ${n}`, { k: words.join(' ') }, foldedPlain(words)]);
  }
  for (const [what, value, expected] of cases) {
    const text = goYamlMarshal(value);
    assert.equal(text, expected, what);
    const chunks = await goYamlMarshalSliced(value);
    assert.equal(chunks.join(''), text, `${what}: sliced`);
  }
});

void test('in slices: one long string is written in steps, with the event loop served in between', async (t) => {
  // What kube's 400 for a megabyte of emoji that is no timestamp holds: Go-quoted bytes, quotes
  // and `: ` (single quotes), some 8 MB in one string.
  const value = { kind: 'Status', message: `parsing time "${'\\xf0\\x9f\\x98\\x80'.repeat(500_000)}": cannot parse` };
  let turns = 0;
  let writing = true;
  const turn = () => {
    turns++;
    if (writing) setImmediate(turn);
  };
  setImmediate(turn);
  const started = performance.now();
  const chunks = await goYamlMarshalSliced(value);
  writing = false;
  t.diagnostic(`${chunks.length} chunks, ${turns} turns of the loop in ${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(chunks.join(''), goYamlMarshal(value));
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  assert.ok(turns > 1, `${turns} turns of the event loop ran while the string was written`);
});

// Recorded from sigs.k8s.io/yaml v1.4.0's Marshal (go-yaml v2's emitter, after a trip through
// JSON), the library kube-apiserver writes YAML with: line breaks other than \n, and a BOM.
const BREAKS: readonly (readonly [unknown, string])[] = [
  [{ k: 'a\u2028b' }, "k: 'a\u2028  b'\n"],
  [{ k: 'a\u2029b c' }, "k: 'a\u2029  b c'\n"],
  [{ k: 'x\u2028' }, "k: 'x\u2028'\n"],
  [{ k: '\u2029x' }, "k: '\u2029  x'\n"],
  [{ k: "it's\u2028'q'" }, "k: 'it''s\u2028  ''q'''\n"],
  [[{ k: ['a\u2028\u2028b'] }], "- k:\n  - 'a\u2028\u2028    b'\n"],
  [['a\u2029b'], "- 'a\u2029  b'\n"],
  [{ 'a\u2028b': 'v' }, "? 'a\u2028  b'\n: v\n"],
  // After a break the column starts again: the fold comes 80 columns after it.
  [
    { k: 'word word word word word word word\u2028word word word word word word word word\u2028word word word word word word word word' },
    "k: 'word word word word word word word\u2028  word word word word word word word word\u2028  word word word word word word word word'\n",
  ],
  [
    { k: 'a\u2028word word word word word word word word word word word word word word word word word word word word word word' },
    "k: 'a\u2028  word word word word word word word word word word word word word word word word\n  word word word word word word'\n",
  ],
  // A raw NEL is folded by go-yaml's scanner reading the JSON: one is a space, n are n - 1 line feeds.
  [{ k: 'x\u0085y' }, 'k: x y\n'],
  [{ k: 'x\u0085 \u0085y' }, 'k: |-\n  x\n  y\n'],
  [{ k: 'x \u0085\u0085\u0085 y' }, 'k: |-\n  x\n\n  y\n'],
  [{ k: '\u0085x' }, "k: ' x'\n"],
  [{ k: 'x\u0085' }, "k: 'x '\n"],
  // A value that starts with a BOM has every character escaped.
  [{ k: '\ufeffb c' }, 'k: "\\uFEFF\\x62\\x20\\x63"\n'],
  [{ '\ufeffk': 'v' }, '"\\uFEFF\\x6B": v\n'],
];

void test('line breaks other than \\n and a leading BOM are written as sigs.k8s.io/yaml writes them', async () => {
  for (const [value, yaml] of BREAKS) {
    assert.equal(goYamlMarshal(value), yaml, JSON.stringify(value));
    assert.equal((await goYamlMarshalSliced(value)).join(''), yaml, JSON.stringify(value));
  }
});

void test('a single-quoted string longer than a step keeps its line breaks and indentation across steps', async () => {
  // 'a' then U+2028 and a word, 30,000 times (some 150,000 code units, three steps): each
  // word after a break starts a line indented by two.
  const value = 'a' + '\u2028word'.repeat(30_000);
  const yaml = "k: 'a" + '\u2028  word'.repeat(30_000) + "'\n";
  assert.equal(goYamlMarshal({ k: value }), yaml);
  const chunks = await goYamlMarshalSliced({ k: value });
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  assert.equal(chunks.join(''), yaml);
});

// Recorded from sigs.k8s.io/yaml v1.4.0: a number go-yaml cannot hold (Go's ParseInt, ParseUint
// and ParseFloat refuse it as out of range) is read back as a string, so it is written plain.
void test('numbers out of int64, uint64 and float64 range are plain strings; those in range are quoted', () => {
  const plain = ['1e3123', '.5e999', '-1e999', '1.8e308', '0x1FFFFFFFFFFFFFFFF', '+0xFFFFFFFFFFFFFFFF', '-0x8000000000000001', `0b${'1'.repeat(65)}`, '1'.repeat(400)];
  for (const s of plain) assert.equal(goYamlMarshal({ k: s }), `k: ${s}\n`, s);
  const quoted = ['1.7e308', '1e-400', '0XFFFFFFFFFFFFFFFF', '+0x7FFFFFFFFFFFFFFF', '-0x8000000000000000', '18446744073709551616', `0${'7'.repeat(30)}`, '0O17', '-0b1'];
  for (const s of quoted) assert.equal(goYamlMarshal({ k: s }), `k: "${s}"\n`, s);
});

// Recorded from sigs.k8s.io/yaml v1.4.0: the errors of Marshal when go-yaml cannot read back the
// JSON it writes first (kube-apiserver answers them as a 500 Status with the error's text).
void test('values go-yaml cannot read back from JSON throw a 500 StatusError with go-yaml\'s message', async () => {
  const failing: readonly (readonly [unknown, string])[] = [
    [{ k: 'x\u007fy' }, 'yaml: control characters are not allowed'],
    [{ k: ['\u0080'] }, 'yaml: control characters are not allowed'],
    [{ '\uffff': 'v' }, 'yaml: control characters are not allowed'],
    [{ k: 'x\u0085--- y' }, 'yaml: line 2: found unexpected document indicator'],
    [{ k: 'a\u0085b', l: 'x\u0085\u0085... y' }, 'yaml: line 4: found unexpected document indicator'],
    [{ 'a\u0085b': 'v' }, "yaml: line 1: did not find expected ',' or '}'"],
    [{ 'a\u0085\u0085\u0085b': 'v' }, "yaml: line 3: did not find expected ',' or '}'"],
    [{ z: { '\u0085b': 'v' } }, "yaml: line 1: did not find expected ',' or '}'"],
  ];
  for (const [value, message] of failing) {
    assert.throws(() => goYamlMarshal(value), (err: unknown) => isStatusError(err) && err.code === 500 && err.status.message === message && err.status.reason === undefined, JSON.stringify(value));
    await assert.rejects(goYamlMarshalSliced(value), (err: unknown) => isStatusError(err) && err.status.message === message, JSON.stringify(value));
  }
  // A NEL not at a line's start before `---`, or `---` not followed by a blank, is read fine.
  assert.equal(goYamlMarshal({ k: 'x\u0085 --- y' }), "k: x --- y\n");
  assert.equal(goYamlMarshal({ k: 'x\u0085---y' }), 'k: x ---y\n');
});
