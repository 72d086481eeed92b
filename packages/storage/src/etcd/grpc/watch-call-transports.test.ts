// Both Watch call transports (watch-call.ts on h2-connection.ts, watch-call-http2.ts on
// node:http2) against one scripted HTTP/2 peer (a node:http2 server). Why a peer of our own and
// not etcd: etcd cannot be made to split a message's length prefix across frames, put several
// messages in one frame, end a stream with a chosen status, reset it with a chosen code, answer
// with an HTTP error or refuse it by GOAWAY. Every outcome must be the same on both transports,
// since watch-stream.ts and the failover read them (real etcd: watch-call.test.ts,
// h2-connection.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createServer, constants, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { IWatchResponse } from 'etcd3';
import { Member } from './member.js';
import { FramedWatchCall, WATCH_PATH, type WatchCall } from './watch-call.js';
import { Http2WatchCall } from './watch-call-http2.js';

const varint = (n: number): Buffer => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
};
const field = (no: number, bytes: Buffer): Buffer => Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]);
/** A WatchResponse (watch_id `id`) with one put event of key `k` and `value`, length-prefixed. */
const message = (id: number, value: Buffer): Buffer => {
  const body = Buffer.concat([Buffer.from([0x10, id]), field(11, field(2, Buffer.concat([field(1, Buffer.from('k')), field(5, value)])))]);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
};
const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));
const OK_HEADERS = { ':status': 200, 'content-type': 'application/grpc' };

/** What the peer does with the next Watch stream. */
type Script = (stream: ServerHttp2Stream) => Promise<void> | void;

/** A call's responses and its one outcome. */
interface Seen {
  responses: IWatchResponse[];
  outcome: Promise<Error | 'end'>;
}

function watchOutcome(call: WatchCall): Seen {
  const responses: IWatchResponse[] = [];
  call.on('data', (res: IWatchResponse) => responses.push(res));
  const outcome = new Promise<Error | 'end'>((resolve) => {
    call.on('error', resolve);
    call.on('end', () => resolve('end'));
  });
  return { responses, outcome };
}

void describe('Watch calls on both transports against a scripted HTTP/2 peer', { concurrency: false }, () => {
  let server: Http2Server;
  let member: Member;
  let script: Script = () => undefined;
  const sockets = new Set<Socket>();
  before(async () => {
    server = createServer();
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('stream', (stream, headers) => {
      assert.equal(headers[':path'], WATCH_PATH);
      stream.on('error', () => undefined);
      void script(stream);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    member = new Member(`http://127.0.0.1:${port}`, { dialTimeoutMs: 2000, keepaliveTimeMs: 10_000, keepaliveTimeoutMs: 5000 });
  });
  after(async () => {
    member.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const transports: Record<string, () => WatchCall> = {
    frames: () => new FramedWatchCall(member.framedConnection(), member.headerBlock(WATCH_PATH, undefined, [])),
    http2: () => new Http2WatchCall(member.session(), undefined),
  };

  /** Runs `play` on each transport in turn; returns what each saw. */
  const onBoth = async (play: Script): Promise<Array<{ responses: IWatchResponse[]; outcome: Error | 'end' }>> => {
    script = play;
    const results = [];
    for (const open of Object.values(transports)) {
      const seen = watchOutcome(open());
      results.push({ responses: seen.responses, outcome: await seen.outcome });
    }
    return results;
  };

  const sameError = (results: Array<{ outcome: Error | 'end' }>, expected: RegExp): void => {
    const [frames, http2] = results.map((r) => r.outcome);
    assert.ok(frames instanceof Error && http2 instanceof Error, `frames: ${String(frames)}, http2: ${String(http2)}`);
    assert.equal(frames.message, http2.message);
    assert.match(frames.message, expected);
    assert.equal(frames.constructor, http2.constructor);
  };

  void test('a length prefix split across frames, several messages in one frame, one message over many frames; trailers OK end the call', async () => {
    const big = Buffer.alloc(100_000, 'b');
    const [one, two, three, four] = [message(1, Buffer.from('a')), message(2, Buffer.from('bb')), message(3, big), message(4, Buffer.from('d'))];
    const results = await onBoth(async (stream) => {
      stream.respond(OK_HEADERS, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.write(one.subarray(0, 3)); // a frame with part of a prefix
      await tick();
      stream.write(Buffer.concat([one.subarray(3), two, three.subarray(0, 7)])); // the rest, a whole message and another's start
      await tick();
      stream.write(Buffer.concat([three.subarray(7), four])); // ~100 KB: many frames, the last with the fourth message
      await tick();
      stream.end();
    });
    for (const { responses, outcome } of results) {
      assert.equal(outcome, 'end');
      assert.deepEqual(
        responses.map((r) => [r.watch_id, r.events[0]!.kv.value.length]),
        [
          ['1', 1],
          ['2', 2],
          ['3', big.length],
          ['4', 1],
        ],
      );
      assert.ok(responses[2]!.events[0]!.kv.value.equals(big));
    }
    assert.deepEqual(results[0]!.responses, results[1]!.responses);
  });

  void test('trailers with an error status end the call with that status (grpc-message percent-decoded)', async () => {
    const results = await onBoth((stream) => {
      stream.respond(OK_HEADERS, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '14', 'grpc-message': 'etcdserver:%20no leader' }));
      stream.end(message(1, Buffer.from('x')));
    });
    sameError(results, /^14 UNAVAILABLE: etcdserver: no leader$/);
    for (const { responses } of results) assert.equal(responses.length, 1);
  });

  void test('a trailers-only answer and an HTTP error status', async () => {
    sameError(
      await onBoth((stream) => stream.respond({ ...OK_HEADERS, 'grpc-status': '7', 'grpc-message': 'denied' }, { endStream: true })),
      /^7 PERMISSION_DENIED: denied$/,
    );
    sameError(await onBoth((stream) => stream.respond({ ':status': 503 }, { endStream: true })), /^14 UNAVAILABLE: Received HTTP status code 503$/);
  });

  void test('RST_STREAM ends the call with the reset code as grpc-js reads it', async () => {
    const reset = (code: number): Script => async (stream) => {
      stream.respond(OK_HEADERS);
      stream.write(message(1, Buffer.from('x')));
      await tick();
      stream.close(code);
    };
    sameError(await onBoth(reset(constants.NGHTTP2_ENHANCE_YOUR_CALM)), /^8 RESOURCE_EXHAUSTED: Bandwidth exhausted/);
    sameError(await onBoth(reset(constants.NGHTTP2_INTERNAL_ERROR)), /^13 INTERNAL: Received RST_STREAM with code 2$/);
  });

  void test('the connection dropped mid-stream fails the call as a connection failure (UNAVAILABLE)', async () => {
    const results = await onBoth(async (stream) => {
      stream.respond(OK_HEADERS);
      stream.write(message(1, Buffer.from('x')));
      await tick();
      for (const socket of sockets) socket.destroy(); // the connection drops (http2's own socket may not be touched)
    });
    for (const { outcome, responses } of results) {
      assert.equal(responses.length, 1);
      assert.ok(outcome instanceof Error);
      assert.match(outcome.message, /^14 UNAVAILABLE: Connection dropped: /);
    }
    assert.equal((results[0]!.outcome as Error).constructor, (results[1]!.outcome as Error).constructor);
  });

  void test('cancel ends the call with CANCELLED and resets the stream', async () => {
    for (const open of Object.values(transports)) {
      let reset!: (code: number | undefined) => void;
      const serverSaw = new Promise<number | undefined>((resolve) => (reset = resolve));
      script = (stream) => {
        stream.respond(OK_HEADERS);
        stream.write(message(1, Buffer.from('x')));
        stream.on('close', () => reset(stream.rstCode));
      };
      const call = open();
      const seen = watchOutcome(call);
      call.once('data', () => call.cancel());
      const outcome = await seen.outcome;
      assert.ok(outcome instanceof Error);
      assert.equal(outcome.message, '1 CANCELLED: Cancelled on client');
      assert.equal(await serverSaw, constants.NGHTTP2_CANCEL);
    }
  });

  void test('frames: a paused call emits nothing, holds what arrives, and on resume emits it in order before the end', async () => {
    script = async (stream) => {
      stream.respond(OK_HEADERS, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.write(message(1, Buffer.from('a')));
      await tick(50);
      // Several in one frame: the pause from the first's handler holds back the others.
      stream.write(Buffer.concat([message(2, Buffer.from('b')), message(3, Buffer.from('c')), message(4, Buffer.from('d'))]));
      stream.end();
    };
    const call = transports.frames!() as FramedWatchCall;
    const seen = watchOutcome(call);
    let ended = false;
    void seen.outcome.then(() => (ended = true));
    await new Promise((resolve) => call.once('data', resolve));
    call.once('data', () => call.pause());
    await tick(200);
    assert.deepEqual(
      seen.responses.map((r) => r.watch_id),
      ['1', '2'],
    );
    assert.ok(call.bufferedBytes > 0);
    assert.equal(ended, false, 'the end waits for the held messages');
    call.resume();
    assert.equal(await seen.outcome, 'end');
    assert.deepEqual(
      seen.responses.map((r) => r.watch_id),
      ['1', '2', '3', '4'],
    );
  });
});
