/**
 * A YAML decoder thread: decodes what yaml-decoder-pool.ts sends, one body at a time. Runs
 * with the pool's resource limits; running out of heap or time ends this thread only.
 */
import { parentPort } from 'node:worker_threads';
import { BodyDecodeError } from './decode-error.js';
import { decodeYaml } from './yaml-decode.js';
import type { YamlRequest, YamlResponse } from './yaml-decoder-pool.js';

const port = parentPort!;

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
