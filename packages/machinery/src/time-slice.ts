/**
 * Cooperative time slices for work that grows with a request's size. Code on the request
 * path calls `yieldIfBusy()` between steps (`await yieldIfBusy()`). It returns undefined
 * (awaiting that costs one microtask) unless both the current turn of the event loop has run
 * SLICE_MS since its first checkpoint and the step that just ended took STEP_MS or more; then
 * it returns a promise that resolves in the loop's check phase (setImmediate), after the I/O
 * of this turn, or on a later turn, after timers, when the requests resumed there have used
 * the slice. The turn's clock is shared by every request in it, because what
 * matters is how long the loop goes without serving anyone else; the step's length keeps
 * small requests on their synchronous path even in a busy turn (their steps take
 * microseconds, and yielding them would only add turns).
 *
 * A step is never cut: one step (a JSON.parse, one walk over the object) still runs whole, so
 * a request holds the loop for at most its longest step plus what was left of the slice.
 *
 * The hottest paths (a create passes some two dozen checkpoints) write the same checkpoint as
 * `if (shouldYield()) await nextSlice();`, which costs no microtask when the slice lasts.
 */

/** How long the loop may run request work between two chances for others to run, in ms. */
export const SLICE_MS = 10;

/** A step shorter than this (ms) never yields: it is not a large request's pass. */
export const STEP_MS = 1;

/** When the current slice's first checkpoint ran (performance.now()), or -1 outside one. */
let sliceStart = -1;

/** When the last checkpoint ran: the step since then is what the next checkpoint measures. */
let lastCheckpoint = 0;

function endSlice(): void {
  sliceStart = -1;
}

/** Starts a slice at `now`; it ends at the loop's next check phase (setImmediate). */
function startSlice(now: number): void {
  sliceStart = now;
  setImmediate(endSlice);
}

/**
 * Resumes one paused computation, in a check phase. The computations resumed in one check
 * phase share one slice: once it has run SLICE_MS, the rest wait for the next turn of the
 * loop (immediates queued while the check phase runs wait for it), so timers and I/O run
 * between them. Giving each its own slice would let N paused requests run N slices back to
 * back, with nothing else served in between.
 */
function resume(resolve: () => void): void {
  const now = performance.now();
  if (sliceStart >= 0 && now - sliceStart >= SLICE_MS) {
    setImmediate(resume, resolve);
    return;
  }
  if (sliceStart < 0) startSlice(now);
  lastCheckpoint = now;
  resolve();
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resume, resolve));

/**
 * A checkpoint: whether the caller should pause now (`await nextSlice()`), by yieldIfBusy's
 * rule. Only the checkpoint is recorded; nothing is scheduled.
 */
export function shouldYield(): boolean {
  const now = performance.now();
  const step = now - lastCheckpoint;
  lastCheckpoint = now;
  if (sliceStart < 0) {
    startSlice(now);
    return false;
  }
  return now - sliceStart >= SLICE_MS && step >= STEP_MS;
}

/** A promise resolved on a later turn of the event loop, in its share of a slice (after shouldYield said so). Never rejects. */
export function nextSlice(): Promise<void> {
  return nextTurn();
}

/**
 * undefined while the current slice lasts; otherwise a promise resolved on a later turn of
 * the event loop. Never rejects.
 */
export function yieldIfBusy(): Promise<void> | undefined {
  return shouldYield() ? nextTurn() : undefined;
}

/**
 * The checkpoint before a step known to be long (decoding a large body): like yieldIfBusy,
 * but it yields whenever the slice has run SLICE_MS, whatever the last step took, so that
 * several large requests that become ready in the same turn do not all run their long step
 * in it.
 */
export function yieldBeforeLongStep(): Promise<void> | undefined {
  const now = performance.now();
  lastCheckpoint = now;
  if (sliceStart < 0) {
    startSlice(now);
    return undefined;
  }
  if (now - sliceStart < SLICE_MS) return undefined;
  return nextTurn();
}

/**
 * A computation in steps: a generator that yields (no value) wherever it may pause, and
 * returns its result. `runSteps` runs it to the end at once; `runStepsSliced` pauses at each
 * yield for as long as `yieldIfBusy` says. One implementation serves both callers.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to completion synchronously. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/** Runs `steps`, letting other work have the event loop at its yields once the turn has run long. */
export async function runStepsSliced<T>(steps: Steps<T>): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    if (shouldYield()) await nextTurn();
  }
}
