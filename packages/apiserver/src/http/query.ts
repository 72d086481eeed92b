/**
 * The request's query string as kube sees it (Go's `url.ParseQuery`, which kube-apiserver
 * reads through `req.URL.Query()`): pairs split on `&`; a pair holding a `;` or a malformed
 * percent-escape is dropped (Go reports an error that `Query()` discards), so such a
 * parameter counts as absent rather than failing the request; `+` is a space. Pure.
 */

/** A `%` not followed by two hex digits: Go's QueryUnescape fails on it. */
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

const EMPTY = new URLSearchParams();

/** Parses `raw` (the part after `?`, without the `#fragment`) into parameters, in order. */
export function parseQuery(raw: string): URLSearchParams {
  if (raw === '') return EMPTY;
  if (!raw.includes(';') && !BAD_ESCAPE.test(raw)) return new URLSearchParams(raw);
  const kept = raw.split('&').filter((pair) => pair !== '' && !pair.includes(';') && !BAD_ESCAPE.test(pair));
  return new URLSearchParams(kept.join('&'));
}
