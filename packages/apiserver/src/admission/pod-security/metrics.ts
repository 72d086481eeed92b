/**
 * kube's PodSecurity metrics (k8s.io/pod-security-admission/metrics), names, help texts and
 * labels as kube-apiserver 1.32 exports them: evaluations by decision, level, version
 * (`latest`, `v1.<minor>` up to 1.32, else `future`) and mode; exemptions; errors. The series
 * kube creates at start (privileged enforce allows and exemptions of pod and controller
 * creates and updates) start at 0 here too.
 */
import { Counter, type Registry } from 'prom-client';
import { formatVersion, LATEST, type LevelVersion } from './policy.js';

/** The minor version of the API (1.32): newer policy versions are reported as `future`. */
const API_MINOR = 32;

export type Decision = 'allow' | 'deny';
export type EvaluationMode = 'enforce' | 'audit' | 'warn';

/** The request as the metrics label it. */
export interface MetricRequest {
  readonly operation: string;
  readonly resource: string;
  readonly subresource: string;
}

export interface PodSecurityMetrics {
  recordEvaluation(decision: Decision, policy: LevelVersion, mode: EvaluationMode, request: MetricRequest): void;
  recordExemption(request: MetricRequest): void;
  recordError(fatal: boolean, request: MetricRequest): void;
}

const operationLabel = (operation: string) => (operation === 'CREATE' ? 'create' : operation === 'UPDATE' ? 'update' : 'other');
const resourceLabel = (resource: string) => (resource === 'pods' ? 'pod' : resource === 'namespaces' ? 'namespace' : 'controller');
const versionLabel = (version: number) => (version === LATEST ? 'latest' : version <= API_MINOR ? formatVersion(version) : 'future');

export function createPodSecurityMetrics(registry: Registry): PodSecurityMetrics {
  const registers = [registry];
  const evaluations = new Counter({
    name: 'pod_security_evaluations_total',
    help: '[ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.',
    labelNames: ['decision', 'mode', 'policy_level', 'policy_version', 'request_operation', 'resource', 'subresource'],
    registers,
  });
  const exemptions = new Counter({
    name: 'pod_security_exemptions_total',
    help: '[ALPHA] Number of exempt requests, not counting ignored or out of scope requests.',
    labelNames: ['request_operation', 'resource', 'subresource'],
    registers,
  });
  const errors = new Counter({
    name: 'pod_security_errors_total',
    help: '[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.',
    labelNames: ['fatal', 'request_operation', 'resource', 'subresource'],
    registers,
  });
  for (const operation of ['create', 'update']) {
    evaluations.inc({ decision: 'allow', mode: 'enforce', policy_level: 'privileged', policy_version: 'latest', request_operation: operation, resource: 'pod', subresource: '' }, 0);
    for (const resource of ['pod', 'controller']) exemptions.inc({ request_operation: operation, resource, subresource: '' }, 0);
  }
  const labels = (r: MetricRequest) => ({ request_operation: operationLabel(r.operation), resource: resourceLabel(r.resource), subresource: r.subresource });
  return {
    recordEvaluation(decision, policy, mode, request) {
      evaluations.inc({ decision, mode, policy_level: policy.level, policy_version: versionLabel(policy.version), ...labels(request) });
    },
    recordExemption(request) {
      exemptions.inc(labels(request));
    },
    recordError(fatal, request) {
      errors.inc({ fatal: String(fatal), ...labels(request) });
    },
  };
}
