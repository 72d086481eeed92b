/**
 * YAML bodies to JSON, as kube's sigs.k8s.io/yaml does it, within the body limits. It runs on a
 * YAML decoder thread (yaml-decoder-pool.ts): parsing is tens of times slower than JSON.parse.
 *
 * js-yaml (YAML 1.2 core schema; JSON is valid YAML) parses, with MAX_NESTING_DEPTH and the
 * alias budget enforced as it goes. Duplicate keys keep the last value; when asked, they are
 * listed as go-yaml's strict decoder lists them (`line 7: key "a" already set in map`).
 */
import jsyaml from 'js-yaml';
import type { LoadOptions } from 'js-yaml';
import { LineCounter, isScalar, parseDocument, visit } from 'yaml';
import { BodyDecodeError } from './decode-error.js';
import { MAX_NESTING_DEPTH, YAML_DUPLICATE_LINES_MAX_BYTES } from './limits.js';
import { certainlyExcessiveAliasing } from './yaml-alias-prescan.js';
import { AliasBudget, EXCEEDED_DEPTH, EXCESSIVE_ALIASING, type ParserState } from './yaml-aliases.js';

export interface YamlDecodeOptions {
  /** List duplicate keys (strict decoding); otherwise they are only resolved, last wins. */
  readonly duplicates: boolean;
}

export interface DecodedYaml {
  /** The document as JSON text; `null` for an empty document. */
  readonly json: string;
  /** go-yaml's lines for duplicate keys (only when asked), in document order. */
  readonly duplicateKeys: readonly string[];
}

const DUPLICATE_KEY = 'duplicated mapping key';

/** Parses `text` with js-yaml under the depth and alias limits (no pre-scan). */
export function parseYaml(text: string, json: boolean): unknown {
  const budget = new AliasBudget();
  const options = {
    schema: jsyaml.CORE_SCHEMA,
    json,
    // js-yaml counts scalars as a level of their own; the budget checks containers exactly.
    maxDepth: MAX_NESTING_DEPTH + 1,
    listener(event: string, state: unknown) {
      if (event === 'close') budget.closed(state as ParserState);
    },
  } as LoadOptions;
  return jsyaml.load(text, options);
}

/** go-yaml's text for an error js-yaml throws: `yaml: line N: <reason>`. */
function translate(err: unknown): BodyDecodeError {
  if (err instanceof BodyDecodeError) return err;
  if (err instanceof jsyaml.YAMLException) {
    if (err.reason.startsWith('nesting exceeded maxDepth')) return new BodyDecodeError(EXCEEDED_DEPTH);
    return new BodyDecodeError(`yaml: line ${err.mark.line + 1}: ${err.reason}`);
  }
  if (err instanceof RangeError) return new BodyDecodeError(EXCEEDED_DEPTH);
  return new BodyDecodeError(`yaml: ${(err as Error).message}`);
}

/** Every duplicate key of the document, as go-yaml's strict decoder words it. */
function duplicateKeyLines(text: string): string[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: false, prettyErrors: false, lineCounter });
  const lines: string[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key)) continue;
        const name = String(key.value);
        if (seen.has(name)) {
          const line = key.range !== undefined && key.range !== null ? lineCounter.linePos(key.range[0]).line : 0;
          lines.push(`line ${line}: key ${JSON.stringify(name)} already set in map`);
        }
        seen.add(name);
      }
    },
  });
  return lines;
}

/** The duplicate key js-yaml stopped at (bodies too large to list them all). */
function firstDuplicate(text: string, err: jsyaml.YAMLException): string {
  const rest = text.slice(err.mark.position, err.mark.position + 1024);
  const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:\n]*?)\s*:/.exec(rest);
  let name = match?.[1] ?? '';
  if (name.startsWith('"')) name = JSON.parse(name) as string;
  else if (name.startsWith("'")) name = name.slice(1, -1).replaceAll("''", "'");
  return `line ${err.mark.line + 1}: key ${JSON.stringify(name)} already set in map`;
}

/**
 * Decodes `text`. Throws BodyDecodeError with go-yaml's text for the limits (`yaml: exceeded
 * max depth of 1000`, `yaml: document contains excessive aliasing`) and `yaml: line N: ...`
 * for malformed YAML (a stream of more than one document included).
 */
export function decodeYaml(text: string, options: YamlDecodeOptions): DecodedYaml {
  // A bomb is refused by a linear scan before js-yaml spends tens of ms reaching its limit.
  if (certainlyExcessiveAliasing(text)) throw new BodyDecodeError(EXCESSIVE_ALIASING);
  let value: unknown;
  let duplicateKeys: string[] = [];
  try {
    value = parseYaml(text, !options.duplicates);
  } catch (err) {
    if (!(err instanceof jsyaml.YAMLException && err.reason === DUPLICATE_KEY)) throw translate(err);
    try {
      value = parseYaml(text, true);
    } catch (again) {
      throw translate(again);
    }
    duplicateKeys = text.length <= YAML_DUPLICATE_LINES_MAX_BYTES ? duplicateKeyLines(text) : [firstDuplicate(text, err)];
  }
  return { json: JSON.stringify(value ?? null), duplicateKeys };
}
