/**
 * The kinds kapi serves as protobuf, keyed by apiVersion and kind: every catalogue kind
 * (@kapi/catalog: the served kinds, their lists, subresource kinds) and the meta kinds every
 * group version answers with, each with its message codec and its list message.
 */
import { catalogKinds } from '@kapi/catalog';
import type { MessageCodec } from './field-codec.js';
import { messageType, type MessageType } from './messages.js';
import { rangeAllocationCodec } from './stored-kinds.js';
import { messageCodecOf } from './wire-codecs.js';

/** A kind served as protobuf: its object codec and the message of its list. */
export interface ProtobufKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly codec: MessageCodec;
  /** The `<Kind>List` message; undefined for kinds without lists. */
  readonly listType: MessageType | undefined;
  /** The list message's field numbers (meta.k8s.io/v1beta1 PartialObjectMetadataList has items first). */
  readonly listFields: { readonly metadata: number; readonly items: number } | undefined;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.';

/** Kinds outside the catalogue's groups: [apiVersion, kind, message, list message]. */
const META_KINDS: readonly (readonly [string, string, string, string | undefined])[] = [
  // kube answers every group version's Status as meta/v1's, under apiVersion v1.
  ['v1', 'Status', `${META}v1.Status`, undefined],
  ['meta.k8s.io/v1', 'DeleteOptions', `${META}v1.DeleteOptions`, undefined],
  ['meta.k8s.io/v1', 'PartialObjectMetadata', `${META}v1.PartialObjectMetadata`, `${META}v1.PartialObjectMetadataList`],
  ['meta.k8s.io/v1beta1', 'PartialObjectMetadata', `${META}v1.PartialObjectMetadata`, `${META}v1beta1.PartialObjectMetadataList`],
];

interface KindEntry {
  readonly apiVersion: string;
  readonly kind: string;
  readonly message: string;
  readonly listMessage: string | undefined;
}

function entries(): Map<string, KindEntry> {
  const byKey = new Map<string, KindEntry>();
  const messages = new Map<string, string>();
  for (const k of catalogKinds()) messages.set(`${k.group === '' ? k.version : `${k.group}/${k.version}`}/${k.kind}`, k.protobuf);
  for (const [key, message] of messages) {
    if (key.endsWith('List') && messages.has(key.slice(0, -'List'.length))) continue;
    const slash = key.lastIndexOf('/');
    byKey.set(key, { apiVersion: key.slice(0, slash), kind: key.slice(slash + 1), message, listMessage: messages.get(`${key}List`) });
  }
  for (const [apiVersion, kind, message, listMessage] of META_KINDS) byKey.set(`${apiVersion}/${kind}`, { apiVersion, kind, message, listMessage });
  byKey.set('v1/RangeAllocation', RANGE_ALLOCATION);
  return byKey;
}

/**
 * core/v1 RangeAllocation: stored by kube-apiserver (the service cluster IP and node port
 * bitmaps) but not served, so not in the catalogue; its message is declared in stored-kinds.ts.
 */
const RANGE_ALLOCATION: KindEntry = { apiVersion: 'v1', kind: 'RangeAllocation', message: 'k8s.io.api.core.v1.RangeAllocation', listMessage: undefined };

function rangeAllocationKind(): ProtobufKind {
  let kind = built.get('v1/RangeAllocation');
  if (kind === undefined) {
    kind = { apiVersion: 'v1', kind: 'RangeAllocation', codec: rangeAllocationCodec(), listType: undefined, listFields: undefined };
    built.set('v1/RangeAllocation', kind);
  }
  return kind;
}

let byKey: Map<string, KindEntry> | undefined;
const built = new Map<string, ProtobufKind>();

function build(entry: KindEntry): ProtobufKind {
  const key = `${entry.apiVersion}/${entry.kind}`;
  if (key === 'v1/RangeAllocation') return rangeAllocationKind();
  let kind = built.get(key);
  if (kind === undefined) {
    const listType = entry.listMessage === undefined ? undefined : messageType(entry.listMessage);
    kind = {
      apiVersion: entry.apiVersion,
      kind: entry.kind,
      codec: messageCodecOf(entry.message),
      listType,
      listFields: listType === undefined ? undefined : { metadata: listType.fields['metadata']!.id, items: listType.fields['items']!.id },
    };
    built.set(key, kind);
  }
  return kind;
}

function entry(key: string): KindEntry | undefined {
  byKey ??= entries();
  return byKey.get(key);
}

/** The protobuf kind for an object's apiVersion and kind, if kapi has a message for it. */
export function protobufKind(apiVersion: string, kind: string): ProtobufKind | undefined {
  const found = entry(`${apiVersion}/${kind}`);
  return found === undefined ? undefined : build(found);
}

/** The full name of the protobuf message of `<apiVersion>/<kind>`, if kapi has one. */
export function protobufMessageOf(apiVersion: string, kind: string): string | undefined {
  return entry(`${apiVersion}/${kind}`)?.message;
}

/** The protobuf kind whose list is `<apiVersion>/<listKind>`. */
export function protobufKindOfList(apiVersion: string, listKind: string): ProtobufKind | undefined {
  if (!listKind.endsWith('List')) return undefined;
  const found = entry(`${apiVersion}/${listKind.slice(0, -'List'.length)}`);
  return found === undefined || found.listMessage === undefined ? undefined : build(found);
}

/** Every kind served as protobuf (builds every codec: for tests). */
export function protobufKinds(): readonly ProtobufKind[] {
  byKey ??= entries();
  return [...byKey.values()].map(build);
}
