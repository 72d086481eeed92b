import { WebSocket } from 'undici';

/** The V8 inspector of a Node process started with `--inspect=127.0.0.1:0`, for forcing GC and reading memory. */
export interface InspectorSession {
  /** Full garbage collection (HeapProfiler.collectGarbage). */
  collectGarbage(): Promise<void>;
  /** `process.memoryUsage()` inside the process. */
  memoryUsage(): Promise<NodeJS.MemoryUsage>;
  /** Starts the V8 CPU profiler (sampling every `intervalUs`, default 200 µs). */
  startProfiling(intervalUs?: number): Promise<void>;
  /** Stops the CPU profiler and returns the profile (the `.cpuprofile` JSON of Chrome DevTools). */
  stopProfiling(): Promise<unknown>;
  close(): void;
}

/** The inspector's WebSocket URL from the process's output ("Debugger listening on ws://…"). */
export function inspectorUrl(output: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
}

/** Connects to the inspector at `url`; rejects after 10 s. Calls reject after 30 s without an answer. */
export async function connectInspector(url: string): Promise<InspectorSession> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`inspector ${url}: no connection in 10 s`)), 10_000);
    ws.addEventListener('open', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error(`inspector ${url}: connection failed`));
    });
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    if (message.error) w.reject(new Error(message.error.message));
    else w.resolve(message.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`inspector ${method}: no answer in 30 s`));
      }, 30_000);
      waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async collectGarbage() {
      await call('HeapProfiler.collectGarbage');
    },
    async memoryUsage() {
      const result = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
      return JSON.parse(result.result.value) as NodeJS.MemoryUsage;
    },
    async startProfiling(intervalUs = 200) {
      await call('Profiler.enable');
      await call('Profiler.setSamplingInterval', { interval: intervalUs });
      await call('Profiler.start');
    },
    async stopProfiling() {
      const result = (await call('Profiler.stop')) as { profile: unknown };
      return result.profile;
    },
    close() {
      ws.close();
    },
  };
}
