// Micro-benchmark of the protobuf codec work of one ConfigMap create (client-go, protobuf):
// decode the request body, the Go view for managed fields, the stored bytes (Go form), the
// written object (what decoding them gives: the watch cache's object) and the answer bytes, for
// a 1 KiB ConfigMap. A build with encodeObjectGoDecoded and takeStoredAnswer makes the written
// object from the stored message and answers with the stored bytes; an older build (given as
// the second argument) decodes the stored bytes and encodes the answer in full. Warmed over every kind of the catalogue golden file
// first, so call sites are as polymorphic as in a server. The objects each create encodes (new
// managed fields each time, as the field manager builds them) are built outside the timing.
// Usage: node scripts/bench-create-codec.mjs [rounds] [machinery dist directory, to compare builds]
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const dist = process.argv[3];
const { decodeObject, encodeObjectGo, encodeObjectGoDecoded, encodeObjectRaw, envelopeObject, goTypedView, noteStoredEncoding, takeStoredAnswer } = await import(
  dist === undefined ? '@kapi/machinery' : pathToFileURL(resolve(dist, 'index.js')).href
);
const onePass = encodeObjectGoDecoded !== undefined && takeStoredAnswer !== undefined;

const golden = JSON.parse(readFileSync(new URL('../packages/machinery/src/protobuf/testdata/go-golden-catalog.json', import.meta.url), 'utf8')).golden;
const warm = [];
for (const g of golden) {
  if (g.kind.endsWith('List')) continue;
  warm.push({ g, obj: decodeObject(Buffer.from(g.protobuf, 'base64'), { apiVersion: g.apiVersion, kind: g.kind }).object });
}
for (let r = 0; r < 3; r++) {
  for (const { g, obj } of warm) {
    decodeObject(encodeObjectGo(obj), { apiVersion: g.apiVersion, kind: g.kind });
    encodeObjectRaw(obj);
  }
}

const data = {};
for (let i = 0; i < 16; i++) data[`key-${i}`] = 'v'.repeat(48);
const request = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench-000123', namespace: 'default' }, data };
// As client-go sends it: Go's bytes, map keys sorted.
const body = encodeObjectGo(request);

/** The stored object and the answer of one create (fresh managed fields, as the server builds them). */
function objects(obj) {
  const fields = {};
  for (const k of Object.keys(obj.data)) fields[`f:${k}`] = {};
  const metadata = {
    ...obj.metadata,
    uid: '6f1c2c6e-6b7a-4a4e-9d1e-2f7c5c3b9a10',
    creationTimestamp: '2026-11-27T21:30:00Z',
    managedFields: [{ manager: 'kapi-bench', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T21:30:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': fields } }],
  };
  const stored = { ...obj, metadata };
  return { stored };
}

/** The stored bytes, the written object and the answer of one create. */
function write(stored) {
  if (onePass) {
    const { bytes, decoded } = encodeObjectGoDecoded(stored);
    const written = decoded ?? decodeObject(bytes, { apiVersion: 'v1', kind: 'ConfigMap' }).object;
    written.metadata.resourceVersion = '12345';
    noteStoredEncoding(written, bytes);
    return bytes.length + takeStoredAnswer(written).length;
  }
  const bytes = encodeObjectGo(stored);
  const written = decodeObject(bytes, { apiVersion: 'v1', kind: 'ConfigMap' }).object;
  written.metadata.resourceVersion = '12345';
  return bytes.length + envelopeObject(written, encodeObjectRaw(written)).length;
}

const n = 5000;
function round() {
  const decoded = decodeObject(body, { apiVersion: 'v1', kind: 'ConfigMap' }).object;
  const batch = Array.from({ length: n }, () => objects(decoded));
  let size = 0;
  // CPU time, not wall time: the machine is shared, and waiting for a core is not codec work.
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const obj = decodeObject(body, { apiVersion: 'v1', kind: 'ConfigMap' }).object;
    size += Object.keys(goTypedView('k8s.io.api.core.v1.ConfigMap', obj)).length;
    size += write(batch[i].stored);
  }
  const used = process.cpuUsage(start);
  const us = (used.user + used.system) / n;
  if (size === 0) throw new Error('nothing encoded');
  return us;
}

const rounds = Number(process.argv[2] ?? 10);
for (let i = 0; i < 4; i++) round();
const results = [];
for (let r = 0; r < rounds; r++) results.push(round());
results.sort((a, b) => a - b);
console.log(`create codec (${onePass ? 'one pass' : 'decode + encode again'}) µs CPU: min ${results[0].toFixed(1)} median ${results[results.length >> 1].toFixed(1)} (${rounds} rounds of ${n})`);
