/**
 * Headers: Content-Type (usually the body's own, otherwise another or a malformed one),
 * Accept (JSON, YAML, protobuf, Table and PartialObjectMetadata conversions, streams,
 * q-values, junk), Content-Encoding and Accept-Encoding, and a few others.
 */
import fc from 'fast-check';

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=latin1',
  'APPLICATION/JSON',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'application/cbor',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  'application/',
  'application/json; stream=watch',
  ';;;',
  'application/json; charset="',
  'x'.repeat(2000),
);

const accepts = fc.constantFrom(
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.kubernetes.protobuf, application/json',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json',
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  'application/json;as=Table;v=v2;g=meta.k8s.io',
  'application/json;as=Bogus;v=v1;g=meta.k8s.io',
  'application/json;stream=watch',
  'application/cbor',
  '*/*',
  'application/*',
  'text/html',
  'application/json;q=0, application/yaml;q=0.5',
  'application/json;q=abc',
  ';',
  '',
);

const encodings = fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'bogus', '');

export interface HeaderPlan {
  /** Replace the body's Content-Type with another (or drop it). */
  readonly contentType: string | null | undefined;
  readonly accept: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly acceptEncoding: string | undefined;
  readonly extra: readonly (readonly [string, string])[];
}

/** `a` in `percent` % of cases, undefined otherwise. */
const sometimes = <T>(a: fc.Arbitrary<T>, percent: number) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 100 - percent }, { arbitrary: a, weight: percent });

export const headerPlan: fc.Arbitrary<HeaderPlan> = fc.record({
  contentType: sometimes(fc.oneof(contentTypes, fc.constant(null)), 10),
  accept: sometimes(accepts, 30),
  contentEncoding: sometimes(encodings, 5),
  acceptEncoding: sometimes(encodings, 20),
  extra: fc.oneof({ arbitrary: fc.constant([]), weight: 3 }, { arbitrary: fc.array(
    fc.constantFrom<[string, string]>(
      ['user-agent', 'fuzzer/1.0 (x) é'],
      ['user-agent', ''],
      ['x-forwarded-for', '1.2.3.4, ::1'],
      ['impersonate-user', 'system:admin'],
      ['expect', '100-continue'],
      ['if-none-match', '"bogus"'],
      ['if-match', '*'],
      ['x-fuzz', 'x'.repeat(8000)],
      ['authorization', 'Bearer bogus'],
      ['connection', 'close'],
      ['transfer-encoding', 'chunked'],
      ['te', 'trailers'],
      ['range', 'bytes=0-1'],
      ['accept-language', 'xx'],
      ['audit-id', '../../etc'],
      ['x-remote-user', 'admin'],
    ),
    { minLength: 1, maxLength: 2 },
  ), weight: 1 }),
});

/** The headers of a request with a body of `bodyType` (undefined: no body). */
export function buildHeaders(plan: HeaderPlan, bodyType: string | undefined, bodyLength: number | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const contentType = plan.contentType === undefined ? bodyType : plan.contentType;
  if (contentType !== null && contentType !== undefined) headers['content-type'] = contentType;
  headers.accept = plan.accept ?? 'application/json';
  if (plan.contentEncoding !== undefined) headers['content-encoding'] = plan.contentEncoding;
  if (plan.acceptEncoding !== undefined) headers['accept-encoding'] = plan.acceptEncoding;
  for (const [k, v] of plan.extra) headers[k] = v;
  if (headers['transfer-encoding'] === undefined && bodyLength !== undefined) headers['content-length'] = String(bodyLength);
  return headers;
}
