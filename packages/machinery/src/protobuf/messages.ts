/**
 * The protobuf message classes of every catalogue message, from the committed protobufjs
 * descriptor (@kapi/catalog, `make proto`). Each message's encoder and decoder are compiled
 * by protobufjs on first use and then shared.
 */
import protobuf from 'protobufjs/light.js';
import { protobufDescriptor } from '@kapi/catalog';

/** What every message class offers. */
export interface MessageType {
  encode(message: object, writer?: ProtobufWriter): ProtobufWriter;
  decode(reader: Uint8Array | protobuf.Reader): object;
  /** Field numbers by field name. */
  readonly fields: Readonly<Record<string, { readonly id: number }>>;
}

/** The part of protobufjs' Writer the codecs use. */
export interface ProtobufWriter {
  uint32(value: number): ProtobufWriter;
  bytes(value: Uint8Array): ProtobufWriter;
  finish(): Uint8Array;
}

let root: protobuf.Root | undefined;
const types = new Map<string, MessageType>();

/**
 * The catalogue's root, its types' references left to resolve on first use: Root.fromJSON
 * would resolve every field of all ~530 messages up front, at the first decode, most of them
 * for kinds this server never stores. A message resolves its own fields when protobufjs
 * compiles its codec (and wire-types.ts resolves the ones it checks).
 */
function catalogueRoot(): protobuf.Root {
  if (root === undefined) {
    root = new protobuf.Root();
    root.addJSON((protobufDescriptor() as protobuf.INamespace).nested!);
  }
  return root;
}

/** The message class of a full protobuf name (`k8s.io.api.core.v1.Pod`). Throws for a name the catalogue lacks. */
export function messageType(name: string): MessageType {
  let type = types.get(name);
  if (type === undefined) {
    type = catalogueRoot().lookupType(name) as unknown as MessageType;
    types.set(name, type);
  }
  return type;
}

/**
 * Adds a message the catalogue's descriptor lacks (a kind kube stores but does not serve),
 * given as a protobufjs JSON descriptor of its fields, to the same root (so it may refer to
 * catalogue messages), and returns its class. Idempotent per name.
 */
export function definedMessageType(pkg: string, name: string, fields: Record<string, { type: string; id: number }>): MessageType {
  const full = `${pkg}.${name}`;
  const r = catalogueRoot();
  if (r.lookup(full) === null) r.define(pkg).add(protobuf.Type.fromJSON(name, { fields }));
  return messageType(full);
}

/** Whether the catalogue has a message of that name. */
export function hasMessageType(name: string): boolean {
  try {
    messageType(name);
    return true;
  } catch {
    return false;
  }
}

const RUNTIME = 'k8s.io.apimachinery.pkg.runtime.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';

/** The envelope's messages: runtime.TypeMeta and runtime.Unknown. */
export const envelopeMessages = {
  typeMeta: (): MessageType => messageType(`${RUNTIME}TypeMeta`),
  unknown: (): MessageType => messageType(`${RUNTIME}Unknown`),
};

/** meta/v1 WatchEvent (type + RawExtension holding the enveloped object). */
export const watchEventMessage = (): MessageType => messageType(`${META}WatchEvent`);
