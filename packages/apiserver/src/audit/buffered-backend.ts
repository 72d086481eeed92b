/**
 * --audit-<plugin>-mode=batch (kube's buffered plugin): events wait in a bounded buffer and are
 * handed to the delegate in batches of at most maxBatchSize, a batch going out when it is full
 * or maxBatchWait after collecting began. An event that finds the buffer full is dropped and
 * counted (plugin `buffered`), never waited for: requests are not slowed by a slow or absent
 * delegate. With a throttle, batches go out at most qps per second (burst at once); with an
 * async delegate (the webhook), a batch is sent without waiting for the previous one.
 */
import type { AuditBackend, AuditEvent, PluginErrorHandler } from './backend.js';

export interface BatchSettings {
  /** --audit-<plugin>-batch-buffer-size. */
  readonly bufferSize: number;
  /** --audit-<plugin>-batch-max-size. */
  readonly maxBatchSize: number;
  /** --audit-<plugin>-batch-max-wait in ms. */
  readonly maxBatchWaitMs: number;
  /** --audit-<plugin>-batch-throttle-qps/-burst when --audit-<plugin>-batch-throttle-enable. */
  readonly throttle?: { readonly qps: number; readonly burst: number };
  /** Send each batch without waiting for the previous one (kube's AsyncDelegate, the webhook's). */
  readonly asyncDelegate: boolean;
}

/** A token bucket (kube's flowcontrol.NewTokenBucketRateLimiter): `accept` waits for a token. */
function tokenBucket(qps: number, burst: number): { accept(): Promise<void> } {
  let tokens = burst;
  let last = performance.now();
  return {
    async accept() {
      const now = performance.now();
      tokens = Math.min(burst, tokens + ((now - last) / 1000) * qps);
      last = now;
      tokens -= 1;
      if (tokens < 0) await new Promise((resolve) => setTimeout(resolve, (-tokens / qps) * 1000));
    },
  };
}

export function bufferedBackend(delegate: AuditBackend, settings: BatchSettings, onPluginError: PluginErrorHandler): AuditBackend {
  const buffer: AuditEvent[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const throttle = settings.throttle !== undefined ? tokenBucket(settings.throttle.qps, settings.throttle.burst) : undefined;
  let closed = false;
  /** Re-checks the batch being collected: called on every new event and on close. */
  let wake: (() => void) | undefined;

  /** Resolves when a batch should go out: it is full, maxBatchWait passed since its first event, or the backend closes. */
  const collect = (): Promise<void> => new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      wake = undefined;
      resolve();
    };
    const check = () => {
      if (closed || buffer.length >= settings.maxBatchSize || (buffer.length > 0 && settings.maxBatchWaitMs <= 0)) return done();
      if (buffer.length > 0 && timer === undefined) timer = setTimeout(done, settings.maxBatchWaitMs);
      wake = check;
    };
    check();
  });

  const run = async (): Promise<void> => {
    while (!closed || buffer.length > 0) {
      await collect();
      const batch = buffer.splice(0, settings.maxBatchSize);
      if (batch.length === 0) continue;
      await throttle?.accept();
      const sent = Promise.resolve(delegate.processEvents(batch)).catch((err: unknown) => onPluginError('buffered', batch.length, err));
      if (settings.asyncDelegate) {
        inFlight.add(sent);
        void sent.finally(() => inFlight.delete(sent));
      } else {
        await sent;
      }
    }
  };
  const running = run();

  return {
    processEvents(events) {
      for (let i = 0; i < events.length; i++) {
        if (closed || buffer.length >= settings.bufferSize) {
          onPluginError('buffered', events.length - i, new Error(closed ? 'audit backend shut down' : 'audit buffer queue blocked'));
          break;
        }
        buffer.push(events[i]!);
      }
      wake?.();
      // As kube's: accepted, whether or not the buffer had room.
      return true;
    },
    async close() {
      closed = true;
      wake?.();
      await running;
      // The delegate stops retrying and finishes what it is sending.
      await delegate.close();
      await Promise.all(inFlight);
    },
  };
}
