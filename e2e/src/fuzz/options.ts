/** The fuzz run's settings from the environment (FUZZ_SEED, FUZZ_PATH, FUZZ_SECONDS, FUZZ_STREAMS). */
import type { FuzzOptions } from './run.js';

/** Unset or empty variables take the defaults; the stored-object check runs every third of the run, at least every minute. */
export function fuzzOptionsFromEnv(defaultSeconds: number, log: (line: string) => void): FuzzOptions {
  const env = process.env;
  const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : Date.now() % 2 ** 31;
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${env.FUZZ_SEED}`);
  const seconds = env.FUZZ_SECONDS ? Number(env.FUZZ_SECONDS) : defaultSeconds;
  if (!(seconds > 0)) throw new Error(`FUZZ_SECONDS must be a positive number, not ${env.FUZZ_SECONDS}`);
  const streams = env.FUZZ_STREAMS ? Number(env.FUZZ_STREAMS) : 3;
  return {
    seed,
    seconds,
    streams,
    checkEveryMs: Math.min(60_000, Math.max(10_000, (seconds * 1000) / 3)),
    log,
    ...(env.FUZZ_PATH ? { replayPath: env.FUZZ_PATH } : {}),
  };
}
