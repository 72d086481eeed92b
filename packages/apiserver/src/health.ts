/**
 * /healthz, /livez and /readyz with kube's texts: `ok`, `?verbose` listings
 * (`[+]ping ok`), `?exclude=<check>`, per-check paths (`/readyz/etcd`), and on failure a 500
 * listing every check with `[-]<name> failed: reason withheld` and `<endpoint> check failed`.
 */
import type { ServerResponse } from 'node:http';
import { PAGE_NOT_FOUND_TEXT } from './http/generic-errors.js';
import { writeText } from './http/respond.js';

export interface HealthCheck {
  readonly name: string;
  /** Resolves when healthy; rejects (with the reason) otherwise. Must be bounded in time. */
  check(): Promise<void>;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export type HealthChecks = Readonly<Record<HealthEndpoint, readonly HealthCheck[]>>;

/** A check that always passes (kube's `ping`). */
export const pingCheck: HealthCheck = { name: 'ping', check: () => Promise.resolve() };

/**
 * A check backed by a remote `probe` (etcd), probed as kube-apiserver probes etcd: at most
 * once per half of `timeoutMs` (kube's rate limit for `--etcd-healthcheck-timeout` and
 * `--etcd-readycheck-timeout`), and a probe that takes longer than `timeoutMs` fails; a check
 * made between two probes answers the last probe's result. Where kube's one caller that is
 * let through waits for the round trip, kapi's answers at once with the last result while
 * the new probe runs, as long as that result is younger than `timeoutMs`: the round trip's
 * reply waits its turn behind request work on the event loop, and a health probe must not
 * (a result is never older than kube's would be by more than one round trip). With no
 * result that young (the first check, or none for a while), the caller waits for the probe.
 *
 * With `keepFreshMs`, a probe is also sent every interval in the background for as long as
 * the check was asked within the last `keepFreshMs`: a server that is probed (a kubelet every
 * few seconds, a load balancer) always has a young result, so no health request waits for an
 * etcd round trip queued behind request work on a busy event loop.
 */
export function boundedCheck(
  name: string,
  probe: () => Promise<unknown>,
  timeoutMs = 2000,
  now: () => number = Date.now,
  keepFreshMs = 0,
): HealthCheck {
  const intervalMs = timeoutMs / 2;
  let inflight: Promise<void> | undefined;
  /** The last probe's outcome and when it was sent. */
  let last: { at: number; error: unknown } | undefined;
  let askedAt = -Infinity;
  let keeper: NodeJS.Timeout | undefined;
  const keepFresh = (): void => {
    keeper = undefined;
    if (now() - askedAt >= keepFreshMs) return;
    void refresh();
    keeper = setTimeout(keepFresh, intervalMs);
    keeper.unref();
  };
  const run = async (): Promise<void> => {
    const sentAt = now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name} check timed out after ${timeoutMs}ms`)), timeoutMs);
    });
    let error: unknown;
    try {
      await Promise.race([probe(), deadline]);
    } catch (err) {
      error = err ?? new Error('failed');
    } finally {
      clearTimeout(timer);
    }
    last = { at: sentAt, error };
  };
  const refresh = (): Promise<void> =>
    (inflight ??= run().finally(() => {
      inflight = undefined;
    }));
  return {
    name,
    async check() {
      if (keepFreshMs > 0) {
        askedAt = now();
        if (keeper === undefined) {
          keeper = setTimeout(keepFresh, intervalMs);
          keeper.unref();
        }
      }
      const age = last === undefined ? Infinity : now() - last.at;
      if (age >= intervalMs) {
        const probing = refresh();
        if (age >= timeoutMs) await probing;
      }
      if (last!.error !== undefined) throw last!.error;
    },
  };
}

/**
 * kube's `--livez-grace-period`: until `graceMs` after `startedAtMs`, a failing `check` counts
 * as healthy (a slow start is not a reason to restart the process).
 */
export function delayedCheck(check: HealthCheck, startedAtMs: number, graceMs: number, now: () => number = Date.now): HealthCheck {
  if (graceMs <= 0) return check;
  return {
    name: check.name,
    async check() {
      if (now() - startedAtMs < graceMs) return;
      await check.check();
    },
  };
}

/** kube's `log` check: fails once writing log lines fails. */
export function logCheck(healthy: () => boolean): HealthCheck {
  return {
    name: 'log',
    check: () => (healthy() ? Promise.resolve() : Promise.reject(new Error('logging blocked'))),
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Serves `/<endpoint>` (all checks) and `/<endpoint>/<check>` (one check). `rest` is the
 * path after the endpoint ("" for the aggregate).
 */
export async function serveHealth(
  res: ServerResponse,
  endpoint: HealthEndpoint,
  checks: readonly HealthCheck[],
  rest: string,
  query: URLSearchParams,
  /** Told the withheld reasons when checks fail (kube logs them; the response does not carry them). */
  onFailure?: (failed: readonly string[]) => void,
): Promise<void> {
  if (rest !== '') {
    const check = checks.find((c) => c.name === rest);
    if (check === undefined) return writeText(res, 404, PAGE_NOT_FOUND_TEXT);
    try {
      await check.check();
      return writeText(res, 200, 'ok');
    } catch (err) {
      onFailure?.([`${check.name}: ${errorText(err)}`]);
      return writeText(res, 500, `internal server error: ${errorText(err)}\n`);
    }
  }
  const excluded = new Set(query.getAll('exclude'));
  const verbose = query.has('verbose');
  const results = await Promise.all(
    checks.map(async (c) => {
      if (excluded.has(c.name)) return { name: c.name, line: `[+]${c.name} excluded: ok`, ok: true };
      try {
        await c.check();
        return { name: c.name, line: `[+]${c.name} ok`, ok: true };
      } catch (err) {
        return { name: c.name, line: `[-]${c.name} failed: reason withheld`, ok: false, reason: `${c.name}: ${errorText(err)}` };
      }
    }),
  );
  const listing = results.map((r) => r.line).join('\n') + '\n';
  const unknownExcludes = [...excluded].filter((name) => !checks.some((c) => c.name === name));
  const warnings = unknownExcludes.map((name) => `warn: some health checks cannot be excluded: no matches for "${name}"\n`).join('');
  if (results.some((r) => !r.ok)) {
    onFailure?.(results.flatMap((r) => ('reason' in r && r.reason !== undefined ? [r.reason] : [])));
    return writeText(res, 500, `${listing}${warnings}${endpoint} check failed\n`);
  }
  if (verbose) return writeText(res, 200, `${listing}${warnings}${endpoint} check passed\n`);
  return writeText(res, 200, 'ok');
}
