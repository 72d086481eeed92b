/**
 * Static codecs for etcd's KV service messages (etcdserverpb, api/etcdserverpb/rpc.proto and
 * api/mvccpb/kv.proto): RangeRequest/Response, PutRequest/Response, DeleteRangeRequest/Response,
 * TxnRequest/Response. Requests and responses have the shapes the etcd3 npm client gives them
 * (its proto loader's options: field names as in the .proto, int64 as decimal strings, enums
 * by name, defaults filled in, a oneof's name set to its present member), so that code written
 * against that client reads them unchanged.
 *
 * Encoding follows the etcd3 client's encoder (protobufjs) where sizes are visible: proto3
 * scalars at their default are left out, except a Compare's `result` (written even when EQUAL)
 * and a oneof member (written whenever set), so that a request's size is the one
 * request-size.ts computes.
 */
import type {
  ICompare,
  IDeleteRangeRequest,
  IDeleteRangeResponse,
  IKeyValue,
  IPutRequest,
  IPutResponse,
  IRangeRequest,
  IRangeResponse,
  IRequestOp,
  IResponseHeader,
  IResponseOp,
  ITxnRequest,
  ITxnResponse,
} from 'etcd3';
import { LENGTH_DELIMITED, ProtoReader, ProtoWriter, VARINT, bytesFieldSize, exactInt64, varint64Size, varintFieldSize, varintSize } from './protobuf.js';

type Int64 = string | number | undefined;
type Bytes = Buffer | string | undefined;

const sortOrders: Record<string, number> = { None: 0, Ascend: 1, Descend: 2 };
const sortTargets: Record<string, number> = { Key: 0, Version: 1, Create: 2, Mod: 3, Value: 4 };
const compareResults: Record<string, number> = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 };
const compareTargets: Record<string, number> = { Version: 0, Create: 1, Mod: 2, Value: 3, Lease: 4 };

function enumValue(value: string | number | undefined, names: Record<string, number>): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const found = names[value];
  if (found === undefined) throw new TypeError(`unknown enum value ${value}`);
  return found;
}

function int64(value: Int64): number {
  return value === undefined ? 0 : typeof value === 'number' ? value : Number(value);
}

function bytes(value: Bytes): Buffer | undefined {
  return value === undefined ? undefined : typeof value === 'string' ? Buffer.from(value) : value;
}

// ---- sizes -----------------------------------------------------------------------------

function optionalBytesSize(value: Buffer | undefined): number {
  return value === undefined || value.length === 0 ? 0 : bytesFieldSize(value.length);
}

function optionalVarintSize(value: number): number {
  return value === 0 ? 0 : varintFieldSize(value);
}

function optionalInt64Size(value: number | bigint): number {
  return value === 0 || value === 0n ? 0 : 1 + varint64Size(value);
}

function boolSize(value: boolean | undefined): number {
  return value === true ? 2 : 0;
}

/** A message of `length` bytes embedded in a field with a one- or two-byte tag. */
function embeddedSize(length: number, tagBytes = 1): number {
  return tagBytes + varintSize(length) + length;
}

function rangeSize(req: IRangeRequest): number {
  return (
    optionalBytesSize(bytes(req.key)) +
    optionalBytesSize(bytes(req.range_end)) +
    optionalVarintSize(int64(req.limit)) +
    optionalVarintSize(int64(req.revision)) +
    optionalVarintSize(enumValue(req.sort_order, sortOrders)) +
    optionalVarintSize(enumValue(req.sort_target, sortTargets)) +
    boolSize(req.serializable) +
    boolSize(req.keys_only) +
    boolSize(req.count_only) +
    optionalVarintSize(int64(req.min_mod_revision)) +
    optionalVarintSize(int64(req.max_mod_revision)) +
    optionalVarintSize(int64(req.min_create_revision)) +
    optionalVarintSize(int64(req.max_create_revision))
  );
}

function putSize(req: IPutRequest): number {
  return (
    optionalBytesSize(bytes(req.key)) +
    optionalBytesSize(bytes(req.value)) +
    optionalInt64Size(exactInt64(req.lease)) +
    boolSize(req.prev_kv) +
    boolSize(req.ignore_value) +
    boolSize(req.ignore_lease)
  );
}

function deleteRangeSize(req: IDeleteRangeRequest): number {
  return optionalBytesSize(bytes(req.key)) + optionalBytesSize(bytes(req.range_end)) + boolSize(req.prev_kv);
}

function compareSize(c: ICompare): number {
  let size = 0;
  if (c.result !== undefined) size += varintFieldSize(enumValue(c.result, compareResults));
  size += optionalVarintSize(enumValue(c.target, compareTargets));
  size += optionalBytesSize(bytes(c.key));
  // target_union: a oneof, written whenever set
  if (c.version !== undefined) size += varintFieldSize(int64(c.version));
  if (c.create_revision !== undefined) size += varintFieldSize(int64(c.create_revision));
  if (c.mod_revision !== undefined) size += varintFieldSize(int64(c.mod_revision));
  if (c.value !== undefined) size += bytesFieldSize(bytes(c.value)!.length);
  if (c.lease !== undefined) size += 1 + varint64Size(exactInt64(c.lease));
  const rangeEnd = bytes(c.range_end);
  if (rangeEnd !== undefined && rangeEnd.length > 0) size += 2 + varintSize(rangeEnd.length) + rangeEnd.length;
  return size;
}

function requestOpSize(op: IRequestOp): number {
  if (op.request_range !== undefined) return embeddedSize(rangeSize(op.request_range));
  if (op.request_put !== undefined) return embeddedSize(putSize(op.request_put));
  if (op.request_delete_range !== undefined) return embeddedSize(deleteRangeSize(op.request_delete_range));
  if (op.request_txn !== undefined) return embeddedSize(txnSize(op.request_txn));
  return 0;
}

function txnSize(req: ITxnRequest): number {
  let size = 0;
  for (const c of req.compare ?? []) size += embeddedSize(compareSize(c));
  for (const op of req.success ?? []) size += embeddedSize(requestOpSize(op));
  for (const op of req.failure ?? []) size += embeddedSize(requestOpSize(op));
  return size;
}

// ---- writers ---------------------------------------------------------------------------

function writeOptionalBytes(w: ProtoWriter, field: number, value: Buffer | undefined): void {
  if (value !== undefined && value.length > 0) w.bytesField(field, value);
}

function writeOptionalVarint(w: ProtoWriter, field: number, value: number): void {
  if (value !== 0) w.varintField(field, value);
}

/** A lease ID (exact past 2^53), left out when 0. */
function writeOptionalInt64(w: ProtoWriter, field: number, value: number | bigint): void {
  if (value === 0 || value === 0n) return;
  w.tag(field, VARINT);
  w.varint64(value);
}

function writeBool(w: ProtoWriter, field: number, value: boolean | undefined): void {
  if (value === true) w.varintField(field, 1);
}

function writeRange(w: ProtoWriter, req: IRangeRequest): void {
  writeOptionalBytes(w, 1, bytes(req.key));
  writeOptionalBytes(w, 2, bytes(req.range_end));
  writeOptionalVarint(w, 3, int64(req.limit));
  writeOptionalVarint(w, 4, int64(req.revision));
  writeOptionalVarint(w, 5, enumValue(req.sort_order, sortOrders));
  writeOptionalVarint(w, 6, enumValue(req.sort_target, sortTargets));
  writeBool(w, 7, req.serializable);
  writeBool(w, 8, req.keys_only);
  writeBool(w, 9, req.count_only);
  writeOptionalVarint(w, 10, int64(req.min_mod_revision));
  writeOptionalVarint(w, 11, int64(req.max_mod_revision));
  writeOptionalVarint(w, 12, int64(req.min_create_revision));
  writeOptionalVarint(w, 13, int64(req.max_create_revision));
}

function writePut(w: ProtoWriter, req: IPutRequest): void {
  writeOptionalBytes(w, 1, bytes(req.key));
  writeOptionalBytes(w, 2, bytes(req.value));
  writeOptionalInt64(w, 3, exactInt64(req.lease));
  writeBool(w, 4, req.prev_kv);
  writeBool(w, 5, req.ignore_value);
  writeBool(w, 6, req.ignore_lease);
}

function writeDeleteRange(w: ProtoWriter, req: IDeleteRangeRequest): void {
  writeOptionalBytes(w, 1, bytes(req.key));
  writeOptionalBytes(w, 2, bytes(req.range_end));
  writeBool(w, 3, req.prev_kv);
}

function writeCompare(w: ProtoWriter, c: ICompare): void {
  if (c.result !== undefined) w.varintField(1, enumValue(c.result, compareResults));
  writeOptionalVarint(w, 2, enumValue(c.target, compareTargets));
  writeOptionalBytes(w, 3, bytes(c.key));
  if (c.version !== undefined) w.varintField(4, int64(c.version));
  if (c.create_revision !== undefined) w.varintField(5, int64(c.create_revision));
  if (c.mod_revision !== undefined) w.varintField(6, int64(c.mod_revision));
  if (c.value !== undefined) w.bytesField(7, bytes(c.value)!);
  if (c.lease !== undefined) {
    w.tag(8, VARINT);
    w.varint64(exactInt64(c.lease));
  }
  writeOptionalBytes(w, 64, bytes(c.range_end));
}

function writeRequestOp(w: ProtoWriter, op: IRequestOp): void {
  if (op.request_range !== undefined) {
    w.messageHeader(1, rangeSize(op.request_range));
    writeRange(w, op.request_range);
  } else if (op.request_put !== undefined) {
    w.messageHeader(2, putSize(op.request_put));
    writePut(w, op.request_put);
  } else if (op.request_delete_range !== undefined) {
    w.messageHeader(3, deleteRangeSize(op.request_delete_range));
    writeDeleteRange(w, op.request_delete_range);
  } else if (op.request_txn !== undefined) {
    w.messageHeader(4, txnSize(op.request_txn));
    writeTxn(w, op.request_txn);
  }
}

function writeTxn(w: ProtoWriter, req: ITxnRequest): void {
  for (const c of req.compare ?? []) {
    w.messageHeader(1, compareSize(c));
    writeCompare(w, c);
  }
  for (const op of req.success ?? []) {
    w.messageHeader(2, requestOpSize(op));
    writeRequestOp(w, op);
  }
  for (const op of req.failure ?? []) {
    w.messageHeader(3, requestOpSize(op));
    writeRequestOp(w, op);
  }
}

/**
 * An encoder of one request message: `encode(req, prefix)` returns a buffer of `prefix` free
 * bytes (for the gRPC frame header) followed by the message.
 */
export interface MessageEncoder<Req> {
  (req: Req, prefix: number): Buffer;
}

export function encoder<Req>(size: (req: Req) => number, write: (w: ProtoWriter, req: Req) => void): MessageEncoder<Req> {
  return (req, prefix) => {
    const length = size(req);
    const buf = Buffer.allocUnsafe(prefix + length);
    const w = new ProtoWriter(buf, prefix);
    write(w, req);
    if (w.pos !== buf.length) throw new Error(`protobuf size mismatch: wrote ${w.pos - prefix} of ${length} bytes`);
    return buf;
  };
}

export const encodeRangeRequest: MessageEncoder<IRangeRequest> = encoder(rangeSize, writeRange);
export const encodePutRequest: MessageEncoder<IPutRequest> = encoder(putSize, writePut);
export const encodeDeleteRangeRequest: MessageEncoder<IDeleteRangeRequest> = encoder(deleteRangeSize, writeDeleteRange);
export const encodeTxnRequest: MessageEncoder<ITxnRequest> = encoder(txnSize, writeTxn);

// ---- readers ---------------------------------------------------------------------------

const EMPTY = Buffer.alloc(0);

/** Reads the fields of an embedded message at the reader's position; the reader is left after it. */
export function embedded<T>(r: ProtoReader, read: (r: ProtoReader) => T): T {
  const length = r.length();
  const end = r.pos + length;
  const inner = new ProtoReader(r.buf, r.pos, end);
  const value = read(inner);
  r.pos = end;
  return value;
}

export function readHeader(r: ProtoReader): IResponseHeader {
  const header: IResponseHeader = { cluster_id: '0', member_id: '0', revision: '0', raft_term: '0' };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | VARINT:
        header.cluster_id = r.uint64String();
        break;
      case (2 << 3) | VARINT:
        header.member_id = r.uint64String();
        break;
      case (3 << 3) | VARINT:
        header.revision = r.int64String();
        break;
      case (4 << 3) | VARINT:
        header.raft_term = r.uint64String();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return header;
}

export const emptyHeader = (): IResponseHeader => ({ cluster_id: '0', member_id: '0', revision: '0', raft_term: '0' });

export function readKeyValue(r: ProtoReader): IKeyValue {
  const kv: IKeyValue = { key: EMPTY, create_revision: '0', mod_revision: '0', version: '0', value: EMPTY, lease: '0' };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        kv.key = r.bytes();
        break;
      case (2 << 3) | VARINT:
        kv.create_revision = r.int64String();
        break;
      case (3 << 3) | VARINT:
        kv.mod_revision = r.int64String();
        break;
      case (4 << 3) | VARINT:
        kv.version = r.int64String();
        break;
      case (5 << 3) | LENGTH_DELIMITED:
        kv.value = r.bytes();
        break;
      case (6 << 3) | VARINT:
        kv.lease = r.int64String();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return kv;
}

function readRangeResponse(r: ProtoReader): IRangeResponse {
  const res: IRangeResponse = { header: null as unknown as IResponseHeader, kvs: [], more: false, count: '0' };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | LENGTH_DELIMITED:
        res.kvs.push(embedded(r, readKeyValue));
        break;
      case (3 << 3) | VARINT:
        res.more = r.varint() !== 0;
        break;
      case (4 << 3) | VARINT:
        res.count = r.int64String();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  return res;
}

function readPutResponse(r: ProtoReader): IPutResponse {
  const res: IPutResponse = { header: null as unknown as IResponseHeader, prev_kv: null as unknown as IKeyValue };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | LENGTH_DELIMITED:
        res.prev_kv = embedded(r, readKeyValue);
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  return res;
}

function readDeleteRangeResponse(r: ProtoReader): IDeleteRangeResponse {
  const res: IDeleteRangeResponse = { header: null as unknown as IResponseHeader, deleted: '0', prev_kvs: [] };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | VARINT:
        res.deleted = r.int64String();
        break;
      case (3 << 3) | LENGTH_DELIMITED:
        res.prev_kvs.push(embedded(r, readKeyValue));
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  return res;
}

function readResponseOp(r: ProtoReader): IResponseOp {
  // Only the member present is set, with `response` naming it (the etcd3 client's shape).
  const op = {} as IResponseOp & { response?: string };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        op.response_range = embedded(r, readRangeResponse);
        op.response = 'response_range';
        break;
      case (2 << 3) | LENGTH_DELIMITED:
        op.response_put = embedded(r, readPutResponse);
        op.response = 'response_put';
        break;
      case (3 << 3) | LENGTH_DELIMITED:
        op.response_delete_range = embedded(r, readDeleteRangeResponse);
        op.response = 'response_delete_range';
        break;
      case (4 << 3) | LENGTH_DELIMITED:
        op.response_txn = embedded(r, readTxnResponse);
        op.response = 'response_txn';
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return op;
}

function readTxnResponse(r: ProtoReader): ITxnResponse {
  const res: ITxnResponse = { header: null as unknown as IResponseHeader, succeeded: false, responses: [] };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | VARINT:
        res.succeeded = r.varint() !== 0;
        break;
      case (3 << 3) | LENGTH_DELIMITED:
        res.responses.push(embedded(r, readResponseOp));
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  return res;
}

/** A decoder of one response message held in `buf[start, end)`; byte fields are views of `buf`. */
export interface MessageDecoder<Res> {
  (buf: Buffer, start: number, end: number): Res;
}

export function decoder<Res>(read: (r: ProtoReader) => Res): MessageDecoder<Res> {
  return (buf, start, end) => read(new ProtoReader(buf, start, end));
}

export const decodeRangeResponse: MessageDecoder<IRangeResponse> = decoder(readRangeResponse);
export const decodePutResponse: MessageDecoder<IPutResponse> = decoder(readPutResponse);
export const decodeDeleteRangeResponse: MessageDecoder<IDeleteRangeResponse> = decoder(readDeleteRangeResponse);
export const decodeTxnResponse: MessageDecoder<ITxnResponse> = decoder(readTxnResponse);
