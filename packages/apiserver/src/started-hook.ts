/**
 * How the server tells a launcher around it that it has started (serving, post-start hooks
 * done): dist/bundled.js saves its V8 code cache then. A global symbol, because the launcher
 * and the bundled server share no module instance.
 */
const STARTED_HOOK = Symbol.for('kapi.apiserver.started');

type Hooks = Record<symbol, (() => void) | undefined>;

/** Called by bin.ts once the server has started; does nothing without a launcher. */
export function notifyStarted(): void {
  (globalThis as unknown as Hooks)[STARTED_HOOK]?.();
}

/** Installs the launcher's callback (at most one). */
export function onStarted(callback: () => void): void {
  (globalThis as unknown as Hooks)[STARTED_HOOK] = callback;
}
