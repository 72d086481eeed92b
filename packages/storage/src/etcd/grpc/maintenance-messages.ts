/**
 * Static codecs for the etcd calls kapi makes besides reads, writes and watches
 * (etcdserverpb, api/etcdserverpb/rpc.proto): KV.Compact (the compactor) and Maintenance.Status
 * (the etcd version check, the database size metric, the watch leader checks). Shapes are the
 * etcd3 npm client's, as in kv-messages.ts: int64/uint64 as decimal strings, defaults filled in.
 */
import type { ICompactionRequest, ICompactionResponse, IResponseHeader, IStatusRequest, IStatusResponse } from 'etcd3';
import { decoder, embedded, emptyHeader, encoder, readHeader, type MessageDecoder, type MessageEncoder } from './kv-messages.js';
import { LENGTH_DELIMITED, VARINT, exactInt64, varint64Size, type ProtoReader, type ProtoWriter } from './protobuf.js';

function compactionSize(req: ICompactionRequest): number {
  const revision = exactInt64(req.revision);
  return (revision === 0 ? 0 : 1 + varint64Size(revision)) + (req.physical === true ? 2 : 0);
}

function writeCompaction(w: ProtoWriter, req: ICompactionRequest): void {
  const revision = exactInt64(req.revision);
  if (revision !== 0) {
    w.tag(1, VARINT);
    w.varint64(revision);
  }
  if (req.physical === true) w.varintField(2, 1);
}

function readCompactionResponse(r: ProtoReader): ICompactionResponse {
  let header: IResponseHeader | undefined;
  while (r.more()) {
    const tag = r.varint();
    if (tag === ((1 << 3) | LENGTH_DELIMITED)) header = embedded(r, readHeader);
    else r.skip(tag & 7);
  }
  return { header: header ?? emptyHeader() };
}

function readStatusResponse(r: ProtoReader): IStatusResponse {
  const res: IStatusResponse = {
    header: null as unknown as IResponseHeader,
    version: '',
    dbSize: '0',
    leader: '0',
    raftIndex: '0',
    raftTerm: '0',
    raftAppliedIndex: '0',
    errors: [],
    dbSizeInUse: '0',
    isLearner: false,
  };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        res.header = embedded(r, readHeader);
        break;
      case (2 << 3) | LENGTH_DELIMITED:
        res.version = r.bytes().toString('utf8');
        break;
      case (3 << 3) | VARINT:
        res.dbSize = r.int64String();
        break;
      case (4 << 3) | VARINT:
        res.leader = r.uint64String();
        break;
      case (5 << 3) | VARINT:
        res.raftIndex = r.uint64String();
        break;
      case (6 << 3) | VARINT:
        res.raftTerm = r.uint64String();
        break;
      case (7 << 3) | VARINT:
        res.raftAppliedIndex = r.uint64String();
        break;
      case (8 << 3) | LENGTH_DELIMITED:
        res.errors.push(r.bytes().toString('utf8'));
        break;
      case (9 << 3) | VARINT:
        res.dbSizeInUse = r.int64String();
        break;
      case (10 << 3) | VARINT:
        res.isLearner = r.varint() !== 0;
        break;
      default:
        r.skip(tag & 7);
    }
  }
  if (res.header === null) res.header = emptyHeader();
  return res;
}

export const encodeCompactionRequest: MessageEncoder<ICompactionRequest> = encoder(compactionSize, writeCompaction);
export const decodeCompactionResponse: MessageDecoder<ICompactionResponse> = decoder(readCompactionResponse);
/** StatusRequest has no fields. */
export const encodeStatusRequest: MessageEncoder<IStatusRequest> = encoder(() => 0, () => undefined);
export const decodeStatusResponse: MessageDecoder<IStatusResponse> = decoder(readStatusResponse);
