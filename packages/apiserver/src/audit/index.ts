/** Audit (kube's --audit-* flags): the policy, the log and webhook backends, and the per-request records. */
import type { Registry } from 'prom-client';
import { createAuditor, type AuditMode, type Auditor } from './auditor.js';
import { ignoringErrors, truncatingBackend, unionBackends, type AuditBackend, type PluginErrorHandler, type TruncateLimits } from './backend.js';
import { bufferedBackend } from './buffered-backend.js';
import { createLogBackend } from './log-backend.js';
import { createAuditMetrics, pluginErrorMessage } from './metrics.js';
import { loadPolicyFile } from './policy.js';
import { webhookBackend } from './webhook-backend.js';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.js';

export { auditIdOf, type Auditor, type AuditMode } from './auditor.js';

/** The --audit-webhook-* settings. */
export interface AuditWebhookSettings {
  /** --audit-webhook-config-file: a kubeconfig naming the server. */
  readonly configFile: string;
  /** --audit-webhook-mode; default batch. */
  readonly mode: AuditMode;
  /** --audit-webhook-initial-backoff in ms; default 10s. */
  readonly initialBackoffMs: number;
  /** --audit-webhook-batch-buffer-size / -max-size / -max-wait (ms); defaults 10000, 400, 30s. */
  readonly bufferSize: number;
  readonly maxBatchSize: number;
  readonly maxBatchWaitMs: number;
  /** --audit-webhook-batch-throttle-qps / -burst when --audit-webhook-batch-throttle-enable (default on: 10, 15). */
  readonly throttle?: { readonly qps: number; readonly burst: number };
  /** --audit-webhook-truncate-max-event-size / -max-batch-size when --audit-webhook-truncate-enabled. */
  readonly truncate?: TruncateLimits;
}

/** The --audit-* settings kapi builds (the log and webhook backends). */
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
  /** --audit-log-truncate-max-batch-size when --audit-log-truncate-enabled; default 10 MiB. */
  readonly truncateMaxBatchBytes?: number;
  /** The webhook backend, when --audit-webhook-config-file is set. */
  readonly webhook?: AuditWebhookSettings;
}

/** The log backend in its mode: written off the request path; only blocking-strict lets a full queue fail a request. */
function logAuditBackend(settings: AuditSettings, onPluginError: PluginErrorHandler): AuditBackend {
  const mode = settings.mode ?? 'blocking';
  const batch = mode === 'batch';
  // kube names the plugin whose queue refused the event: the batch buffer, or the log itself.
  const dropPlugin = batch ? 'buffered' : 'log';
  const log = createLogBackend({
    path: settings.logPath,
    maxAgeDays: settings.maxAgeDays ?? 0,
    maxBackups: settings.maxBackups ?? 0,
    maxSizeMb: settings.maxSizeMb ?? 0,
    compress: settings.compress ?? false,
    bufferSize: settings.bufferSize ?? 10_000,
    maxBatchSize: batch ? (settings.maxBatchSize ?? 1) : 0,
    maxBatchWaitMs: batch ? (settings.maxBatchWaitMs ?? 0) : 0,
    onError: (reason, count, err) => onPluginError(reason === 'dropped' ? dropPlugin : 'log', count, reason === 'dropped' ? new Error('audit buffer queue blocked') : err),
  });
  const backend: AuditBackend = {
    processEvents(events) {
      let all = true;
      for (const event of events) all = log.write(event.json()) && all;
      return all;
    },
    close: () => log.close(),
  };
  const moded = mode === 'blocking-strict' ? backend : ignoringErrors(backend);
  return settings.truncateMaxEventBytes !== undefined
    ? truncatingBackend(moded, { maxEventBytes: settings.truncateMaxEventBytes, maxBatchBytes: settings.truncateMaxBatchBytes ?? 10 * 1024 * 1024 }, onPluginError)
    : moded;
}

/** The webhook backend as kube composes it: truncate(mode(webhook)). Throws `initializing audit webhook: ...`. */
function webhookAuditBackend(settings: AuditWebhookSettings, onPluginError: PluginErrorHandler): AuditBackend {
  let target;
  try {
    target = loadWebhookKubeconfig(settings.configFile);
  } catch (err) {
    throw new Error(`initializing audit webhook: ${err instanceof Error ? err.message : String(err)}`);
  }
  const webhook = webhookBackend({ target, initialBackoffMs: settings.initialBackoffMs, onPluginError });
  const moded = settings.mode === 'blocking-strict'
    ? webhook
    : settings.mode === 'blocking'
      ? ignoringErrors(webhook)
      : bufferedBackend(webhook, {
          bufferSize: settings.bufferSize,
          maxBatchSize: settings.maxBatchSize,
          maxBatchWaitMs: settings.maxBatchWaitMs,
          ...(settings.throttle !== undefined ? { throttle: settings.throttle } : {}),
          asyncDelegate: true,
        }, onPluginError);
  return settings.truncate !== undefined ? truncatingBackend(moded, settings.truncate, onPluginError) : moded;
}

/**
 * Loads the policy, opens the log (creating it, 0600, and its folder) and reads the webhook's
 * kubeconfig — throwing with kube's texts when one fails — or returns undefined when auditing
 * is off (no policy, or neither a log path nor a webhook). `logError` gets kube's line for
 * events a backend lost.
 */
export function startAuditing(settings: AuditSettings | undefined, registry: Registry, logError: (message: string) => void): Auditor | undefined {
  if (settings === undefined || settings.policyFile === '') return undefined;
  const policy = loadPolicyFile(settings.policyFile);
  if (settings.logPath === '' && settings.webhook === undefined) return undefined;
  const metrics = createAuditMetrics(registry);
  const onPluginError: PluginErrorHandler = (plugin, count, err) => {
    metrics.errorTotal.inc({ plugin }, count);
    logError(pluginErrorMessage(plugin, count, err));
  };
  const webhook = settings.webhook !== undefined ? webhookAuditBackend(settings.webhook, onPluginError) : undefined;
  const backends = [...(settings.logPath !== '' ? [logAuditBackend(settings, onPluginError)] : []), ...(webhook !== undefined ? [webhook] : [])];
  return createAuditor({ policy, metrics, backend: unionBackends(backends) });
}
