/** Audit (kube's --audit-* flags): the policy, the log backend and the per-request records. */
import type { Registry } from 'prom-client';
import { createAuditor, type AuditMode, type Auditor } from './auditor.js';
import { createLogBackend } from './log-backend.js';
import { loadPolicyFile } from './policy.js';

export { auditIdOf, type Auditor, type AuditMode } from './auditor.js';

/** The --audit-* settings kapi builds (the log backend). */
export interface AuditSettings {
  /** --audit-policy-file; without one no event is recorded. */
  readonly policyFile: string;
  /** --audit-log-path; `-` = standard output; "" = no log backend. */
  readonly logPath: string;
  readonly maxAgeDays?: number;
  readonly maxBackups?: number;
  readonly maxSizeMb?: number;
  readonly compress?: boolean;
  /** --audit-log-mode; default blocking. Events are written off the request path in every mode. */
  readonly mode?: AuditMode;
  /** --audit-log-batch-buffer-size: events that may wait to be written; default 10000. */
  readonly bufferSize?: number;
  /** --audit-log-batch-max-size (batch mode); default 1. */
  readonly maxBatchSize?: number;
  /** --audit-log-batch-max-wait in ms (batch mode); default 0. */
  readonly maxBatchWaitMs?: number;
  /** --audit-log-truncate-max-event-size when --audit-log-truncate-enabled. */
  readonly truncateMaxEventBytes?: number;
}

/**
 * Loads the policy and opens the log (creating it, 0600, and its folder) — throwing with
 * kube's texts when either fails — or returns undefined when auditing is off (no policy or no log path).
 */
export function startAuditing(settings: AuditSettings | undefined, registry: Registry, onWriteError: (err: unknown) => void): Auditor | undefined {
  if (settings === undefined || settings.policyFile === '') return undefined;
  const policy = loadPolicyFile(settings.policyFile);
  if (settings.logPath === '') return undefined;
  const mode = settings.mode ?? 'blocking';
  const batch = mode === 'batch';
  return createAuditor({
    policy,
    mode,
    metricsRegistry: registry,
    onWriteError,
    ...(settings.truncateMaxEventBytes !== undefined ? { maxEventBytes: settings.truncateMaxEventBytes } : {}),
    openBackend: (onError) =>
      createLogBackend({
        path: settings.logPath,
        maxAgeDays: settings.maxAgeDays ?? 0,
        maxBackups: settings.maxBackups ?? 0,
        maxSizeMb: settings.maxSizeMb ?? 0,
        compress: settings.compress ?? false,
        bufferSize: settings.bufferSize ?? 10_000,
        maxBatchSize: batch ? (settings.maxBatchSize ?? 1) : 0,
        maxBatchWaitMs: batch ? (settings.maxBatchWaitMs ?? 0) : 0,
        onError,
      }),
  });
}
