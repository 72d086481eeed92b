/**
 * Messages of kinds kube-apiserver stores but does not serve, which the catalogue (built from
 * the served API) therefore lacks. Today one: core/v1 RangeAllocation, the bitmap of service
 * cluster IPs (`/registry/ranges/serviceips`) and node ports (`.../servicenodeports`):
 *
 *     message RangeAllocation { ObjectMeta metadata = 1; string range = 2; bytes data = 3; }
 *
 * In Go `metadata` is an ObjectMeta value and `range` a string, both always on the wire;
 * `data` ([]byte) only when set; in JSON `range` and `data` have no omitempty.
 */
import * as f from './field-codec.js';
import type { FieldCodec, MessageCodec } from './field-codec.js';
import { definedMessageType } from './messages.js';
import { messageCodecOf } from './wire-codecs.js';

const OBJECT_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';

let rangeAllocation: MessageCodec | undefined;

export function rangeAllocationCodec(): MessageCodec {
  if (rangeAllocation !== undefined) return rangeAllocation;
  const type = definedMessageType('k8s.io.api.core.v1', 'RangeAllocation', {
    metadata: { type: OBJECT_META, id: 1 },
    range: { type: 'string', id: 2 },
    data: { type: 'bytes', id: 3 },
  });
  const metadata: FieldCodec = { ...f.message(messageCodecOf(OBJECT_META)), goZero: () => f.toProtoMessage(messageCodecOf(OBJECT_META), {}) };
  const range: FieldCodec = { ...f.requiredString, goZero: () => '' };
  rangeAllocation = { type, fields: { metadata, range, data: f.bytes(false) } };
  return rangeAllocation;
}
