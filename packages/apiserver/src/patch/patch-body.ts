/**
 * Decoding PATCH bodies per patch type, with what strict decoding needs: JSON patches
 * (json-patch, merge, strategic) report duplicate keys by path; apply bodies are YAML 1.2
 * (JSON is valid YAML) and report duplicate keys as go-yaml's "already set in map" lines.
 */
import { LineCounter, isScalar, parseDocument, visit } from 'yaml';
import { badRequest, findDuplicateFields } from '@kapi/machinery';
import type { FieldValidation, PatchType } from '@kapi/registry';
import { decodeBody, jsonDepth, MAX_JSON_DEPTH } from '../http/body.js';

/** Every patch type kapi implements, in kube's order. */
export const PATCH_TYPES: readonly PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

export interface DecodedPatchBody {
  readonly body: unknown;
  /** Paths of duplicate keys (JSON bodies). */
  readonly duplicateFields?: readonly string[];
  /** go-yaml's strict decoding error for duplicate keys (apply bodies). */
  readonly strictYamlError?: string;
}

/** Decodes `bytes` as the body of a `type` patch. Throws 400 for malformed bodies. */
export function decodePatchBody(type: PatchType, bytes: Buffer, fieldValidation: FieldValidation | undefined): DecodedPatchBody {
  const strict = fieldValidation !== 'Ignore';
  if (type !== 'application/apply-patch+yaml') {
    const body = decodeBody(bytes, 'json');
    if (!strict) return { body };
    const duplicateFields = findDuplicateFields(bytes.toString('utf8'));
    return duplicateFields.length > 0 ? { body, duplicateFields } : { body };
  }
  return decodeApplyBody(bytes.toString('utf8'), strict);
}

function decodeApplyBody(text: string, strict: boolean): DecodedPatchBody {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: false, prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${doc.errors[0]!.message.split('\n')[0]}`);
  let body: unknown;
  try {
    body = doc.toJS({ maxAliasCount: 100 });
    body = JSON.parse(JSON.stringify(body ?? null)) as unknown;
  } catch (err) {
    throw badRequest(`error decoding YAML: error converting YAML to JSON: ${(err as Error).message}`);
  }
  if (jsonDepth(body) > MAX_JSON_DEPTH) throw badRequest(`json: exceeded max depth of ${MAX_JSON_DEPTH}`);
  if (!strict) return { body };
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
          lines.push(`  line ${line}: key ${JSON.stringify(name)} already set in map`);
        }
        seen.add(name);
      }
    },
  });
  if (lines.length === 0) return { body };
  return { body, strictYamlError: `error converting YAML to JSON: yaml: unmarshal errors:\n${lines.join('\n')}` };
}
