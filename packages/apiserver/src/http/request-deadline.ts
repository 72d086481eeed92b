/**
 * kube's per-request deadline (WithRequestDeadline) for requests that are not long-running:
 * --request-timeout, shortened by a `timeout` query parameter (a Go duration) when that is
 * positive and smaller. A malformed `timeout` is refused before anything else runs.
 */
import { badRequest } from '@kapi/machinery';
import { parseGoDuration } from '../duration.js';

/** kube's prefix for a malformed `timeout` parameter. */
export const INVALID_TIMEOUT_IN_URL = 'invalid timeout specified in the request URL';

/**
 * The deadline in ms for a request with `query`, given --request-timeout `maximumMs`. Throws a
 * 400 BadRequest StatusError `invalid timeout specified in the request URL - time: invalid
 * duration "abc"` (Go's parse error) for a malformed `timeout`; an empty one is absent, and
 * zero, negative or larger values leave the maximum.
 */
export function requestDeadlineMs(query: URLSearchParams, maximumMs: number): number {
  const raw = query.get('timeout');
  if (raw === null || raw === '') return maximumMs;
  let requested: number;
  try {
    requested = parseGoDuration(raw);
  } catch (err) {
    throw badRequest(`${INVALID_TIMEOUT_IN_URL} - ${(err as Error).message}`);
  }
  return requested > 0 && requested < maximumMs ? requested : maximumMs;
}
