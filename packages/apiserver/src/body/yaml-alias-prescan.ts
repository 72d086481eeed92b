/**
 * A linear pre-scan that refuses a YAML alias bomb before js-yaml parses it. Parsing one
 * 2.8 MB bomb up to the point where the alias budget (yaml-aliases.ts) stops it takes
 * js-yaml tens of ms; this scan takes a few. It answers true only when the full parse would
 * certainly stop with `document contains excessive aliasing`: it counts, alias by alias, a
 * lower bound of the nodes aliases add and an upper bound of every other node, and applies
 * the budget's ratio rule to those bounds. Anything it cannot read with certainty
 * (block scalars, tags, explicit keys, anchors on block nodes, a quote that may be part of a
 * plain scalar, several documents) makes it answer false, and the full parse decides.
 *
 * The one answer that can differ from the full parse's: a bomb that is also malformed before
 * the point where the budget would stop it gets `excessive aliasing` instead of the syntax
 * error (go-yaml, which parses the whole document before it counts, reports syntax errors
 * anywhere first; kapi already reports the bomb first when the error comes after it).
 */
import { YAML_ALIAS_RATIO } from './limits.js';
import { allowedAliasRatio } from './yaml-aliases.js';

interface Frame {
  readonly anchor: string | undefined;
  readonly map: boolean;
  commas: number;
  /** Distinct keys known to differ after parsing (a map's size is at least theirs). */
  readonly keys: Set<string>;
  expectKey: boolean;
}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

const isSpace = (c: number) => c === SPACE || c === TAB || c === LF || c === CR || Number.isNaN(c);
const isFlowIndicator = (c: number) => c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d;

/** Keys that parse to themselves as strings under the core schema, so that two different ones are two keys. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const KEYWORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** The end (exclusive) of the quoted scalar opening at `start`, or -1 when it does not close. */
function quotedEnd(text: string, start: number): number {
  const quote = text.charCodeAt(start);
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote === 0x22 && c === 0x5c) i++;
    else if (c === quote) {
      if (quote === 0x27 && text.charCodeAt(i + 1) === 0x27) i++;
      else return i + 1;
    }
  }
  return -1;
}

/**
 * Whether the alias budget would certainly stop `text`: true at the first alias where the
 * ratio rule holds for the bounds counted so far (the full parse stops there, or earlier);
 * false at the end, or as soon as the scan cannot be certain.
 */
function stopsAtAnAlias(text: string): boolean {
  const { minAliases, minDecodes } = YAML_ALIAS_RATIO;
  // plainMax: an upper bound of the non-alias nodes closed so far; aliases: alias nodes;
  // aliasedMin: a lower bound of the nodes they expanded to.
  /** Anchor name → lower bound of the nodes its value has; 0 when unknown. */
  const anchors = new Map<string, number>();
  const frames: Frame[] = [];
  let plainMax = 1;
  let aliases = 0;
  let aliasedMin = 0;
  let expectNode = true;
  let pendingAnchor: string | undefined;
  let lineStart = true;
  /** Where the last quoted scalar ended (a `:` right there is a value indicator in flow context). */
  let afterQuoted = -1;
  const n = text.length;
  let i = 0;
  /** Gives the pending anchor, if any, the scalar that just started (one node; anchored scalars are only read in flow context). */
  const anchorScalar = () => {
    if (pendingAnchor === undefined) return;
    anchors.set(pendingAnchor, 1);
    pendingAnchor = undefined;
  };
  const noteKey = (frame: Frame | undefined, key: string) => {
    if (frame !== undefined && frame.map && frame.expectKey && PLAIN_KEY.test(key) && !KEYWORDS.has(key)) frame.keys.add(key);
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      lineStart = true;
      i++;
      continue;
    }
    if (c === SPACE || c === TAB || c === CR) {
      i++;
      continue;
    }
    const atLineStart = lineStart;
    lineStart = false;
    const next = text.charCodeAt(i + 1);
    // A comment: `#` after whitespace (or at the start) runs to the end of the line.
    if (c === 0x23 && (i === 0 || isSpace(text.charCodeAt(i - 1)))) {
      const eol = text.indexOf('\n', i);
      i = eol < 0 ? n : eol;
      continue;
    }
    // Directives, document markers: several documents are an error the full parse words.
    if (atLineStart && (c === 0x25 || text.startsWith('---', i) || text.startsWith('...', i))) return false;
    const top = frames[frames.length - 1];
    const inFlow = top !== undefined;
    if (c === 0x5b || c === 0x7b) {
      if (!expectNode) return false;
      frames.push({ anchor: pendingAnchor, map: c === 0x7b, commas: 0, keys: new Set(), expectKey: c === 0x7b });
      pendingAnchor = undefined;
      plainMax += 2;
      i++;
      continue;
    }
    if (c === 0x5d || c === 0x7d) {
      if (top === undefined || top.map !== (c === 0x7d) || pendingAnchor !== undefined) return false;
      frames.pop();
      if (top.anchor !== undefined) anchors.set(top.anchor, top.map ? 1 + 2 * top.keys.size : 1 + top.commas);
      expectNode = false;
      i++;
      continue;
    }
    if (c === 0x2c && inFlow) {
      if (pendingAnchor !== undefined) return false;
      top.commas++;
      top.expectKey = top.map;
      plainMax += 1;
      expectNode = true;
      i++;
      continue;
    }
    if (c === 0x3a && (isSpace(next) || (inFlow && (isFlowIndicator(next) || afterQuoted === i)))) {
      if (pendingAnchor !== undefined) return false;
      if (top !== undefined) top.expectKey = false;
      plainMax += 2;
      expectNode = true;
      i++;
      continue;
    }
    if (c === 0x2d && isSpace(next) && !inFlow) {
      if (pendingAnchor !== undefined) return false;
      plainMax += 2;
      expectNode = true;
      i++;
      continue;
    }
    if (expectNode) {
      // Explicit keys, tags, block scalars, reserved indicators: not read here.
      if (((c === 0x3f || c === 0x7c || c === 0x3e) && isSpace(next)) || c === 0x21 || c === 0x7c || c === 0x3e || c === 0x40 || c === 0x60) return false;
      if (c === 0x26 || c === 0x2a) {
        let j = i + 1;
        while (j < n && !isSpace(text.charCodeAt(j)) && !isFlowIndicator(text.charCodeAt(j))) j++;
        const name = text.slice(i + 1, j);
        if (name === '' || pendingAnchor !== undefined) return false;
        i = j;
        if (c === 0x26) {
          pendingAnchor = name;
          // What the anchor is on: a flow collection (read below), a scalar on this line, or a block node.
          let k = j;
          while (k < n && (text.charCodeAt(k) === SPACE || text.charCodeAt(k) === TAB)) k++;
          const after = text.charCodeAt(k);
          if (after === 0x5b || after === 0x7b) continue;
          if (after === LF || after === CR || k >= n || after === 0x23) {
            // A block node: its size is not counted here.
            anchors.set(name, 0);
            pendingAnchor = undefined;
            continue;
          }
          // A scalar in block context: js-yaml first tries it as a block mapping's key and
          // rolls back, and the listener sees those nodes twice; not counted here.
          if (!inFlow) return false;
          continue;
        }
        const nodes = anchors.get(name);
        if (nodes === undefined || nodes === 0) return false;
        aliases++;
        aliasedMin += nodes;
        // At this alias's close the budget has counted at least aliasedMin aliased nodes out of
        // at most plainMax + aliases + aliasedMin (the ratio grows with the aliased nodes), and
        // at least aliases + aliasedMin decodes (the allowed ratio falls as decodes grow).
        const decodesMin = aliases + aliasedMin;
        if (aliasedMin > minAliases && decodesMin > minDecodes && aliasedMin / (plainMax + decodesMin) > allowedAliasRatio(decodesMin)) return true;
        expectNode = false;
        continue;
      }
      if (c === 0x22 || c === 0x27) {
        const end = quotedEnd(text, i);
        if (end < 0) return false;
        const body = text.slice(i + 1, end - 1);
        if (!body.includes('\\')) noteKey(top, body);
        anchorScalar();
        plainMax += 1;
        expectNode = false;
        afterQuoted = end;
        i = end;
        continue;
      }
    } else if (c === 0x22 || c === 0x27) {
      // A quote after a plain scalar's first word may belong to it: its end is not certain.
      return false;
    }
    // A plain scalar's word (or a `*`, `&` or anything else that is not at a node's start).
    let j = i + 1;
    for (; j < n; j++) {
      const d = text.charCodeAt(j);
      if (isSpace(d) || (inFlow && isFlowIndicator(d))) break;
      if (d === 0x3a) {
        const e = text.charCodeAt(j + 1);
        if (isSpace(e) || (inFlow && isFlowIndicator(e))) break;
      }
    }
    if (expectNode) {
      noteKey(top, text.slice(i, j));
      anchorScalar();
    }
    plainMax += 1;
    expectNode = false;
    i = j;
  }
  return false;
}

/** Whether the full parse would certainly stop `text` with excessive aliasing. */
export function certainlyExcessiveAliasing(text: string): boolean {
  // Too few `*` for the ratio rule to apply: no scan.
  let stars = 0;
  for (let at = text.indexOf('*'); at >= 0 && stars <= YAML_ALIAS_RATIO.minAliases; at = text.indexOf('*', at + 1)) stars++;
  return stars > YAML_ALIAS_RATIO.minAliases && stopsAtAnAlias(text);
}
