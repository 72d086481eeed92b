/**
 * One webhook call as kube's dispatchers make it (k8s.io/apiserver's webhook/mutating and
 * webhook/validating callHook): the dryRun/sideEffects check, the review, the HTTPS call, the
 * response checks, audit annotations and warnings, and a denial as kube's ToStatusErr
 * renders it. Failures are sorted the way the dispatchers and their metrics sort them.
 */
import { StatusError, badRequest, type KubeObject, type StatusReason } from '@kapi/machinery';
import type { AdmissionAttributes } from '@kapi/registry';
import type { MatchResult } from '../matching.js';
import { WebhookCallError, type WebhookClient } from './client.js';
import type { WebhookEntry } from './configurations.js';
import { PatchDecodeError, admissionReview, reviewVersionFor, verifyReviewResponse, type ReviewResponse } from './review.js';

/**
 * The webhook could not be called or answered unusably (kube's ErrCallingWebhook): the
 * failurePolicy decides. `code` is what kube's metrics report for it.
 */
export class CallingWebhookError extends Error {
  constructor(readonly webhook: string, reason: string, readonly code: number) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`);
  }
}

/** The webhook said no (kube's ErrWebhookRejection): `status` is what the client gets. */
export class WebhookRejection extends Error {
  constructor(readonly status: StatusError) {
    super(status.message);
  }
}

/** kube 1.32's ToStatusErr: the webhook's Status, with a code of at least 400 and kube's message prefix. */
export function toStatusError(webhook: string, result: Record<string, unknown> | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = typeof result?.['code'] === 'number' && result['code'] >= 400 ? result['code'] : 400;
  const message = typeof result?.['message'] === 'string' && result['message'] !== '' ? result['message'] : undefined;
  const reason = typeof result?.['reason'] === 'string' && result['reason'] !== '' ? result['reason'] : undefined;
  const text = message !== undefined ? `${deniedBy}: ${message}` : reason !== undefined ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = typeof result?.['details'] === 'object' && result['details'] !== null ? result['details'] : undefined;
  return new StatusError({
    code,
    message: text,
    ...(reason !== undefined ? { reason: reason as StatusReason } : {}),
    ...(details !== undefined ? { details: details as NonNullable<StatusError['status']['details']> } : {}),
  });
}

/** kube's NewDryRunUnsupportedErr. */
function dryRunUnsupported(webhook: string): StatusError {
  return badRequest(`admission webhook ${JSON.stringify(webhook)} does not support dry run`);
}

export interface HookCall {
  readonly hook: WebhookEntry;
  readonly attributes: AdmissionAttributes;
  readonly match: MatchResult;
  /** The objects in the matched version. */
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  readonly mutating: boolean;
}

/**
 * Calls the webhook. Returns its (allowed) response; throws CallingWebhookError,
 * WebhookRejection, or a StatusError (dry run not supported).
 */
export async function callWebhook(client: WebhookClient, call: HookCall): Promise<ReviewResponse> {
  const { hook, attributes } = call;
  if (attributes.dryRun) {
    if (hook.sideEffects === undefined) throw new CallingWebhookError(hook.name, 'Webhook SideEffects is nil', 400);
    if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
  }
  const version = reviewVersionFor(hook.admissionReviewVersions);
  if (version === undefined) {
    throw new CallingWebhookError(hook.name, `could not create admission objects: webhook does not accept known AdmissionReview versions`, 400);
  }
  const review = admissionReview(version, attributes, call.match, call.object, call.oldObject);
  let body: unknown;
  try {
    body = await client.post(hook.clientConfig, review.body, hook.timeoutSeconds);
  } catch (err) {
    const code = err instanceof WebhookCallError ? err.code : 400;
    throw new CallingWebhookError(hook.name, `failed to call webhook: ${err instanceof Error ? err.message : String(err)}`, code);
  }
  let response: ReviewResponse;
  try {
    response = verifyReviewResponse(version, review.uid, call.mutating, body);
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    if (err instanceof PatchDecodeError) throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: ${text}`, 503);
    throw new CallingWebhookError(hook.name, `received invalid webhook response: ${text}`, 503);
  }
  for (const [key, value] of Object.entries(response.auditAnnotations)) attributes.annotate(`${hook.name}/${key}`, value);
  for (const warning of response.warnings) attributes.warn(warning);
  if (!response.allowed) throw new WebhookRejection(toStatusError(hook.name, response.result));
  return response;
}
