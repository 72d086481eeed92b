/**
 * Static codecs for etcd's Watch service messages (api/etcdserverpb/rpc.proto): WatchRequest
 * (create, cancel or progress request) and WatchResponse with its events (api/mvccpb/kv.proto),
 * in the shapes the etcd3 npm client gives them (see kv-messages.ts), so that watch-stream.ts
 * reads them unchanged.
 */
import type { IEvent, IKeyValue, IResponseHeader, IWatchRequest, IWatchResponse } from 'etcd3';
import { embedded, emptyHeader, readHeader, readKeyValue } from './kv-messages.js';
import { LENGTH_DELIMITED, ProtoReader, ProtoWriter, VARINT, bytesFieldSize, varintFieldSize, varintSize } from './protobuf.js';

function int64(value: string | number | undefined): number {
  return value === undefined ? 0 : typeof value === 'number' ? value : Number(value);
}

function asBuffer(value: Buffer | string | undefined): Buffer | undefined {
  return value === undefined ? undefined : typeof value === 'string' ? Buffer.from(value) : value;
}

/**
 * A WatchRequest as one message after `headerBytes` free bytes (for the gRPC length prefix).
 * The oneof member that is set is written even when empty (a progress request is an empty
 * message in field 3); scalars at their default are left out.
 */
export function encodeWatchRequest(req: IWatchRequest, headerBytes: number): Buffer {
  const create = req.create_request;
  if (create !== undefined) {
    const key = asBuffer(create.key);
    const rangeEnd = asBuffer(create.range_end);
    const start = int64(create.start_revision);
    const watchId = int64(create.watch_id);
    const filters = (create.filters ?? []).map((f) => (typeof f === 'number' ? f : f === 'Nodelete' ? 1 : 0));
    const filtersBytes = filters.length;
    const inner =
      (key !== undefined && key.length > 0 ? bytesFieldSize(key.length) : 0) +
      (rangeEnd !== undefined && rangeEnd.length > 0 ? bytesFieldSize(rangeEnd.length) : 0) +
      (start !== 0 ? varintFieldSize(start) : 0) +
      (create.progress_notify === true ? 2 : 0) +
      (filtersBytes > 0 ? bytesFieldSize(filtersBytes) : 0) +
      (create.prev_kv === true ? 2 : 0) +
      (watchId !== 0 ? varintFieldSize(watchId) : 0) +
      (create.fragment === true ? 2 : 0);
    const buf = Buffer.allocUnsafe(headerBytes + 1 + varintSize(inner) + inner);
    const w = new ProtoWriter(buf, headerBytes);
    w.messageHeader(1, inner);
    if (key !== undefined && key.length > 0) w.bytesField(1, key);
    if (rangeEnd !== undefined && rangeEnd.length > 0) w.bytesField(2, rangeEnd);
    if (start !== 0) w.varintField(3, start);
    if (create.progress_notify === true) w.varintField(4, 1);
    if (filtersBytes > 0) w.bytesField(5, Buffer.from(filters));
    if (create.prev_kv === true) w.varintField(6, 1);
    if (watchId !== 0) w.varintField(7, watchId);
    if (create.fragment === true) w.varintField(8, 1);
    return buf;
  }
  const cancel = req.cancel_request;
  if (cancel !== undefined) {
    const watchId = int64(cancel.watch_id);
    const inner = watchId !== 0 ? varintFieldSize(watchId) : 0;
    const buf = Buffer.allocUnsafe(headerBytes + 1 + varintSize(inner) + inner);
    const w = new ProtoWriter(buf, headerBytes);
    w.messageHeader(2, inner);
    if (watchId !== 0) w.varintField(1, watchId);
    return buf;
  }
  if (req.progress_request !== undefined) {
    const buf = Buffer.allocUnsafe(headerBytes + 2);
    const w = new ProtoWriter(buf, headerBytes);
    w.messageHeader(3, 0);
    return buf;
  }
  return Buffer.allocUnsafe(headerBytes);
}

function readEvent(r: ProtoReader): IEvent {
  const event = { type: 'Put', kv: null, prev_kv: null } as unknown as IEvent;
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | VARINT:
        event.type = r.varint() === 1 ? 'Delete' : 'Put';
        break;
      case (2 << 3) | LENGTH_DELIMITED:
        event.kv = embedded(r, readKeyValue);
        break;
      case (3 << 3) | LENGTH_DELIMITED:
        event.prev_kv = embedded(r, readKeyValue);
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return event;
}

/** A WatchResponse held in `buf[start, end)`; byte fields are views of `buf`. */
export function decodeWatchResponse(buf: Buffer, start: number, end: number): IWatchResponse {
  const r = new ProtoReader(buf, start, end);
  const res: IWatchResponse = {
    header: null as unknown as IResponseHeader,
    watch_id: '0',
    created: false,
    canceled: false,
    compact_revision: '0',
    cancel_reason: '',
    fragment: false,
    events: [],
  };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | VARINT:
        res.watch_id = r.int64String();
        break;
      case (3 << 3) | VARINT:
        res.created = r.varint() !== 0;
        break;
      case (4 << 3) | VARINT:
        res.canceled = r.varint() !== 0;
        break;
      case (5 << 3) | VARINT:
        res.compact_revision = r.int64String();
        break;
      case (6 << 3) | LENGTH_DELIMITED:
        res.cancel_reason = r.bytes().toString();
        break;
      case (7 << 3) | VARINT:
        res.fragment = r.varint() !== 0;
        break;
      case (11 << 3) | LENGTH_DELIMITED:
        res.events.push(embedded(r, readEvent));
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  for (const event of res.events) if (event.kv === null) event.kv = emptyKeyValue();
  return res;
}

const emptyKeyValue = (): IKeyValue => ({ key: Buffer.alloc(0), create_revision: '0', mod_revision: '0', version: '0', value: Buffer.alloc(0), lease: '0' });
