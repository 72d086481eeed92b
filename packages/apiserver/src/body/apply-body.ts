/**
 * Apply configurations (`application/apply-patch+yaml`): YAML, which most clients send as
 * JSON. A body that parses as JSON stays on the event loop; anything else is YAML for a
 * decoder thread. Duplicate keys are reported as go-yaml's lines, as kube's apply does.
 */
import { BodyDecodeError } from './decode-error.js';
import { beforeDecoding, decodeJson, jsonDuplicateFields, looksLikeJson } from './json-body.js';
import { EXCEEDED_DEPTH } from './yaml-aliases.js';
import { yamlDecoder } from './yaml-decoder-pool.js';

export interface DecodedApplyBody {
  readonly body: unknown;
  /** go-yaml's lines for duplicate keys; only when asked. */
  readonly duplicateKeyLines: readonly string[];
}

/** JSON.parse's result for a body that looks like JSON, or undefined when `text` must go to the YAML decoder. Throws BodyDecodeError for JSON nested too deep. */
function asJson(text: string, strict: boolean): DecodedApplyBody | undefined {
  let body: unknown;
  try {
    body = decodeJson(text);
  } catch (err) {
    if (err instanceof BodyDecodeError && err.detail.endsWith('exceeded max depth')) throw new BodyDecodeError(EXCEEDED_DEPTH);
    // Not JSON (`{a: 1}` is YAML's flow style): the YAML decoder decides.
    return undefined;
  }
  // Duplicates are rare; the YAML decoder words them with their lines.
  if (strict && jsonDuplicateFields(text).length > 0) return undefined;
  return { body, duplicateKeyLines: [] };
}

/**
 * Decodes an apply configuration; with `strict`, also lists its duplicate keys. Throws
 * BodyDecodeError (`yaml: ...`) for a body that does not decode, and the decoder pool's 413
 * for one too costly to decode.
 */
export async function decodeApplyBody(bytes: Buffer, strict: boolean): Promise<DecodedApplyBody> {
  // Only a body that starts like JSON becomes a string here; YAML goes to the decoder as bytes.
  const jsonLike = looksLikeJson(bytes);
  if (jsonLike) await beforeDecoding(bytes);
  const text = jsonLike ? bytes.toString('utf8') : undefined;
  const json = text === undefined ? undefined : asJson(text, strict);
  if (json !== undefined) return json;
  const decoded = await yamlDecoder().decode(text ?? bytes, { duplicates: strict });
  await beforeDecoding(decoded.json);
  return { body: JSON.parse(decoded.json) as unknown, duplicateKeyLines: decoded.duplicateKeys };
}
