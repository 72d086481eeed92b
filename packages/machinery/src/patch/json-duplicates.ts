/**
 * Duplicate object keys in JSON text, which JSON.parse silently resolves (last wins). kube's
 * strict decoding reports each as `duplicate field "<path>"`, the path joining keys with "."
 * and list positions as `[i]` (sigs.k8s.io/json's field stack), at most 100 distinct ones.
 * A single pass over the text that builds no values; malformed JSON yields whatever was
 * found before the error (parsing proper reports the error).
 */

export const MAX_STRICT_ERRORS = 100;

interface Frame {
  readonly isObject: boolean;
  readonly path: string;
  readonly keys: Set<string> | undefined;
  index: number;
  /** The key whose value is being read (objects). */
  key: string | undefined;
}

function childPath(frame: Frame | undefined): string {
  if (frame === undefined) return '';
  if (frame.isObject) return frame.path === '' ? frame.key! : `${frame.path}.${frame.key!}`;
  return `${frame.path}[${frame.index}]`;
}

/**
 * The index of the quote that closes the JSON string opening at `open` (`text.length` when it
 * is not closed). Jumps from quote to quote (`indexOf` runs natively, so a long value costs
 * little); a quote after an odd run of backslashes is escaped.
 */
export function jsonStringEnd(text: string, open: number): number {
  for (let i = open + 1; ; i++) {
    i = text.indexOf('"', i);
    if (i < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/** The paths of duplicate keys in `text` (JSON), in order of appearance, without repeats. */
export function findDuplicateFields(text: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const stack: Frame[] = [];
  const n = text.length;
  let expectKey = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      i = jsonStringEnd(text, start);
      const top = stack[stack.length - 1];
      if (expectKey && top?.isObject) {
        let escaped = false;
        for (let j = start + 1; j < i && !escaped; j++) escaped = text.charCodeAt(j) === 0x5c;
        let key: string;
        try {
          key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        } catch {
          return found;
        }
        top.key = key;
        if (top.keys!.has(key)) {
          const path = childPath(top);
          if (!seen.has(path) && found.length < MAX_STRICT_ERRORS) {
            seen.add(path);
            found.push(path);
          }
        } else top.keys!.add(key);
        expectKey = false;
      }
      continue;
    }
    switch (c) {
      case 0x7b /* { */: {
        const parent = stack[stack.length - 1];
        stack.push({ isObject: true, path: childPath(parent), keys: new Set(), index: 0, key: undefined });
        expectKey = true;
        break;
      }
      case 0x5b /* [ */: {
        const parent = stack[stack.length - 1];
        stack.push({ isObject: false, path: childPath(parent), keys: undefined, index: 0, key: undefined });
        expectKey = false;
        break;
      }
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop();
        expectKey = false;
        break;
      case 0x2c /* , */: {
        const top = stack[stack.length - 1];
        if (top === undefined) break;
        if (top.isObject) expectKey = true;
        else top.index++;
        break;
      }
      default:
        break;
    }
  }
  return found;
}
