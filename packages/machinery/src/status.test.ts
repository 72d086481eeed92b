import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notFound, StatusError, successStatus } from './status.js';

void test('Status details leave out empty fields, as Go omitempty does', () => {
  // A core-group resource: kube sends no `group` key (issue 23).
  assert.deepEqual(notFound({ group: '', resource: 'configmaps' }, 'x').status.details, { name: 'x', kind: 'configmaps' });
  assert.deepEqual(new StatusError({ code: 400, details: { name: '', group: '', kind: '', causes: [], retryAfterSeconds: 0 } }).status.details, {});
  assert.deepEqual(successStatus({ name: 'a', group: '', kind: 'configmaps', uid: 'u' }).details, { name: 'a', kind: 'configmaps', uid: 'u' });
});
