/**
 * Audit records of requests (kube's WithAudit, WithFailedAuthenticationAudit and the audit
 * annotations): the policy picks a level per request from its authenticated user and request
 * attributes; each stage the policy does not omit becomes one audit.k8s.io/v1 Event, handed
 * to the backends (backend.ts: the log and the webhook, each in its mode). When the backends
 * refuse a request's RequestReceived event (a blocking-strict backend failed), the request
 * fails with 500 as kube's does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { RequestInfo } from '../http/request-info.js';
import { requestAttributes } from '../auth/attributes.js';
import type { UserInfo } from '../auth/user.js';
import { startCapture, type Capture } from './capture.js';
import { auditEvent, type AuditBackend, type Processed } from './backend.js';
import type { AuditMetrics } from './metrics.js';
import { evaluatePolicy, levelAtLeast, type Level, type Policy, type RequestAuditConfig, type Stage } from './policy.js';

export type AuditMode = 'blocking' | 'batch' | 'blocking-strict';

export interface AuditorOptions {
  readonly policy: Policy;
  /** Every backend, joined (backend.ts). */
  readonly backend: AuditBackend;
  readonly metrics: AuditMetrics;
}

export interface AuditInput {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly auditID: string;
  readonly info: RequestInfo;
  readonly query: URLSearchParams;
  /** The authenticated user; undefined when the request is not authenticated (plain HTTP, authentication off). */
  readonly user?: UserInfo;
  /** performance.now() when the request arrived. */
  readonly receivedAt: number;
}

/** One request's record, while it is served. */
export interface AuditRecord {
  /**
   * Set when a backend is still delivering the RequestReceived event and the request must wait
   * for it (blocking modes): resolves false when the request must fail (blocking-strict).
   */
  readonly received?: Promise<boolean>;
  impersonated(user: UserInfo): void;
  authorized(allowed: boolean, reason: string): void;
  /** Adds an annotation to the events still to come (admission's; a key already set keeps its first value, as kube's AddAnnotation). */
  annotate(key: string, value: string): void;
  /** A long-running request sent its headers. */
  responseStarted(code: number): void;
  /** The response is complete (or the handler failed unexpectedly: `panic`). Idempotent. */
  complete(code: number, outcome?: { panic?: unknown; deprecated?: { removedRelease: string } }): void;
}

export interface Auditor {
  /** Starts a request's record: undefined when the policy says None; 'rejected' when blocking-strict could not record it. */
  begin(input: AuditInput): AuditRecord | undefined | 'rejected';
  /** A request whose credentials were refused (401): one ResponseStarted event. */
  failedAuthentication(input: Omit<AuditInput, 'user'>): void;
  close(): Promise<void>;
}

/** The audit ID of a request: its `Audit-ID` header when given, else a new UUID. */
export function auditIdOf(req: IncomingMessage): string {
  const given = req.headers['audit-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && value.trim() !== '' ? value.trim() : crypto.randomUUID();
}

/** metav1.MicroTime: RFC 3339 with microseconds, UTC. */
function microTime(ms: number): string {
  const micros = Math.floor(ms * 1000);
  const seconds = new Date(Math.floor(micros / 1_000_000) * 1000).toISOString().slice(0, 19);
  return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

const epochMs = (performanceNow: number) => performance.timeOrigin + performanceNow;

function bareIp(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** kube's utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, without repeats. */
export function sourceIPs(req: IncomingMessage): string[] {
  const out: string[] = [];
  const add = (ip: string) => {
    const trimmed = bareIp(ip.trim());
    if (isIP(trimmed) !== 0 && !out.includes(trimmed)) out.push(trimmed);
  };
  const forwarded = req.headers['x-forwarded-for'];
  for (const part of (Array.isArray(forwarded) ? forwarded.join(',') : forwarded ?? '').split(',')) if (part.trim() !== '') add(part);
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string') add(real);
  if (req.socket.remoteAddress !== undefined) add(req.socket.remoteAddress);
  return out;
}

function userJson(user: UserInfo): Record<string, unknown> {
  return {
    username: user.name,
    ...(user.uid !== '' ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function withoutManagedFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  const metadata = obj['metadata'] as Record<string, unknown> | undefined;
  let out = obj;
  if (metadata !== undefined && metadata !== null && typeof metadata === 'object' && 'managedFields' in metadata) {
    const { managedFields: _dropped, ...rest } = metadata;
    out = { ...obj, metadata: rest };
  }
  if (Array.isArray(obj['items'])) out = { ...out, items: (obj['items'] as unknown[]).map(withoutManagedFields) };
  return out;
}

function parseBody(body: Buffer | undefined): Record<string, unknown> | undefined {
  if (body === undefined || body.length === 0) return undefined;
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Thrown when blocking-strict could not record a request's RequestReceived event. */
export class AuditRejected extends Error {
  override readonly name = 'AuditRejected';
  constructor() {
    super('failed to store audit event');
  }
}

const CREATE_LIKE = new Set(['create', 'update']);

/** Resolves a backend result that is not needed (later stages): a promise is left to settle. */
function ignore(result: Processed): void {
  if (typeof result !== 'boolean') void result.catch(() => undefined);
}

export function createAuditor(options: AuditorOptions): Auditor {
  const { policy, backend } = options;
  const { eventTotal, levelTotal, rejectedTotal } = options.metrics;

  const send = (event: Record<string, unknown>): Processed => {
    eventTotal.inc();
    return backend.processEvents([auditEvent(event, event['level'] as Level)]);
  };

  const baseEvent = (input: Omit<AuditInput, 'user'>, level: Level, stage: Stage, user: UserInfo | undefined, impersonatedUser?: UserInfo): Record<string, unknown> => {
    const { req, info } = input;
    const userAgent = req.headers['user-agent'];
    const event: Record<string, unknown> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID: input.auditID,
      stage,
      requestURI: req.url ?? '/',
      verb: info.verb,
      user: user !== undefined ? userJson(user) : {},
    };
    if (impersonatedUser !== undefined) event['impersonatedUser'] = userJson(impersonatedUser);
    event['sourceIPs'] = sourceIPs(req);
    if (userAgent !== undefined && userAgent !== '') event['userAgent'] = userAgent;
    if (info.isResourceRequest) {
      event['objectRef'] = {
        resource: info.resource,
        ...(info.namespace !== '' ? { namespace: info.namespace } : {}),
        ...(info.name !== '' ? { name: info.name } : {}),
        ...(info.group !== '' ? { apiGroup: info.group } : {}),
        apiVersion: info.version,
        ...(info.subresource !== '' ? { subresource: info.subresource } : {}),
      };
    }
    return event;
  };

  const finishEvent = (event: Record<string, unknown>, receivedAt: number, annotations: Record<string, string>): Record<string, unknown> => {
    event['requestReceivedTimestamp'] = microTime(epochMs(receivedAt));
    // kube stamps RequestReceived with the time the request arrived.
    event['stageTimestamp'] = event['stage'] === 'RequestReceived' ? event['requestReceivedTimestamp'] : microTime(epochMs(performance.now()));
    const keys = Object.keys(annotations);
    if (keys.length > 0) event['annotations'] = Object.fromEntries(keys.sort().map((k) => [k, annotations[k]!]));
    return event;
  };

  return {
    begin(input) {
      const attributes = requestAttributes(input.user ?? { name: '', uid: '', groups: [], extra: {} }, input.info, input.query);
      const config: RequestAuditConfig = evaluatePolicy(policy, attributes);
      levelTotal.inc({ level: config.level });
      if (config.level === 'None') return undefined;
      const { level, omitStages } = config;
      const capture: Capture = {
        wantsRequestBody: levelAtLeast(level, 'Request') || (input.info.isResourceRequest && CREATE_LIKE.has(input.info.verb)),
        wantsResponseObject: levelAtLeast(level, 'RequestResponse'),
      };
      startCapture(input.req, input.res, capture);
      let impersonatedUser: UserInfo | undefined;
      const annotations: Record<string, string> = {};
      let done = false;

      const event = (stage: Stage, code?: number): Record<string, unknown> => {
        const ev = baseEvent(input, level, stage, input.user, impersonatedUser);
        const body = stage === 'RequestReceived' ? undefined : parseBody(capture.requestBody);
        const objectRef = ev['objectRef'] as Record<string, unknown> | undefined;
        const meta = body?.['metadata'] as Record<string, unknown> | undefined;
        if (objectRef !== undefined && meta !== undefined && meta !== null && typeof meta === 'object') {
          // kube fills what the URL lacks from the request object (a create's name, an update's resourceVersion).
          const fill = (key: string, from: string) => {
            if (objectRef[key] === undefined && typeof meta[from] === 'string' && meta[from] !== '') objectRef[key] = meta[from];
          };
          fill('namespace', 'namespace');
          fill('name', 'name');
          fill('uid', 'uid');
          fill('resourceVersion', 'resourceVersion');
          const ordered = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'];
          ev['objectRef'] = Object.fromEntries(ordered.filter((k) => objectRef[k] !== undefined).map((k) => [k, objectRef[k]]));
        }
        if (code !== undefined) {
          const response = capture.responseObject as Record<string, unknown> | undefined;
          const status = response !== undefined && response['kind'] === 'Status' ? response : undefined;
          ev['responseStatus'] = status !== undefined
            ? {
                metadata: {},
                ...(status['status'] !== undefined ? { status: status['status'] } : {}),
                ...(status['message'] !== undefined && status['message'] !== '' ? { message: status['message'] } : {}),
                ...(status['reason'] !== undefined && status['reason'] !== '' ? { reason: status['reason'] } : {}),
                ...(status['details'] !== undefined ? { details: status['details'] } : {}),
                code,
              }
            : { metadata: {}, code };
        }
        if (stage !== 'RequestReceived' && levelAtLeast(level, 'Request') && capture.requestBody !== undefined) {
          const requestObject = body ?? parseBody(capture.requestBody);
          if (requestObject !== undefined) ev['requestObject'] = config.omitManagedFields ? withoutManagedFields(requestObject) : requestObject;
        }
        if ((stage === 'ResponseComplete' || stage === 'Panic') && levelAtLeast(level, 'RequestResponse') && capture.responseObject !== undefined) {
          ev['responseObject'] = config.omitManagedFields ? withoutManagedFields(capture.responseObject) : capture.responseObject;
        }
        return finishEvent(ev, input.receivedAt, annotations);
      };

      let received: Promise<boolean> | undefined;
      if (!omitStages.has('RequestReceived')) {
        const accepted = send(event('RequestReceived'));
        if (accepted === false) {
          rejectedTotal.inc();
          return 'rejected';
        }
        if (accepted !== true) {
          received = accepted.then((ok) => {
            if (!ok) {
              // The request fails here; as in kube, no later stage is recorded.
              rejectedTotal.inc();
              done = true;
            }
            return ok;
          }, () => true);
        }
      }
      return {
        ...(received !== undefined ? { received } : {}),
        impersonated(user) {
          impersonatedUser = user;
        },
        authorized(allowed, reason) {
          annotations['authorization.k8s.io/decision'] = allowed ? 'allow' : 'forbid';
          annotations['authorization.k8s.io/reason'] = reason;
        },
        annotate(key, value) {
          if (!(key in annotations)) annotations[key] = value;
        },
        responseStarted(code) {
          if (!omitStages.has('ResponseStarted')) ignore(send(event('ResponseStarted', code)));
        },
        complete(code, outcome = {}) {
          if (done) return;
          done = true;
          if (outcome.deprecated !== undefined) {
            annotations['k8s.io/deprecated'] = 'true';
            if (outcome.deprecated.removedRelease !== '') annotations['k8s.io/removed-release'] = outcome.deprecated.removedRelease;
          }
          const stage: Stage = outcome.panic !== undefined ? 'Panic' : 'ResponseComplete';
          if (omitStages.has(stage)) return;
          const ev = event(stage, code);
          if (stage === 'Panic') {
            ev['responseStatus'] = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${outcome.panic instanceof Error ? outcome.panic.message : String(outcome.panic)}`, reason: 'InternalError', code: 500 };
          }
          ignore(send(ev));
        },
      };
    },
    failedAuthentication(input) {
      const config = evaluatePolicy(policy, requestAttributes({ name: '', uid: '', groups: [], extra: {} }, input.info, input.query));
      levelTotal.inc({ level: config.level });
      if (config.level === 'None' || config.omitStages.has('ResponseStarted')) return;
      const ev = baseEvent(input, config.level, 'ResponseStarted', undefined);
      // kube first notes the methods tried ("Authentication failed, attempted: ...") and then
      // records the 401 Status it writes over them.
      ev['responseStatus'] = { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
      ignore(send(finishEvent(ev, input.receivedAt, {})));
    },
    async close() {
      await backend.close();
    },
  };
}
