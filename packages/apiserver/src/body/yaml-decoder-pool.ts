/**
 * The YAML decoder threads: a small pool of workers, each with a heap and stack limit, that
 * decode YAML bodies off the event loop. A decode that runs out of memory or time ends its
 * worker (never the process); its request gets 413 and the next body gets a fresh worker.
 * Bodies wait their turn when every worker is busy (the inflight limits bound how many).
 */
import { Worker } from 'node:worker_threads';
import { StatusError, requestEntityTooLarge } from '@kapi/machinery';
import { BodyDecodeError } from './decode-error.js';
import { YAML_DECODER_LIMITS } from './limits.js';
import type { DecodedYaml, YamlDecodeOptions } from './yaml-decode.js';

/** What the pool sends a worker. */
export interface YamlRequest {
  readonly id: number;
  /** The body: its bytes (decoded as UTF-8 by the worker, so the event loop holds no copy as a string) or text already decoded. */
  readonly body: string | Uint8Array;
  readonly options: YamlDecodeOptions;
}

/** What a worker answers: the decoded document, or the decoder's error text. */
export type YamlResponse = { readonly id: number; readonly decoded: DecodedYaml } | { readonly id: number; readonly detail: string };

/** Decodes YAML off the event loop. */
export interface YamlDecoder {
  /**
   * Decodes `body` (UTF-8 bytes, or text) on a decoder thread. Rejects with BodyDecodeError for a malformed body or
   * one past the depth or alias limits, and with a 413 StatusError when the decode needs more
   * than the thread's heap or time.
   */
  decode(body: string | Uint8Array, options: YamlDecodeOptions): Promise<DecodedYaml>;
  /**
   * Starts the threads now, each loading the decoder, so that the first YAML bodies do not
   * pay for it: starting a thread is work on the event loop, and loading the decoder competes
   * with it for the CPU, at the moment a burst of bodies arrives.
   */
  warm(): void;
  /** Ends every worker; waiting decodes are rejected. */
  close(): Promise<void>;
}

export interface YamlDecoderLimits {
  readonly threads: number;
  readonly timeoutMs: number;
  readonly maxHeapMb: number;
  readonly stackMb: number;
}

interface Task {
  readonly request: YamlRequest;
  resolve(decoded: DecodedYaml): void;
  reject(err: Error): void;
}

const WORKER_URL = new URL('./yaml-worker.js', import.meta.url);

class YamlDecoderPool implements YamlDecoder {
  private readonly idle: Worker[] = [];
  private readonly workers = new Set<Worker>();
  private readonly queue: Task[] = [];
  private nextId = 1;

  constructor(private readonly limits: YamlDecoderLimits) {}

  decode(body: string | Uint8Array, options: YamlDecodeOptions): Promise<DecodedYaml> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, body, options }, resolve, reject });
      this.dispatch();
    });
  }

  warm(): void {
    while (this.workers.size < this.limits.threads) {
      const worker = this.spawn();
      this.idle.push(worker);
      this.dispatch();
    }
  }

  async close(): Promise<void> {
    for (const task of this.queue.splice(0)) task.reject(new Error('the YAML decoder is closed'));
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.workers.size < this.limits.threads ? this.spawn() : undefined);
      if (worker === undefined) return;
      this.run(worker, this.queue.shift()!);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxHeapMb, stackSizeMb: this.limits.stackMb },
    });
    // Idle decoders never keep the process alive.
    worker.unref();
    this.workers.add(worker);
    worker.once('exit', () => {
      this.workers.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.dispatch();
    });
    // An error ends the worker; the task it ran is answered by run().
    worker.on('error', () => {});
    return worker;
  }

  private run(worker: Worker, task: Task): void {
    const { timeoutMs, maxHeapMb } = this.limits;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      outcome();
    };
    const onMessage = (response: YamlResponse) => {
      if (response.id !== task.request.id) return;
      settle(() => {
        this.idle.push(worker);
        if ('detail' in response) task.reject(new BodyDecodeError(response.detail));
        else task.resolve(response.decoded);
        this.dispatch();
      });
    };
    const tooCostly = (what: string): StatusError => requestEntityTooLarge(`decoding the YAML body needs more than ${what}`);
    const onError = (err: Error & { code?: string }) =>
      settle(() => task.reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooCostly(`${maxHeapMb} MiB of memory`) : err));
    const onExit = () => settle(() => task.reject(tooCostly(`${maxHeapMb} MiB of memory`)));
    const timer = setTimeout(() => {
      settle(() => {
        void worker.terminate();
        task.reject(tooCostly(`${timeoutMs} ms`));
      });
    }, timeoutMs);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(task.request);
  }
}

/** A decoder pool with `limits` (tests use small ones). */
export function createYamlDecoder(limits: YamlDecoderLimits = YAML_DECODER_LIMITS): YamlDecoder {
  return new YamlDecoderPool(limits);
}

let shared: YamlDecoder | undefined;

/** The process's decoder pool, started on first use (its workers start on first decode, or when warmed). */
export function yamlDecoder(): YamlDecoder {
  shared ??= createYamlDecoder();
  return shared;
}
