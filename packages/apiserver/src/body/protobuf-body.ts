/** Protobuf bodies: kube's `k8s\0` envelope around a runtime.Unknown. */
import type { Envelope } from '@kapi/machinery';
import { ProtobufDecodeError, decodeEnvelope, decodeEnveloped } from '@kapi/machinery';
import { BodyDecodeError } from './decode-error.js';

/**
 * A malformed protobuf message inside a well-formed envelope: kube names the kind the data
 * claims (`<Kind> in version "<v>" cannot be handled as a <Kind>: <error>`).
 */
export class ProtobufMessageError extends Error {
  constructor(
    readonly dataKind: string,
    readonly dataVersion: string,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ProtobufMessageError';
  }
}

/**
 * Decodes a protobuf body as `kind` of `apiVersion` (the endpoint's type). Throws
 * BodyDecodeError for a bad envelope (missing or wrong `k8s\0` magic, no body) and
 * ProtobufMessageError for malformed message bytes.
 */
export function decodeProtobuf(bytes: Buffer, apiVersion: string, kind: string): Record<string, unknown> {
  let envelope: Envelope;
  try {
    envelope = decodeEnvelope(bytes);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw new BodyDecodeError(err.message);
    throw err;
  }
  try {
    return decodeEnveloped(envelope, { apiVersion, kind }).object;
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    const dataKind = envelope.kind !== '' ? envelope.kind : kind;
    const dataVersion = (envelope.apiVersion !== '' ? envelope.apiVersion : apiVersion).split('/').pop() ?? '';
    throw new ProtobufMessageError(dataKind, dataVersion, err.message);
  }
}
