/**
 * A client-side stand-in for a load balancer in front of several replicas: requests go round
 * robin; a refused or reset connection, a 429 or a 503 with Retry-After is retried on the
 * next replica after a short pause. Every answer is recorded, so a test can check that no
 * client ever saw a 5xx other than 503 with Retry-After (or a 429 without Retry-After).
 */
import { Agent } from 'node:http';
import { http, isResult, type HttpOutcome, type HttpResult } from './process.js';

export interface Violation {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
}

export class Balancer {
  private next = 0;
  private readonly agents: Agent[];
  /** Answers no client may see: 5xx other than 503 + Retry-After, 429 without Retry-After. */
  readonly violations: Violation[] = [];
  /** Retries by cause (connection errors, 429, 503). */
  readonly retries = new Map<string, number>();

  constructor(readonly urls: readonly string[]) {
    this.agents = urls.map(() => new Agent({ keepAlive: true, maxSockets: 8 }));
  }

  /** The next replica's URL (round robin). */
  pick(): string {
    const url = this.urls[this.next % this.urls.length]!;
    this.next++;
    return url;
  }

  private count(cause: string): void {
    this.retries.set(cause, (this.retries.get(cause) ?? 0) + 1);
  }

  /**
   * Sends until a replica answers with something other than a connection failure, 429 or
   * 503 (those are retried, up to `deadlineMs`). A 409 on a retried POST means the earlier
   * attempt was applied; callers decide.
   */
  async request(method: string, path: string, body?: unknown, deadlineMs = 60_000): Promise<HttpResult & { attempts: number }> {
    const deadline = Date.now() + deadlineMs;
    for (let attempts = 1; ; attempts++) {
      const index = this.next % this.urls.length;
      this.next++;
      const outcome: HttpOutcome = await http(`${this.urls[index]}${path}`, { method, body, agent: this.agents[index]!, timeoutMs: 15_000 });
      if (isResult(outcome)) {
        const retryAfter = outcome.headers['retry-after'];
        if ((outcome.status >= 500 && !(outcome.status === 503 && retryAfter !== undefined)) || (outcome.status === 429 && retryAfter === undefined)) {
          this.violations.push({ method, path, status: outcome.status, body: outcome.body.slice(0, 300) });
        }
        if (outcome.status !== 429 && outcome.status !== 503) return { ...outcome, attempts };
        this.count(String(outcome.status));
      } else {
        this.count(outcome.error);
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer from any replica in ${deadlineMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    for (const agent of this.agents) agent.destroy();
  }
}
