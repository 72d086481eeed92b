/**
 * Reads and decodes the object body of a write (create, update, delete options): JSON, YAML,
 * or protobuf (`k8s\0` + runtime.Unknown) for resources that have protobuf messages.
 */
import type { Envelope } from '@kapi/machinery';
import { ProtobufDecodeError, badRequest, decodeEnvelope, decodeEnveloped, findDuplicateFields, formatApiVersion } from '@kapi/machinery';
import { readBody, decodeBody } from '../http/body.js';
import { negotiateInput } from '../http/negotiation.js';
import { resourceCapabilities } from '../http/resource-output.js';
import type { RequestScope } from './scope.js';

/** kube's summarizeData: the first 30 bytes, as text for JSON-looking data, else as hex, `...` when cut. */
function summarize(data: Buffer): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, 30);
  const text = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return data.length > 30 ? `${text} ...` : text;
}

/**
 * Decodes a protobuf body as `kind` of `apiVersion` (the endpoint's type). Errors are 400 with
 * kube's texts: `the object provided is unrecognized (must be of type <Kind>): <error>
 * (<summary>)` for a bad envelope (missing or wrong `k8s\0` magic, no body), and `<Kind> in
 * version "<v>" cannot be handled as a <Kind>: <error>` for malformed message bytes.
 */
export function decodeProtobufBody(bytes: Buffer, apiVersion: string, kind: string): Record<string, unknown> {
  let envelope: Envelope;
  try {
    envelope = decodeEnvelope(bytes);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw badRequest(`the object provided is unrecognized (must be of type ${kind}): ${err.message} (${summarize(bytes)})`);
    throw err;
  }
  try {
    return decodeEnveloped(envelope, { apiVersion, kind }).object;
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    const dataKind = envelope.kind !== '' ? envelope.kind : kind;
    const dataVersion = (envelope.apiVersion !== '' ? envelope.apiVersion : apiVersion).split('/').pop() ?? '';
    throw badRequest(`${dataKind} in version "${dataVersion}" cannot be handled as a ${kind}: ${err.message}`);
  }
}

function decodeAs(scope: RequestScope, bytes: Buffer, contentType: string | undefined, kind: string, apiVersion: string): unknown {
  const { definition } = scope.resource;
  const format = negotiateInput(contentType, resourceCapabilities(definition, scope.info.version));
  return format === 'protobuf' ? decodeProtobufBody(bytes, apiVersion, kind) : decodeBody(bytes, format);
}

/** The decoded body. Throws 415 for an unsupported Content-Type, 413 past 3 MiB, 400 for malformed input. */
export async function readObjectBody(scope: RequestScope): Promise<unknown> {
  const contentType = scope.req.headers['content-type'];
  const { definition } = scope.resource;
  negotiateInput(contentType, resourceCapabilities(definition, scope.info.version));
  const bytes = await readBody(scope.req);
  return decodeAs(scope, bytes, contentType, definition.kind, formatApiVersion(definition.group, scope.info.version));
}

/**
 * readObjectBody plus the duplicate keys of a JSON body (JSON.parse hides them; strict
 * decoding reports them), when `scan` is set. Other formats report none.
 */
export async function readObjectBodyWithDuplicates(scope: RequestScope, scan: boolean): Promise<{ body: unknown; duplicateFields: string[] }> {
  const contentType = scope.req.headers['content-type'];
  const { definition } = scope.resource;
  const format = negotiateInput(contentType, resourceCapabilities(definition, scope.info.version));
  const bytes = await readBody(scope.req);
  const body = decodeAs(scope, bytes, contentType, definition.kind, formatApiVersion(definition.group, scope.info.version));
  return { body, duplicateFields: scan && format === 'json' ? findDuplicateFields(bytes.toString('utf8')) : [] };
}

/** Like readObjectBody for DeleteOptions, but an empty body is `undefined` (DELETE may carry no options). */
export async function readOptionalBody(scope: RequestScope): Promise<unknown> {
  const contentType = scope.req.headers['content-type'];
  const bytes = await readBody(scope.req);
  if (bytes.length === 0 || (bytes[0] !== 0x6b && bytes.toString('utf8').trim() === '')) return undefined;
  return decodeAs(scope, bytes, contentType, 'DeleteOptions', 'meta.k8s.io/v1');
}
