/**
 * kube's admission metrics (k8s.io/apiserver's admission/metrics): the step latency of each
 * phase, and per webhook its latency, request count, rejections and fail-open count; per
 * ValidatingAdmissionPolicy and binding, the checks that failed or erred. Names,
 * help texts, labels and buckets as kube-apiserver 1.32 exports them. Webhook names come
 * from configurations (bounded by what an administrator creates, as in kube).
 */
import { histogramChild, type ObservingChild } from '@kapi/storage';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The webhook dispatchers' type label (kube's: `admit` and `validating`). */
export type WebhookMetricType = 'admit' | 'validating';

/** Why a webhook's call counts as a rejection (kube's error_type label). */
export type WebhookRejectionType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

export interface AdmissionMetrics {
  /** One phase of the chain for one request (`admit` or `validate`). */
  recordStep(type: 'admit' | 'validate', operation: string, rejected: boolean, seconds: number): void;
  /** One webhook call: its latency and the request counter (`code` as kube reports it). */
  recordWebhook(name: string, type: WebhookMetricType, operation: string, rejected: boolean, code: number, seconds: number): void;
  recordWebhookRejection(name: string, type: WebhookMetricType, operation: string, errorType: WebhookRejectionType, code: number): void;
  recordWebhookFailOpen(name: string, type: WebhookMetricType): void;
  /**
   * One validation of a ValidatingAdmissionPolicy that denied or erred, for each action taken
   * on it (an erring validation the failurePolicy ignores counts as `allow`).
   */
  recordPolicyCheck(policy: string, binding: string, errorType: PolicyCheckErrorType, action: PolicyEnforcementAction, seconds: number): void;
}

/** What went wrong in a policy's validation (kube's error_type label). */
export type PolicyCheckErrorType = 'compile_error' | 'invalid_error' | 'out_of_budget' | 'no_error';
/** What was done with a policy's validation (kube's enforcement_action label). */
export type PolicyEnforcementAction = 'allow' | 'deny' | 'warn' | 'audit';

const STEP_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
const POLICY_CHECK_BUCKETS = [0.0000005, 0.001, 0.01, 0.1, 1.0];

const boundedCode = (code: number) => String(Math.min(code, 600));

export function createAdmissionMetrics(registry: Registry): AdmissionMetrics {
  const registers = [registry];
  const step = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: '[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: STEP_BUCKETS,
    registers,
  });
  const webhookLatency = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: '[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: WEBHOOK_BUCKETS,
    registers,
  });
  const webhookRequests = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: '[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    registers,
  });
  const rejections = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: '[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registers,
  });
  const failOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).',
    labelNames: ['name', 'type'],
    registers,
  });
  const policyLabels = ['policy', 'policy_binding', 'error_type', 'enforcement_action'];
  const policyChecks = new Counter({
    name: 'apiserver_validating_admission_policy_check_total',
    help: '[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    labelNames: policyLabels,
    registers,
  });
  const policyLatency = new Histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: '[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames: policyLabels,
    buckets: POLICY_CHECK_BUCKETS,
    registers,
  });
  // One label-bound child per (type, operation, rejected): the step is observed twice per
  // admitted request, and prom-client's own observe hashes its labels every time.
  const stepChildren = new Map<string, ObservingChild>();
  return {
    recordStep(type, operation, rejected, seconds) {
      const key = `${type} ${operation} ${rejected}`;
      let child = stepChildren.get(key);
      if (child === undefined) {
        child = histogramChild(step, { type, operation, rejected: String(rejected) });
        stepChildren.set(key, child);
      }
      child.observe(seconds);
    },
    recordWebhook(name, type, operation, rejected, code, seconds) {
      webhookLatency.observe({ name, type, operation, rejected: String(rejected) }, seconds);
      webhookRequests.inc({ name, type, operation, code: boundedCode(code), rejected: String(rejected) });
    },
    recordWebhookRejection(name, type, operation, errorType, code) {
      rejections.inc({ name, type, operation, error_type: errorType, rejection_code: boundedCode(code) });
    },
    recordWebhookFailOpen(name, type) {
      failOpen.inc({ name, type });
    },
    recordPolicyCheck(policy, binding, errorType, action, seconds) {
      const labels = { enforcement_action: action, error_type: errorType, policy, policy_binding: binding };
      policyChecks.inc(labels);
      policyLatency.observe(labels, seconds);
    },
  };
}
