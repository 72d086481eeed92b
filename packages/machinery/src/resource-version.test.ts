import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResourceVersion, validateListOptions, type ListOptionsToValidate } from './resource-version.js';
import { isStatusError } from './status.js';

function failure(opts: ListOptionsToValidate): { code: number; message: string } {
  try {
    validateListOptions(opts);
  } catch (err) {
    assert.ok(isStatusError(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('expected a failure');
}

void test('parseResourceVersion', () => {
  assert.equal(parseResourceVersion(undefined), 0);
  assert.equal(parseResourceVersion(''), 0);
  assert.equal(parseResourceVersion('0'), 0);
  assert.equal(parseResourceVersion('12345'), 12345);
  for (const [rv, reason] of [
    ['abc', 'invalid syntax'],
    ['-1', 'invalid syntax'],
    ['1.5', 'invalid syntax'],
    [' 1', 'invalid syntax'],
    ['99999999999999999999', 'value out of range'],
  ] as const) {
    assert.throws(
      () => parseResourceVersion(rv),
      (err: unknown) =>
        isStatusError(err) &&
        err.code === 400 &&
        err.message === `invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${reason}`,
    );
  }
});

void test('valid list options pass', () => {
  validateListOptions({});
  validateListOptions({ resourceVersion: '0' });
  validateListOptions({ resourceVersion: '5', resourceVersionMatch: 'Exact' });
  validateListOptions({ resourceVersion: '5', resourceVersionMatch: 'NotOlderThan', limit: 10 });
  validateListOptions({ continue: 'tok', resourceVersion: '0' });
  validateListOptions({ watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
  validateListOptions({ watch: true, resourceVersion: '7' });
});

void test('list: resourceVersionMatch rules', () => {
  assert.deepEqual(failure({ resourceVersionMatch: 'Exact' }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
  });
  assert.deepEqual(failure({ resourceVersion: '5', resourceVersionMatch: 'Exact', continue: 'x' }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
  });
  assert.deepEqual(failure({ resourceVersion: '0', resourceVersionMatch: 'Exact' }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
  });
  assert.deepEqual(failure({ resourceVersion: '5', resourceVersionMatch: 'Bogus' }), {
    code: 422,
    message:
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
  });
  assert.deepEqual(failure({ resourceVersionMatch: 'Bogus' }).message,
    'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""]');
  assert.deepEqual(failure({ sendInitialEvents: true }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
  });
});

void test('list: continue with a resourceVersion', () => {
  assert.deepEqual(failure({ continue: 'tok', resourceVersion: '5' }), {
    code: 400,
    message: 'specifying resource version is not allowed when using continue',
  });
});

void test('watch rules', () => {
  assert.deepEqual(failure({ watch: true, sendInitialEvents: true }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
  });
  assert.deepEqual(failure({ watch: true, sendInitialEvents: false, resourceVersionMatch: 'NotOlderThan', watchListEnabled: false }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  });
  assert.deepEqual(failure({ watch: true, resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }), {
    code: 422,
    message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
  });
  const exact = failure({ watch: true, sendInitialEvents: true, resourceVersionMatch: 'Exact' });
  assert.equal(
    exact.message,
    'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
  );
  assert.match(
    failure({ watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', continue: 'x' }).message,
    /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided$/,
  );
});
