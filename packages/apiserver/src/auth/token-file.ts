/**
 * `--token-auth-file`: kube's static token CSV (`token,user,uid[,"group1,group2"]`, more
 * columns ignored), parsed as Go's encoding/csv does. Read once at start.
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from './user.js';

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/** Splits CSV text into records (RFC 4180 quoting, as Go's csv.Reader with FieldsPerRecord = -1). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let atFieldStart = true;
  let line = 1;
  const endRecord = () => {
    record.push(field);
    // Go's reader skips empty lines.
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
    field = '';
    atFieldStart = true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
    } else if (c === ',') {
      record.push(field);
      field = '';
      atFieldStart = true;
    } else if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
      if (c === '\r') i++;
      endRecord();
      line++;
    } else {
      if (c === '"') throw new TokenFileError(`parse error on line ${line}, column ${field.length + 1}: bare " in non-quoted-field`);
      field += c;
      atFieldStart = false;
    }
  }
  if (quoted) throw new TokenFileError(`record on line ${line}; parse error on line ${line + 1}, column 0: extraneous or missing " in quoted-field`);
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/** The tokens of a token file. Throws TokenFileError with kube's texts for a malformed file. */
export function readTokenFile(path: string): ReadonlyMap<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new TokenFileError(`open ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
  const tokens = new Map<string, UserInfo>();
  for (const record of parseCsv(text)) {
    if (record.length < 3) throw new TokenFileError(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    if (token === '') continue;
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(','), extra: {} });
  }
  return tokens;
}
