/**
 * The generated protobuf message classes (`make proto`), by Kubernetes package. The generated
 * module sits in src/protobuf/generated/ and is plain JavaScript with declarations beside it;
 * it is not compiled, so both src/ and dist/ reach it through the same relative path.
 */
import { k8s } from '../../src/protobuf/generated/k8s.js';

export const runtimeMessages = k8s.io.apimachinery.pkg.runtime;
export const metaMessages = k8s.io.apimachinery.pkg.apis.meta.v1;
export const coreMessages = k8s.io.api.core.v1;
export const coordinationMessages = k8s.io.api.coordination.v1;
export const coordinationV1beta1Messages = k8s.io.api.coordination.v1beta1;
export const eventsV1Messages = k8s.io.api.events.v1;
export const eventsV1beta1Messages = k8s.io.api.events.v1beta1;
export const intstrMessages = k8s.io.apimachinery.pkg.util.intstr;
export const resourceMessages = k8s.io.apimachinery.pkg.api.resource;

/** What every generated message class offers (the static module has no other helpers). */
export interface MessageType {
  encode(message: object, writer?: ProtobufWriter): ProtobufWriter;
  decode(reader: Uint8Array): object;
}

/** The part of protobufjs' Writer the codecs use. */
export interface ProtobufWriter {
  uint32(value: number): ProtobufWriter;
  bytes(value: Uint8Array): ProtobufWriter;
  finish(): Uint8Array;
}
