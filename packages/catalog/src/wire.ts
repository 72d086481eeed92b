/**
 * How each protobuf message maps to kube's JSON, from the Go types: per field its JSON
 * name, the protobuf field (when named differently, `-` when JSON-only), what it holds,
 * and Go's presence rule (omitempty, always written, pointer).
 */
import { once, readGenerated } from './generated-file.js';

export type WireKind =
  | 'string'
  | 'int32'
  | 'int64'
  | 'bool'
  | 'double'
  | 'bytes'
  | 'time'
  | 'microTime'
  | 'duration'
  | 'quantity'
  | 'intOrString'
  | 'fieldsV1'
  | 'rawExtension'
  | 'json'
  | 'jsonSchemaPropsOrArray'
  | 'jsonSchemaPropsOrBool'
  | 'jsonSchemaPropsOrStringArray'
  | 'message';

export interface WireField {
  /** The JSON name; absent for inline members (their fields are the parent's in JSON). */
  readonly json?: string;
  /** The protobuf field name when it differs from `json`; `-` when the field is JSON-only. */
  readonly proto?: string;
  readonly kind: WireKind;
  /** The protobuf message of a message (and well-known) kind. */
  readonly message?: string;
  /**
   * Go's rule for the field in JSON: `omitempty` (dropped when zero or empty), `required`
   * (always written; a nil list or map as `null`), `pointer` (kept when present). A struct is
   * never dropped unless it is a pointer. Absent on the items of a named slice (`listOf`).
   */
  readonly presence?: 'omitempty' | 'required' | 'pointer';
  readonly container?: 'list' | 'map';
  readonly inline?: boolean;
}

export interface WireMessage {
  readonly fields?: readonly WireField[];
  /** A named slice wrapped as a message: its JSON form is the array of this `items` field. */
  readonly listOf?: WireField;
}

const wire = once(() => readGenerated<{ messages: Record<string, WireMessage> }>('wire.json').messages);

/** The wire facts of a message by full protobuf name, or undefined. */
export function wireMessage(name: string): WireMessage | undefined {
  return Object.prototype.hasOwnProperty.call(wire(), name) ? wire()[name] : undefined;
}
