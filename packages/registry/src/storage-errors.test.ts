import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, badRequest } from '@kapi/machinery';
import { StorageError, continueTooOldMessage, keyExists, keyNotFound, preconditionFailed } from '@kapi/storage';
import { toStatusError } from './storage-errors.js';

const cms = { group: '', resource: 'configmaps' };
const leases = { group: 'coordination.k8s.io', resource: 'leases' };

void describe('toStatusError', () => {
  void it('maps KeyNotFound, KeyExists and failed preconditions', () => {
    assert.deepEqual(toStatusError(keyNotFound('/k'), leases, 'x').status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'leases.coordination.k8s.io "x" not found',
      reason: 'NotFound',
      details: { name: 'x', group: 'coordination.k8s.io', kind: 'leases' },
      code: 404,
    });
    assert.equal(toStatusError(keyExists('/k'), cms, 'x').status.reason, 'AlreadyExists');
    const conflict = toStatusError(preconditionFailed('/k', 'UID', 'a', 'b'), cms, 'x').status;
    assert.equal(conflict.code, 409);
    assert.equal(conflict.reason, 'Conflict');
    assert.equal(conflict.message, 'Operation cannot be fulfilled on configmaps "x": Precondition failed: UID in precondition: a, UID in object meta: b');
  });

  void it('maps Expired with the inconsistent continue token', () => {
    const status = toStatusError(new StorageError('Expired', '/k', continueTooOldMessage, { inconsistentContinue: 'tok' }), cms).status;
    assert.equal(status.code, 410);
    assert.equal(status.reason, 'Expired');
    assert.equal(status.message, continueTooOldMessage);
    assert.deepEqual(status.metadata, { continue: 'tok' });
  });

  void it('maps TooLargeResourceVersion to 504 with Retry-After', () => {
    const err = toStatusError(new StorageError('TooLargeResourceVersion', '/k', 'x', { requestedRevision: 200, currentRevision: 100 }), cms);
    assert.equal(err.status.code, 504);
    assert.equal(err.status.message, 'Timeout: Too large resource version: 200, current: 100');
    assert.equal(err.headers['Retry-After'], '1');
  });

  void it('maps InvalidContinue to 400 and Unreachable/Internal/unknown errors to 500', () => {
    assert.deepEqual(toStatusError(new StorageError('InvalidContinue', '/k', 'invalid continue token: x'), cms).status.code, 400);
    const down = toStatusError(new StorageError('Unreachable', '/k', 'etcd is unreachable: ECONNREFUSED'), cms).status;
    assert.equal(down.code, 500);
    assert.equal(down.reason, 'InternalError');
    assert.equal(down.message, 'Internal error occurred: etcd is unreachable: ECONNREFUSED');
    assert.equal(toStatusError(new Error('boom'), cms).status.code, 500);
  });

  void it('maps TooManyRequests (a cache initializing) to 429 with Retry-After 1 and kube 1.32\'s bare message', () => {
    const err = toStatusError(new StorageError('TooManyRequests', '/registry/configmaps', 'storage is (re)initializing'), cms);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'storage is (re)initializing',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    assert.deepEqual(err.headers, { 'Retry-After': '1' });
  });

  void it('maps RequestTooLarge to kube\'s 500 without a reason: the message as etcd (or its client) said it', () => {
    const err = toStatusError(new StorageError('RequestTooLarge', '/registry/configmaps/default/x', 'etcdserver: request is too large'), cms);
    assert.deepEqual(err.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 });
  });

  void it('passes StatusErrors through', () => {
    const err = badRequest('x');
    assert.ok(toStatusError(err, cms) instanceof StatusError);
    assert.equal(toStatusError(err, cms), err);
  });
});
