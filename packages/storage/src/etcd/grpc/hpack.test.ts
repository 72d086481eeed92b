import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HpackDecoder, HpackError, encodeHeaderBlock } from './hpack.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

void test('decodes RFC 7541 C.4 (Huffman) and C.5 (responses, evictions) in sequence', () => {
  const requests = new HpackDecoder();
  assert.deepEqual(requests.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'www.example.com'],
  ]);
  assert.deepEqual(requests.decode(hex('8286 84be 5886 a8eb 1064 9cbf')).at(-1), ['cache-control', 'no-cache']);
  assert.deepEqual(requests.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), [
    [':method', 'GET'],
    [':scheme', 'https'],
    [':path', '/index.html'],
    [':authority', 'www.example.com'],
    ['custom-key', 'custom-value'],
  ]);

  // C.5: a 256-byte table, so the third response evicts the first two's fields.
  const responses = new HpackDecoder(256);
  const first = hex(`4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
    2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`);
  assert.deepEqual(responses.decode(first)[0], [':status', '302']);
  assert.deepEqual(responses.decode(hex('4803 3330 37c1 c0bf'))[0], [':status', '307']);
  const third = responses.decode(
    hex(`88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970
      7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61
      6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`),
  );
  assert.deepEqual(third.slice(0, 4), [
    [':status', '200'],
    ['cache-control', 'private'],
    ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
    ['location', 'https://www.example.com'],
  ]);
});

void test('malformed blocks are HpackErrors', () => {
  assert.throws(() => new HpackDecoder().decode(hex('be')), HpackError); // past the tables
  assert.throws(() => new HpackDecoder().decode(hex('80')), HpackError); // index 0
  assert.throws(() => new HpackDecoder().decode(hex('0085 ffff ffff ff')), HpackError); // Huffman padding over 7 bits / EOS
  assert.throws(() => new HpackDecoder().decode(hex('000a 6162')), HpackError); // truncated string
  assert.throws(() => new HpackDecoder(4096).decode(hex('3fe2 1f')), HpackError); // table size update over the limit
});

void test('encoded request blocks decode to the fields, in order, without touching the dynamic table', () => {
  const fields = [
    [':method', 'POST'],
    [':scheme', 'https'],
    [':path', '/etcdserverpb.KV/Range'],
    [':authority', '127.0.0.1:2379'],
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ['grpc-timeout', '30000m'],
    ['hasleader', 'true'],
    ['x-long', 'v'.repeat(300)],
  ] as const;
  const block = encodeHeaderBlock(fields);
  const decoder = new HpackDecoder();
  assert.deepEqual(decoder.decode(block), fields);
  assert.deepEqual(decoder.decode(block), fields);
  assert.equal(block[0], 0x83); // :method POST is static index 3
});
