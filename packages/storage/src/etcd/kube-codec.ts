/**
 * The codec kube-apiserver stores with: protobuf (`k8s\0` + runtime.Unknown) for kinds that
 * have a protobuf message, JSON for the rest (custom resources), or everything in JSON or
 * YAML with `--storage-media-type`. Reading does not depend on the media type: protobuf,
 * JSON and YAML values are recognized by their first bytes, as kube's storage decoder does, so
 * a cluster written by either server with any setting reads back.
 */
import jsYaml from 'js-yaml';
import type { KubeObject } from '@kapi/machinery';
import { PROTOBUF_MAGIC, decodeEnvelope, decodeEnveloped, encodeObjectGo, encodeObjectGoDecoded, goMapJson, hasProtobuf, isPlainObject } from '@kapi/machinery';
import { StorageError } from '../errors.js';
import { decodeJson, type Codec } from './codec.js';

export const STORAGE_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'] as const;
export type StorageMediaType = (typeof STORAGE_MEDIA_TYPES)[number];

const MAGIC = Buffer.from(PROTOBUF_MAGIC);
// CBOR's self-described tag (0xd9d9f7), which kube puts before every CBOR value it writes.
const CBOR_TAG = Buffer.from([0xd9, 0xd9, 0xf7]);

function withoutResourceVersion(obj: KubeObject): KubeObject {
  if (obj.metadata?.resourceVersion === undefined) return obj;
  const { resourceVersion: _ignored, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function decodeProtobuf(bytes: Buffer, key: string): KubeObject {
  try {
    const envelope = decodeEnvelope(bytes);
    const { object } = decodeEnveloped(envelope, envelope);
    if (!isPlainObject(object.metadata)) object.metadata = {};
    return object as KubeObject;
  } catch (err) {
    throw new StorageError('Corrupt', key, (err as Error).message, { cause: err });
  }
}

function decodeYaml(bytes: Buffer, key: string): KubeObject {
  let value: unknown;
  try {
    value = jsYaml.load(bytes.toString('utf8'));
  } catch (err) {
    throw new StorageError('Corrupt', key, (err as Error).message, { cause: err });
  }
  if (!isPlainObject(value) || !isPlainObject(value.metadata)) {
    throw new StorageError('Corrupt', key, 'the value is not JSON, YAML or protobuf');
  }
  return value as KubeObject;
}

/** Whether the first byte that is not white space is `{`. */
function looksLikeJson(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b;
  }
  return false;
}

/** Reads any value kube or kapi stores; StorageError `Corrupt` with the decoder's message otherwise. */
export function decodeStoredObject(bytes: Buffer, key: string): KubeObject {
  if (bytes.length >= MAGIC.length && bytes.subarray(0, MAGIC.length).equals(MAGIC)) return decodeProtobuf(bytes, key);
  if (looksLikeJson(bytes)) return decodeJson(bytes, key);
  if (bytes.length >= CBOR_TAG.length && bytes.subarray(0, CBOR_TAG.length).equals(CBOR_TAG)) {
    throw new StorageError(
      'Corrupt',
      key,
      `the value is CBOR (kube-apiserver writes it only behind the CBORServingAndStorage feature gate), which kapi does not read`,
    );
  }
  return decodeYaml(bytes, key);
}

/**
 * Kinds kube-apiserver writes as JSON whatever `--storage-media-type` says (its API extensions
 * and aggregator servers store with their own JSON codecs), by `apiVersion/kind`: the form kapi
 * stores, and the form kube wrote (which the storage may hand back to be encoded again, e.g. to
 * check an update changes nothing). Each gives the object to write, in the version kube writes
 * and Go's field order; `goOrdered` puts an object of a kind with a protobuf message in that order.
 */
export type JsonStoredKinds = ReadonlyMap<string, (obj: KubeObject, goOrdered: (obj: KubeObject) => KubeObject) => KubeObject>;

/**
 * `obj` as Go's json.Marshal writes its typed struct: `kind` and `apiVersion` first, then
 * every field in the struct's order with Go's omitempty rules, which for a kind with a
 * protobuf message is what decoding its own protobuf encoding gives.
 */
function goOrdered(obj: KubeObject): KubeObject {
  const envelope = decodeEnvelope(encodeObjectGo(withoutResourceVersion(obj)));
  const { object } = decodeEnveloped(envelope, envelope);
  const { apiVersion, kind, ...fields } = object;
  return { kind, apiVersion, ...fields } as KubeObject;
}

/**
 * kube's storage codec for `mediaType` (default protobuf): protobuf writes every kind with a
 * protobuf message and JSON for the others, as kube-apiserver does for custom resources;
 * `jsonKinds` are written as kube writes them, in JSON with a trailing newline.
 */
export function kubeStorageCodec(mediaType: StorageMediaType = 'application/vnd.kubernetes.protobuf', jsonKinds: JsonStoredKinds = new Map()): Codec {
  const kindKey = (obj: KubeObject) => `${String(obj.apiVersion ?? '')}/${String(obj.kind ?? '')}`;
  // Outside the kinds kube keeps in JSON: in protobuf when that is the media type and the kind has one.
  const protobufKind = (obj: KubeObject) => mediaType === 'application/vnd.kubernetes.protobuf' && hasProtobuf(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
  const encode = (obj: KubeObject): Buffer => {
    const asJson = jsonKinds.get(kindKey(obj));
    if (asJson !== undefined) return Buffer.from(`${JSON.stringify(asJson(withoutResourceVersion(obj), goOrdered))}\n`);
    if (protobufKind(obj)) return encodeObjectGo(withoutResourceVersion(obj));
    if (mediaType === 'application/yaml') return Buffer.from(jsYaml.dump(withoutResourceVersion(obj), { noRefs: true, lineWidth: -1 }));
    // JSON as kube's encoders write it: a built-in kind in its Go struct's order, anything
    // else (a custom resource, unstructured in kube) as a Go map, keys sorted.
    if (hasProtobuf(String(obj.apiVersion ?? ''), String(obj.kind ?? ''))) return Buffer.from(`${JSON.stringify(goOrdered(obj))}\n`);
    return Buffer.from(`${goMapJson(withoutResourceVersion(obj))}\n`);
  };
  return {
    encode,
    // Protobuf values: the object decoding them gives comes from the message they were encoded from.
    encodeDecoded(obj) {
      if (jsonKinds.has(kindKey(obj)) || !protobufKind(obj)) return { data: encode(obj), decoded: undefined };
      const { bytes, decoded } = encodeObjectGoDecoded(withoutResourceVersion(obj));
      if (decoded !== undefined && !isPlainObject(decoded['metadata'])) decoded['metadata'] = {};
      return { data: bytes, decoded: decoded as KubeObject | undefined };
    },
    decode: decodeStoredObject,
  };
}
