/** What a resource verb handler gets: the request, its parsed address, and the resource's roles. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext, RestResource } from '@kapi/registry';
import type { ResourceRequestInfo } from '../http/request-info.js';
import type { ResourceOutput } from '../http/resource-output.js';
import type { Authorizer } from '../auth/authorizer.js';

export interface RequestScope {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly info: ResourceRequestInfo;
  readonly query: URLSearchParams;
  /** The negotiated response representation (encoding, and a Table/PartialObjectMetadata conversion). */
  readonly output: ResourceOutput;
  readonly resource: RestResource;
  /** Namespace ("" for cluster-scoped resources) and User-Agent, as the registry wants them. */
  readonly context: RequestContext;
  /** Warnings collected while handling; sent as `Warning: 299` headers. */
  readonly warnings: string[];
  readonly groupResource: { group: string; resource: string };
  readonly settings: HandlerSettings;
  /** Counts this request in apiserver_longrunning_requests; call the returned function when it ends. */
  readonly startLongRunning: () => () => void;
  /** A watch event of `bytes` went on the wire (apiserver_watch_events_total and _sizes). */
  readonly watchEventSent?: (bytes: number) => void;
}

/** Server-wide settings the long-running handlers need. */
export interface HandlerSettings {
  /** --min-request-timeout: a watch without timeoutSeconds lasts random [min, 2×min) seconds; 0 = no limit. */
  readonly minRequestTimeoutSeconds: number;
  /** Aborted when the server begins shutting down: long-running requests end at once. */
  readonly shutdown: AbortSignal;
  /**
   * Set when the AllowUnsafeMalformedObjectDeletion gate is on: the delete option
   * `ignoreStoreReadErrorWithClusterBreakingPotential` is honoured, for users the authorizer
   * allows the verb `unsafe-delete-ignore-read-errors` (none: requests are not authorized).
   */
  readonly unsafeDeletion?: { readonly authorizer?: Authorizer };
}

export type VerbHandler = (scope: RequestScope) => Promise<void>;
