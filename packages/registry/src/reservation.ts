/**
 * Values a resource holds outside its own object, which its writes reserve and its deletion
 * releases — kube's BeginCreate/BeginUpdate/AfterDelete hooks on a store (a Service's cluster
 * IP and node ports). The generic store calls a `Reserver` after validation, right before the
 * object is written, and settles the reservation once the write's outcome is known.
 */
import type { KubeObject } from '@kapi/machinery';

/** What a write reserved: settled exactly once, with `commit` after the write is stored, else `revert`. */
export interface Reservation {
  /** The write is stored: release what the old object held and the new one gave up. */
  commit(): Promise<void>;
  /** The write failed or was not made: release what was reserved for it. */
  revert(): Promise<void>;
}

export interface Reserver {
  /**
   * Reserves what the validated object (storage form) needs and sets the reserved values on
   * it. Throws a StatusError (422 for a value that is taken or out of range) with nothing
   * reserved. `dryRun`: checks and fills in values, reserves nothing.
   */
  beginCreate(obj: KubeObject, dryRun: boolean): Promise<Reservation>;
  /** As beginCreate, for an update of `old` into `obj`. */
  beginUpdate(obj: KubeObject, old: KubeObject, dryRun: boolean): Promise<Reservation>;
  /** The object is gone from storage: release what it held. Never throws. */
  released(obj: KubeObject): Promise<void>;
}

/** A reservation with nothing to settle. */
export const NOTHING_RESERVED: Reservation = { commit: () => Promise.resolve(), revert: () => Promise.resolve() };

/**
 * Runs `write` with the reservation `begin` makes, settling it by the write's outcome.
 * Errors of `write` are rethrown after the revert.
 */
export async function withReservation<T>(reservation: Reservation, write: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await write();
  } catch (err) {
    await reservation.revert();
    throw err;
  }
  await reservation.commit();
  return result;
}
