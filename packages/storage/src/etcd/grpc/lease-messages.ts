/**
 * Static codecs for etcd's Lease.LeaseGrant (etcdserverpb, api/etcdserverpb/rpc.proto), which
 * kapi's expiring keys (ttl-keys.ts) are written under. Lease IDs are random 63-bit numbers,
 * kept exact as decimal strings (the etcd3 npm client's shape, as in kv-messages.ts).
 */
import type { ILeaseGrantRequest, ILeaseGrantResponse, IResponseHeader } from 'etcd3';
import { decoder, embedded, emptyHeader, encoder, readHeader, type MessageDecoder, type MessageEncoder } from './kv-messages.js';
import { LENGTH_DELIMITED, VARINT, exactInt64, varint64Size, type ProtoReader, type ProtoWriter } from './protobuf.js';

function int64FieldSize(value: number | bigint): number {
  return value === 0 || value === 0n ? 0 : 1 + varint64Size(value);
}

function writeInt64Field(w: ProtoWriter, field: number, value: number | bigint): void {
  if (value === 0 || value === 0n) return;
  w.tag(field, VARINT);
  w.varint64(value);
}

function leaseGrantSize(req: ILeaseGrantRequest): number {
  return int64FieldSize(exactInt64(req.TTL)) + int64FieldSize(exactInt64(req.ID));
}

function writeLeaseGrant(w: ProtoWriter, req: ILeaseGrantRequest): void {
  writeInt64Field(w, 1, exactInt64(req.TTL));
  writeInt64Field(w, 2, exactInt64(req.ID));
}

function readLeaseGrantResponse(r: ProtoReader): ILeaseGrantResponse {
  const res: ILeaseGrantResponse = { header: null as unknown as IResponseHeader, ID: '0', TTL: '0', error: '' };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | VARINT:
        res.ID = r.int64String();
        break;
      case (3 << 3) | VARINT:
        res.TTL = r.int64String();
        break;
      case (4 << 3) | LENGTH_DELIMITED:
        res.error = r.bytes().toString('utf8');
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  return res;
}

export const encodeLeaseGrantRequest: MessageEncoder<ILeaseGrantRequest> = encoder(leaseGrantSize, writeLeaseGrant);
export const decodeLeaseGrantResponse: MessageDecoder<ILeaseGrantResponse> = decoder(readLeaseGrantResponse);
