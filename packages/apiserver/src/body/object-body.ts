/**
 * The object body of a write (create, update, DeleteOptions): read within the size limit, then
 * decoded by its Content-Type — JSON on the event loop, YAML on a decoder thread, protobuf
 * (`k8s\0` + runtime.Unknown) for resources that have protobuf messages. Errors are kube's
 * 400 texts for a body that does not decode.
 */
import type { IncomingMessage } from 'node:http';
import { badRequest, nextSlice, shouldYield } from '@kapi/machinery';
import { negotiateInput, type ResourceCapabilities } from '../http/negotiation.js';
import { BodyDecodeError } from './decode-error.js';
import { beforeDecoding, decodeJson, decodeJsonMergingDuplicates, jsonDuplicateFields } from './json-body.js';
import { ProtobufMessageError, decodeProtobuf } from './protobuf-body.js';
import { readBody } from './read-body.js';
import { yamlDecoder } from './yaml-decoder-pool.js';

/** What a body is decoded as: the endpoint's type, and the encodings its resource has. */
export interface ObjectBodyTarget {
  readonly kind: string;
  readonly apiVersion: string;
  readonly capabilities: ResourceCapabilities;
}

export interface DecodedObjectBody {
  readonly body: unknown;
  /** Duplicate keys of a JSON body, as paths (`data.a`); only when asked. */
  readonly duplicateFields: readonly string[];
  /** Duplicate keys of a YAML body, as go-yaml's lines (`line 7: key "a" already set in map`); only when asked. */
  readonly duplicateKeyLines: readonly string[];
  /** The body was decoded from protobuf: a new object holding only fields of the kind's message. */
  readonly protobuf?: true;
}

/** kube's summarizeData: the first 30 bytes, as text for JSON-looking data, else as hex, `...` when cut. */
function summarize(data: Buffer): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, 30);
  const text = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return data.length > 30 ? `${text} ...` : text;
}

/** kube's transformDecodeError for a body whose kind could not be read. */
function unrecognized(kind: string, detail: string, bytes: Buffer): Error {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${detail} (${summarize(bytes)})`);
}

/**
 * Decodes `bytes` (Content-Type `contentType`) as `target`. With `strict`, also lists the
 * body's duplicate keys. Throws 415 for a Content-Type the resource does not take, 400 for a
 * body that does not decode, 413 for a YAML body too costly to decode.
 */
export async function decodeObjectBody(bytes: Buffer, contentType: string | undefined, target: ObjectBodyTarget, strict: boolean): Promise<DecodedObjectBody> {
  const { kind, apiVersion } = target;
  const format = negotiateInput(contentType, target.capabilities);
  try {
    await beforeDecoding(bytes);
    if (format === 'protobuf') return { body: decodeProtobuf(bytes, apiVersion, kind), duplicateFields: [], duplicateKeyLines: [], protobuf: true };
    if (format === 'json') {
      const text = bytes.toString('utf8');
      let body: unknown;
      try {
        body = decodeJson(text);
      } catch (err) {
        if (err instanceof BodyDecodeError) throw new BodyDecodeError(`couldn't get version/kind; json parse error: ${err.detail}`);
        throw err;
      }
      // JSON `null` decodes into nothing for kube too: an empty object (422 for a missing name, not 400).
      if (body === null) body = {};
      if (!strict) return { body, duplicateFields: [], duplicateKeyLines: [] };
      if (shouldYield()) await nextSlice();
      const duplicateFields = jsonDuplicateFields(text);
      // A typed kind's decoder reads a repeated object into the one before it; a custom
      // resource's (unstructured) keeps the last, as JSON.parse does.
      if (duplicateFields.length > 0 && target.capabilities.protobuf) body = decodeJsonMergingDuplicates(text);
      return { body, duplicateFields, duplicateKeyLines: [] };
    }
    const decoded = await yamlDecoder().decode(bytes, { duplicates: strict });
    await beforeDecoding(decoded.json);
    const body = JSON.parse(decoded.json) as unknown;
    // An empty YAML document is an empty object to kube (YAML `null` decodes into nothing).
    return { body: body === null ? {} : body, duplicateFields: [], duplicateKeyLines: decoded.duplicateKeys };
  } catch (err) {
    if (err instanceof BodyDecodeError) throw unrecognized(kind, err.detail, bytes);
    if (err instanceof ProtobufMessageError) throw badRequest(`${err.dataKind} in version "${err.dataVersion}" cannot be handled as a ${kind}: ${err.detail}`);
    throw err;
  }
}

/** Reads and decodes the object body of `req`; see decodeObjectBody. The Content-Type is checked before the body is read. */
export async function readObjectBody(req: IncomingMessage, target: ObjectBodyTarget, strict: boolean): Promise<DecodedObjectBody> {
  const contentType = req.headers['content-type'];
  negotiateInput(contentType, target.capabilities);
  return decodeObjectBody(await readBody(req), contentType, target, strict);
}

/** Like readObjectBody for DeleteOptions, but an empty body is `undefined` (DELETE may carry no options). */
export async function readOptionalBody(req: IncomingMessage, target: ObjectBodyTarget): Promise<unknown> {
  const bytes = await readBody(req);
  if (bytes.length === 0 || (bytes[0] !== 0x6b && bytes.toString('utf8').trim() === '')) return undefined;
  return (await decodeObjectBody(bytes, req.headers['content-type'], target, false)).body;
}
