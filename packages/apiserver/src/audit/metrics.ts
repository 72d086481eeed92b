/** kube's audit metrics (k8s.io/apiserver/pkg/audit/metrics.go), and its HandlePluginError. */
import { Counter, type Registry } from 'prom-client';

export interface AuditMetrics {
  /** apiserver_audit_event_total: events generated and handed to the backends. */
  readonly eventTotal: Counter;
  /** apiserver_audit_error_total{plugin}: events a plugin lost (log, buffered, webhook, truncate). */
  readonly errorTotal: Counter<'plugin'>;
  /** apiserver_audit_level_total{level}: one per request. */
  readonly levelTotal: Counter<'level'>;
  /** apiserver_audit_requests_rejected_total: requests failed because their event was not recorded. */
  readonly rejectedTotal: Counter;
}

export function createAuditMetrics(registry: Registry): AuditMetrics {
  return {
    eventTotal: new Counter({ name: 'apiserver_audit_event_total', help: '[ALPHA] Counter of audit events generated and sent to the audit backend.', registers: [registry] }),
    errorTotal: new Counter({ name: 'apiserver_audit_error_total', help: '[ALPHA] Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.', labelNames: ['plugin'], registers: [registry] }),
    levelTotal: new Counter({ name: 'apiserver_audit_level_total', help: '[ALPHA] Counter of policy levels for audit events (1 per request).', labelNames: ['level'], registers: [registry] }),
    rejectedTotal: new Counter({ name: 'apiserver_audit_requests_rejected_total', help: '[ALPHA] Counter of apiserver requests rejected due to an error in audit logging backend.', registers: [registry] }),
  };
}

/** kube's log line for lost events: `Error in audit plugin '<plugin>' affecting <n> audit events: <err>`. */
export function pluginErrorMessage(plugin: string, count: number, err: unknown): string {
  return `Error in audit plugin '${plugin}' affecting ${count} audit events: ${err instanceof Error ? err.message : String(err)}`;
}
