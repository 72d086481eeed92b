/** The alias pre-scan refuses only what the full parse refuses (with excessive aliasing), and refuses the issue's bomb. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BodyDecodeError } from './decode-error.js';
import { certainlyExcessiveAliasing } from './yaml-alias-prescan.js';
import { EXCESSIVE_ALIASING } from './yaml-aliases.js';
import { parseYaml } from './yaml-decode.js';

/** What the full parse (no pre-scan) answers: 'excessive', 'ok', or another error. */
function fullParse(text: string): string {
  try {
    parseYaml(text, true);
    return 'ok';
  } catch (err) {
    if (err instanceof BodyDecodeError && err.detail === EXCESSIVE_ALIASING) return 'excessive';
    return 'error';
  }
}

/** Issue 17's reproduction 2, `bytes` long: flow maps anchored once and aliased 2000 times each. */
function anchorsAndAliases(bytes: number, aliasesPerLine = 2000): string {
  const parts = ['apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aliases}\n'];
  let size = parts[0]!.length;
  for (let i = 0; size < bytes; i++) {
    const anchors = `x${i}: &x${i} {a: "1", b: "2", c: "3", d: "4"}\n`;
    const aliases = `y${i}: [${Array.from({ length: aliasesPerLine }, () => `*x${i}`).join(', ')}]\n`;
    parts.push(anchors, aliases);
    size += anchors.length + aliases.length;
  }
  return parts.join('');
}

/** A seeded generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

/** Documents with many aliases written in many ways: anchors on scalars, flow and block nodes, keys repeated, aliases in quotes, comments and plain scalars. */
function aliasHeavy(next: () => number): string {
  const lines: string[] = [];
  const anchors: string[] = [];
  const n = 2 + Math.floor(next() * 6);
  for (let i = 0; i < n; i++) {
    const value = pick(next, [
      '{a: 1, b: 2, c: 3}',
      '{a: 1, a: 2, a: 3, a: 4}',
      '{"a":1,"b":2}',
      '[1, 2, 3, 4, 5]',
      '[1, 2, 3,]',
      '{}',
      '[]',
      '{a, b, c}',
      '[[], [], [], []]',
      '{k: [1, 2], l: {m: n}}',
      'plain scalar',
      "'quoted, [scalar]'",
      '\n  a: 1\n  b: 2',
      '\n  - 1\n  - 2',
    ]);
    lines.push(`a${i}: &a${i} ${value}`);
    anchors.push(`a${i}`);
  }
  // Large anchored sequences, and anchors on sequences of aliases: what bombs are made of.
  for (let i = 0; i < Math.floor(next() * 3); i++) {
    const size = 1 + Math.floor(next() * 3000);
    lines.push(`b${i}: &b${i} [${Array.from({ length: size }, () => (next() < 0.5 ? '1' : `*${pick(next, anchors)}`)).join(', ')}]`);
    anchors.push(`b${i}`);
  }
  const m = Math.floor(next() * 40);
  for (let i = 0; i < m; i++) {
    const count = 1 + Math.floor(next() * 400);
    const alias = () => `*${pick(next, anchors)}`;
    const items = Array.from({ length: count }, alias);
    lines.push(
      pick(next, [
        `s${i}: [${items.join(', ')}]`,
        `s${i}: [${items.join(',')}]`,
        `s${i}: {${items.map((a, k) => `k${k}: ${a}`).join(', ')}}`,
        `s${i}:\n${items.map((a) => `  - ${a}`).join('\n')}`,
        `s${i}: "${items.join(', ')}"`,
        `s${i}: '${items.join(', ')}'`,
        `s${i}: plain ${items.join(' ')}`,
        `# ${items.join(', ')}`,
        `s${i}: |\n  ${items.join(', ')}`,
        `s${i}: [x\n  ${items.join(' ')}]`,
        `s${i}: !!str ${alias()}`,
        `s${i}: ${alias()}`,
      ]),
    );
  }
  return lines.join('\n') + '\n';
}

/** Cuts, doubles or replaces a few characters. */
function mutate(next: () => number, text: string): string {
  let out = text;
  const edits = 1 + Math.floor(next() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(next() * out.length);
    const ch = pick(next, ['"', "'", '#', '[', ']', '{', '}', ',', ':', ' ', '\n', '&', '*', '|', '-', 'x']);
    out = pick(next, [() => out.slice(0, at) + ch + out.slice(at), () => out.slice(0, at) + out.slice(at + 1), () => out.slice(0, at) + ch + out.slice(at + 1)])();
  }
  return out;
}

void describe('the YAML alias pre-scan', () => {
  void it('refuses the 2.8 MB bomb of reproduction 2, as the full parse does', () => {
    const bomb = anchorsAndAliases(2_800_000);
    assert.equal(fullParse(bomb), 'excessive');
    assert.equal(certainlyExcessiveAliasing(bomb), true);
  });

  void it('leaves modest aliasing, and aliases in quotes, comments, block scalars and plain scalars, to the full parse', () => {
    const written = Array.from({ length: 3000 }, () => '*x').join(', ');
    for (const text of [
      'a: &x {b: 1}\nc: *x\n',
      anchorsAndAliases(2000, 10),
      `a: &x {b: 1, c: 2}\nq: "${written}"\n`,
      `a: &x {b: 1, c: 2}\nq: '${written}'\n`,
      `a: &x {b: 1, c: 2}\n# ${written}\n`,
      `a: &x {b: 1, c: 2}\nq: |\n  ${written}\n`,
      `a: &x {b: 1, c: 2}\nq: plain ${written.replaceAll(',', '')}\n`,
      `a: &x {b: 1, c: 2}\nq: [plain ${written.replaceAll(',', '')}]\n`,
    ]) {
      assert.equal(certainlyExcessiveAliasing(text), false, text.slice(0, 80));
      assert.equal(fullParse(text), 'ok', text.slice(0, 80));
    }
  });

  void it('says excessive only where the full parse does, on 1000 seeded documents and their mutations', () => {
    const next = random(17);
    let refused = 0;
    let agreed = 0;
    let bombs = 0;
    for (let i = 0; i < 1000; i++) {
      const base = aliasHeavy(next);
      for (const text of [base, mutate(next, base)]) {
        if (!certainlyExcessiveAliasing(text)) {
          if (i % 10 === 0 && fullParse(text) === 'excessive') bombs++;
          continue;
        }
        refused++;
        assert.equal(fullParse(text), 'excessive', text.slice(0, 400));
        agreed++;
      }
    }
    console.log(`pre-scan refused ${refused} of 2000 documents; of every tenth it passed on, the full parse refused ${bombs}`);
    // The generator makes bombs too: the pre-scan must have had something to refuse.
    assert.ok(refused > 50, `pre-scan refused ${refused}`);
    assert.equal(agreed, refused);
  });
});
