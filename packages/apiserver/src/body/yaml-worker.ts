/**
 * A YAML decoder thread: decodes what yaml-decoder-pool.ts sends, one body at a time. Runs
 * with the pool's resource limits; running out of heap or time ends this thread only.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { BodyDecodeError } from './decode-error.js';
import { decodeYaml } from './yaml-decode.js';
import type { YamlRequest, YamlResponse } from './yaml-decoder-pool.js';

const port = parentPort!;

/**
 * Decoding is background work: this thread runs at a lower priority (Linux nice 10, set on
 * the thread itself) so that when the cores are busy the event loop, which answers every
 * other request and the health probes, gets the CPU first. Elsewhere it keeps the default.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: decode at the normal priority
  }
}
lowerThreadPriority();

const textOf = (body: string | Uint8Array): string =>
  typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

port.on('message', (request: YamlRequest) => {
  let response: YamlResponse;
  try {
    response = { id: request.id, decoded: decodeYaml(textOf(request.body), request.options) };
  } catch (err) {
    response = { id: request.id, detail: err instanceof BodyDecodeError ? err.detail : `yaml: ${(err as Error).message}` };
  }
  port.postMessage(response);
});
