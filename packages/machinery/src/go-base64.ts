/**
 * Checks base64 text the way Go's encoding/json decodes `[]byte` fields (standard alphabet,
 * padding required, CR/LF ignored), so invalid Secret data fails with Go's message:
 * `illegal base64 data at input byte N`.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const values = new Map<string, number>([...ALPHABET].map((c, i) => [c, i]));

function isNewline(c: string | undefined): boolean {
  return c === '\n' || c === '\r';
}

/**
 * Returns the byte offset Go reports for malformed input, or `undefined` when `text` is
 * valid. Walks the input in quanta of four symbols, as Go's decoder does.
 */
export function base64ErrorOffset(text: string): number | undefined {
  let i = 0;
  for (;;) {
    let j = 0;
    while (j < 4) {
      if (i === text.length) {
        if (j === 0) return undefined;
        return i - j;
      }
      const c = text[i]!;
      i++;
      if (values.has(c)) {
        j++;
        continue;
      }
      if (isNewline(c)) continue;
      if (c !== '=') return i - 1;
      // Padding: only valid after two or three symbols.
      if (j === 0 || j === 1) return i - 1;
      if (j === 2) {
        while (i < text.length && isNewline(text[i])) i++;
        if (i === text.length) return text.length;
        if (text[i] !== '=') return i - 1;
        i++;
      }
      while (i < text.length && isNewline(text[i])) i++;
      return i < text.length ? i : undefined;
    }
  }
}

/** Decoded size in bytes of valid base64 text. */
export function base64DecodedLength(text: string): number {
  return Buffer.from(text, 'base64').length;
}
