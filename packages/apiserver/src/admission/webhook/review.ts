/**
 * AdmissionReview v1 (and v1beta1, for webhooks that accept only it): the request kube sends
 * a webhook and the checks of its response (k8s.io/apiserver's webhook/request), with kube's
 * error texts.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes } from '@kapi/registry';
import type { MatchResult } from '../matching.js';

type Json = Record<string, unknown>;

/** The AdmissionReview versions kapi speaks, in kube's preference. */
const KNOWN_VERSIONS = ['v1', 'v1beta1'];

/** The first AdmissionReview version of the webhook's list kapi speaks, or undefined. */
export function reviewVersionFor(accepted: readonly string[]): string | undefined {
  return accepted.find((v) => KNOWN_VERSIONS.includes(v));
}

/** An object as Go encodes it in a review: a zero creationTimestamp is `null`. */
function encoded(obj: KubeObject | undefined): KubeObject | null {
  if (obj === undefined) return null;
  if (obj.metadata === undefined || obj.metadata.creationTimestamp !== undefined) return obj;
  return { ...obj, metadata: { ...obj.metadata, creationTimestamp: null } as unknown as KubeObject['metadata'] };
}

export interface ReviewRequest {
  readonly uid: string;
  readonly body: Json;
}

/**
 * The review for one webhook call: `object`/`oldObject` are already in the matched version
 * (`match`); the request's own kind and resource are sent as requestKind/requestResource.
 */
export function admissionReview(version: string, attributes: AdmissionAttributes, match: MatchResult, object: KubeObject | undefined, oldObject: KubeObject | undefined): ReviewRequest {
  const uid = randomUUID();
  const user = attributes.userInfo;
  const userInfo: Json = { username: user?.name ?? '' };
  if (user !== undefined && user.uid !== '') userInfo['uid'] = user.uid;
  if (user !== undefined && user.groups.length > 0) userInfo['groups'] = user.groups;
  if (user !== undefined && Object.keys(user.extra).length > 0) userInfo['extra'] = user.extra;
  const request: Json = {
    uid,
    kind: match.kind,
    resource: match.resource,
    ...(attributes.subresource !== '' ? { subResource: attributes.subresource } : {}),
    requestKind: attributes.kind,
    requestResource: attributes.resource,
    ...(attributes.subresource !== '' ? { requestSubResource: attributes.subresource } : {}),
    ...(attributes.name !== '' ? { name: attributes.name } : {}),
    ...(attributes.namespace !== '' ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo,
    object: encoded(object),
    oldObject: encoded(oldObject),
    dryRun: attributes.dryRun,
    options: attributes.options ?? null,
  };
  return { uid, body: { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request } };
}

export interface ReviewResponse {
  readonly allowed: boolean;
  /** The decoded JSON patch, when the webhook sent one. */
  readonly patch?: unknown;
  readonly result?: Json;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** kube's VerifyAdmissionResponse: throws an Error with kube's text for an invalid response. */
export function verifyReviewResponse(version: string, uid: string, mutating: boolean, body: unknown): ReviewResponse {
  const review = (typeof body === 'object' && body !== null ? body : {}) as Json;
  const response = review['response'];
  if (typeof response !== 'object' || response === null) throw new Error('webhook response was absent');
  const r = response as Json;
  const got = typeof r['uid'] === 'string' ? r['uid'] : '';
  if (got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
  const gvk = `admission.k8s.io/${version}, Kind=AdmissionReview`;
  const [group, ver] = typeof review['apiVersion'] === 'string' && review['apiVersion'].includes('/') ? review['apiVersion'].split('/', 2) : ['', String(review['apiVersion'] ?? '')];
  const gotGvk = `${group}/${ver}, Kind=${typeof review['kind'] === 'string' ? review['kind'] : ''}`;
  if (gotGvk !== gvk) throw new Error(`expected webhook response of ${gvk}, got ${gotGvk.startsWith('/') ? gotGvk.slice(1) : gotGvk}`);
  const patch = typeof r['patch'] === 'string' && r['patch'] !== '' ? r['patch'] : undefined;
  const patchType = r['patchType'];
  let decodedPatch: unknown;
  if (mutating) {
    if (version === 'v1') {
      if (patch !== undefined && patchType === undefined) throw new Error('webhook returned response.patch but not response.patchType');
      if (patch === undefined && patchType !== undefined) throw new Error('webhook returned response.patchType but not response.patch');
    }
    if (patchType !== undefined && patchType !== 'JSONPatch') throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
    if (patch !== undefined) {
      try {
        decodedPatch = JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
      } catch (err) {
        throw new PatchDecodeError(err instanceof Error ? err.message : String(err));
      }
    }
  } else {
    if (patch !== undefined) throw new Error('validating webhook may not return response.patch');
    if (patchType !== undefined) throw new Error('validating webhook may not return response.patchType');
  }
  const warnings = Array.isArray(r['warnings']) ? r['warnings'].filter((w): w is string => typeof w === 'string') : [];
  const annotations = typeof r['auditAnnotations'] === 'object' && r['auditAnnotations'] !== null ? (r['auditAnnotations'] as Record<string, string>) : {};
  const result = typeof r['status'] === 'object' && r['status'] !== null ? (r['status'] as Json) : undefined;
  return {
    allowed: r['allowed'] === true,
    ...(decodedPatch !== undefined ? { patch: decodedPatch } : {}),
    ...(result !== undefined ? { result } : {}),
    warnings,
    auditAnnotations: annotations,
  };
}

/** A patch that is not JSON (kube: `received undecodable patch in webhook response`). */
export class PatchDecodeError extends Error {}
