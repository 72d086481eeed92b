/** Protobuf: kube's envelope, the JSON ↔ message mapping, lists and watch frames. */
export type { Envelope } from './envelope.js';
export { PROTOBUF_MAGIC, ProtobufDecodeError, encodeEnvelope, decodeEnvelope } from './envelope.js';
export type { DecodedObject, ListFraming } from './object-codec.js';
export {
  encodeObjectRaw,
  encodeObjectGo,
  encodeObjectGoDecoded,
  envelopeObject,
  encodeList,
  frameList,
  encodeWatchFrame,
  decodeObject,
  decodeEnveloped,
  decodeList,
  decodeWatchFrames,
  hasProtobuf,
  hasProtobufList,
} from './object-codec.js';
export type { ProtobufKind } from './kind-codecs.js';
export { protobufKind, protobufKinds, protobufMessageOf } from './kind-codecs.js';
export { goTypedView, omitEmptyGoCollections } from './go-typed-view.js';
export { withResourceVersion, noteStoredEncoding, takeStoredAnswer, dropStoredAnswer, markNotReencodable } from './stored-answer.js';
export type { MessageCodec, FieldCodec } from './field-codec.js';
