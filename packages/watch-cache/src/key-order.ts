/**
 * Key order as etcd sees it: bytewise over UTF-8, which is code-point order. JavaScript's `<`
 * compares UTF-16 code units, which differs only between surrogate pairs (code points above
 * U+FFFF) and U+E000..U+FFFF; this comparator corrects that case.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  return codeUnitRank(a.charCodeAt(i)) - codeUnitRank(b.charCodeAt(i));
}

const HIGH_UNIT = /[\ud800-\uffff]/;

/**
 * Whether JavaScript's own string order (`<`, `<=`) agrees with compareKeys whenever `key` is
 * one of the two strings compared: true when `key` has no code unit from U+D800 up. The two
 * orders differ only where both strings have such a unit at the first position they differ;
 * where only one has, both orders put it last.
 */
export function nativeOrderHolds(key: string): boolean {
  return !HIGH_UNIT.test(key);
}

/** Surrogates (D800..DFFF) encode code points above U+FFFF, so they sort after every BMP unit. */
function codeUnitRank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit;
}

/** The smallest key greater than every key that starts with `prefix` ("" = no upper bound). */
export function prefixEnd(prefix: string): string {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const unit = prefix.charCodeAt(i);
    if (unit < 0xffff && !(unit >= 0xd800 && unit <= 0xdfff)) return prefix.slice(0, i) + String.fromCharCode(unit + 1);
  }
  return '';
}
