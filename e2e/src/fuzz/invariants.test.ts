/** The judge and the known-open table on hand-made exchanges: what fails a run, what a known bug absorbs, what kube documents. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { judge, type Finding } from './invariants.js';
import { knownOpenClass, signature } from './known-open.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzResponse } from './send.js';

const status = (code: number, reason: string, message: string, kind = '') => Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', code, reason, message, details: { kind } }));
const res = (code: number, body = Buffer.alloc(0)): FuzzResponse => ({ status: code, headers: { 'content-type': 'application/json' }, body, stream: false, ms: 1 });
const post = (contentType: string, body: string | Buffer, query = ''): FuzzRequest => ({ method: 'POST', path: `/api/v1/namespaces/fuzz-a/configmaps${query}`, headers: { 'content-type': contentType }, body: Buffer.from(body) });
const get = (query: string): FuzzRequest => ({ method: 'GET', path: `/api/v1/namespaces/fuzz-a/configmaps${query}`, headers: {} });

void describe('fuzz invariants', () => {
  void it('a 500 is a violation; kube\'s 504 for a resourceVersion ahead of the store is not', () => {
    assert.equal(judge(get(''), res(500, status(500, 'InternalError', 'boom')))?.invariant, 'server-error');
    assert.equal(judge(get('?resourceVersion=99999'), res(504, status(504, 'Timeout', 'Timeout: Too large resource version: 99999, current: 5'))), undefined);
    assert.equal(judge(get(''), res(504, status(504, 'Timeout', 'Timeout: Too large resource version: 99999, current: 5')))?.invariant, 'server-error');
    assert.equal(judge(get('?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTk5OTksInN0YXJ0IjoidDEifQ'), res(504, status(504, 'Timeout', 'Timeout: Too large resource version: 99999, current: 5'))), undefined);
  });

  void it('no response is a violation; a request Node refused to send is not', () => {
    assert.equal(judge(get(''), { ...res(0), error: 'socket hang up' })?.invariant, 'no-response');
    assert.equal(judge(get(''), res(-1)), undefined);
    assert.equal(judge(post('application/json', 'x'.repeat(4 * 1024 * 1024)), { ...res(0), error: 'write EPIPE' }), undefined);
    assert.equal(judge(post('application/json', 'x'.repeat(1024)), { ...res(0), error: 'write EPIPE' })?.invariant, 'no-response');
  });

  void it('a body that does not decode must get 400 (or a status decided before decoding), unless the options were refused first', () => {
    assert.equal(judge(post('application/json', '{"a":'), res(400)), undefined);
    assert.equal(judge(post('application/json', '{"a":'), res(415)), undefined);
    assert.equal(judge(post('application/json', '{"a":'), res(201))?.invariant, 'undecodable-body');
    assert.equal(judge(post('application/vnd.kubernetes.protobuf', 'garbage'), res(422, status(422, 'Invalid', 'x')))?.invariant, 'undecodable-body');
    assert.equal(judge(post('application/json', '{"a":', '?dryRun=x'), res(422, status(422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid', 'CreateOptions'))), undefined);
    assert.equal(judge(post('application/json', '{"a":1}'), res(422, status(422, 'Invalid', 'x'))), undefined);
    // A non-resource path reads no object (fuzz seed 543280378: PUT /debug/pprof/ answered with the index, as kube does).
    assert.equal(judge({ method: 'PUT', path: '/debug/pprof/?timeout=-1s', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(0) }, res(200)), undefined);
    assert.equal(judge({ method: 'PUT', path: '/apis/apps/v1/namespaces/a/deployments/d', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(0) }, res(200))?.invariant, 'undecodable-body');
    // A `timeout` that runs out before decoding: kube's 504 too (fuzz seed 556743302: timeout=1ns).
    const timeout = status(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout');
    assert.equal(judge(post('application/json', '{bad', '?timeout=1ns'), res(504, timeout)), undefined);
    assert.equal(judge(post('application/json', '{bad'), res(504, timeout))?.invariant, 'server-error');
  });

  void it('known-open classes absorb only their own pattern, and the signature groups by message shape', () => {
    const methodDrop: Finding = { invariant: 'no-response', detail: 'socket hang up', request: { method: 'FUZZ', path: '/api', headers: {} }, response: { ...res(0), error: 'socket hang up', previousOnConnection: get('') } };
    // Fixed (client-errors.ts): an unknown method is answered (kube's 405 Status) whatever the connection's history.
    assert.equal(knownOpenClass(methodDrop), undefined);
    const hangUp: Finding = { invariant: 'no-response', detail: 'socket hang up', request: get('?resourceVersion=99999999999'), response: { ...res(0), error: 'socket hang up', previousOnConnection: get('') } };
    assert.equal(knownOpenClass(hangUp)?.id, 'hang-up-on-a-reused-connection');
    // A hang-up on a fresh connection is not the known class: it fails the run.
    assert.equal(knownOpenClass({ ...hangUp, response: { ...res(0), error: 'socket hang up' } }), undefined);
    const stored: Finding = { invariant: 'stored-undecodable', detail: 'json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.metadata.generation of type int64' };
    assert.equal(knownOpenClass(stored), undefined);
    const a = judge(get(''), res(500, status(500, 'InternalError', 'configmaps "t1" failed at 12')))!;
    const b = judge(get(''), res(500, status(500, 'InternalError', 'configmaps "t2" failed at 345')))!;
    assert.equal(signature(a), signature(b));
  });
});
