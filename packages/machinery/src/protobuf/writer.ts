/** protobufjs' Writer (its minimal build), for composing messages from already-encoded parts. */
import protobuf from 'protobufjs/minimal.js';
import type { ProtobufWriter } from './messages.js';

export function protobufjsWriter(): ProtobufWriter {
  return protobuf.Writer.create() as unknown as ProtobufWriter;
}
