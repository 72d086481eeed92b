/**
 * Bounding what YAML aliases expand to, counted while js-yaml parses (its listener sees every
 * node as it closes, aliases included, so a bomb stops at the alias that tips it over).
 *
 * - go-yaml's rule, which kube has: the share of nodes that come from alias expansion
 *   (YAML_ALIAS_RATIO).
 * - kapi's: aliases may add at most MAX_YAML_ALIAS_EXPANSION_BYTES of JSON.
 * - Nesting: an alias placed deep may not take the expanded document past MAX_NESTING_DEPTH.
 *
 * js-yaml shares an aliased object instead of copying it, so the sizes of a target are
 * computed once per object.
 */
import { BodyDecodeError } from './decode-error.js';
import { MAX_NESTING_DEPTH, MAX_YAML_ALIAS_EXPANSION_BYTES, YAML_ALIAS_RATIO } from './limits.js';

/** What one value expands to: nodes as go-yaml counts them (keys too), JSON bytes, container nesting. */
interface Expansion {
  readonly nodes: number;
  readonly bytes: number;
  readonly depth: number;
}

export const EXCESSIVE_ALIASING = 'yaml: document contains excessive aliasing';
export const EXCEEDED_DEPTH = `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`;

/** The parser state the listener reads (a subset of js-yaml's State). */
export interface ParserState {
  readonly kind: string | null;
  readonly result: unknown;
  readonly depth: number;
}

/** go-yaml's allowedAliasRatio. */
export function allowedAliasRatio(decodes: number): number {
  const { rangeLow, rangeHigh } = YAML_ALIAS_RATIO;
  if (decodes <= rangeLow) return 0.99;
  if (decodes >= rangeHigh) return 0.1;
  return 0.99 - 0.89 * ((decodes - rangeLow) / (rangeHigh - rangeLow));
}

export class AliasBudget {
  private decodes = 0;
  private aliased = 0;
  private addedBytes = 0;
  private readonly expansions = new WeakMap<object, Expansion>();

  /** js-yaml's listener for `close`: throws BodyDecodeError when a limit is passed. */
  closed(state: ParserState): void {
    const { kind, result, depth } = state;
    if (kind === 'mapping' || kind === 'sequence') {
      if (depth > MAX_NESTING_DEPTH) throw new BodyDecodeError(EXCEEDED_DEPTH);
    }
    this.decodes++;
    // An alias leaves the node kind unset and the anchored value as the result.
    if (kind !== null || result === null || result === undefined) return;
    const expansion = this.expansionOf(result);
    if (depth - 1 + expansion.depth > MAX_NESTING_DEPTH) throw new BodyDecodeError(EXCEEDED_DEPTH);
    this.decodes += expansion.nodes;
    this.aliased += expansion.nodes;
    this.addedBytes += expansion.bytes;
    const { minAliases, minDecodes } = YAML_ALIAS_RATIO;
    const ratioExceeded = this.aliased > minAliases && this.decodes > minDecodes && this.aliased / this.decodes > allowedAliasRatio(this.decodes);
    if (ratioExceeded || this.addedBytes > MAX_YAML_ALIAS_EXPANSION_BYTES) throw new BodyDecodeError(EXCESSIVE_ALIASING);
  }

  private expansionOf(value: unknown): Expansion {
    if (typeof value !== 'object' || value === null) return { nodes: 1, bytes: scalarBytes(value), depth: 0 };
    const known = this.expansions.get(value);
    if (known !== undefined) return known;
    let nodes = 1;
    let bytes = 2;
    let depth = 0;
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) {
        const e = this.expansionOf(item);
        nodes += e.nodes;
        bytes += e.bytes + 1;
        depth = Math.max(depth, e.depth);
      }
    } else {
      for (const [key, item] of Object.entries(value)) {
        const e = this.expansionOf(item);
        nodes += 1 + e.nodes;
        bytes += key.length + 4 + e.bytes;
        depth = Math.max(depth, e.depth);
      }
    }
    const expansion = { nodes, bytes, depth: depth + 1 };
    this.expansions.set(value, expansion);
    return expansion;
  }
}

function scalarBytes(value: unknown): number {
  return typeof value === 'string' ? value.length + 2 : String(value).length;
}
