import { RecoverableError } from 'etcd3/lib/errors.js';
import { noop, type IDefaultPolicyContext, type IFailureEvent, type IPolicy, type ISuccessEvent, type Event } from 'cockatiel';
import { isConnectionFailure } from './errors.js';

/**
 * The fault handling of one etcd member (the etcd3 client's per-host policy): runs each call
 * through `breaker` (or straight through), and makes sure a failure that is not a
 * connection failure (see `isConnectionFailure`) leaves as the answer to that one request.
 *
 * Why: the etcd3 client's pool rebuilds all of a member's gRPC channels (KV, Watch, Lease,
 * Maintenance) whenever a call fails with an error it marks "recoverable", and those include
 * RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, INTERNAL, UNKNOWN, ABORTED and CANCELLED — statuses
 * about one request. One oversize write (etcd's RESOURCE_EXHAUSTED) then tore down the
 * member's connection, and counted against the member. Here such errors lose that mark
 * before the pool sees them, so the pool leaves the member's channels alone; `breaker` is
 * meant to handle connection failures only, so it does not count them either. Connection
 * failures pass unchanged: the member is set aside (by `breaker`) and its channels rebuilt.
 */
export class MemberFaultHandling implements IPolicy {
  declare readonly _altReturn: never;
  private readonly inner: IPolicy;

  constructor(breaker?: IPolicy) {
    this.inner = breaker ?? noop;
  }

  get onSuccess(): Event<ISuccessEvent> {
    return this.inner.onSuccess;
  }

  get onFailure(): Event<IFailureEvent> {
    return this.inner.onFailure;
  }

  async execute<T>(fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T, signal?: AbortSignal): Promise<T> {
    try {
      return await this.inner.execute(fn, signal);
    } catch (err) {
      if (err instanceof Error && !isConnectionFailure(err)) forgetRecoverable(err);
      throw err;
    }
  }
}

/**
 * Removes etcd3's "recoverable" mark (an own property set by its error constructors) from an
 * error made for this call, so that the pool treats it as final for the call only. The error
 * keeps its class, code and message for `toStorageError`.
 */
function forgetRecoverable(err: Error): void {
  if (RecoverableError in err) Reflect.deleteProperty(err, RecoverableError);
}
