import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StatusError, badRequest } from '@kapi/machinery';
import { encode, writeError, writeYaml } from './respond.js';

void test('YAML comes out as kube-apiserver 1.32 writes it (sigs.k8s.io/yaml)', () => {
  const list = {
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '12' },
    items: [{ metadata: { name: 'y', creationTimestamp: '2024-01-01T00:00:00Z', managedFields: [{ fieldsV1: { 'f:data': { '.': {} } } }] }, data: { n: 'on', mode: '0777', e: '', dot: '.' } }],
  };
  // go-yaml v2's rules; the differential suite (case 'get yaml-ambiguous configmap yaml') checks the same values against kube-apiserver 1.32.
  assert.equal(
    encode(list, 'yaml'),
    [
      'apiVersion: v1',
      'items:',
      '- data:',
      '    dot: .',
      '    e: ""',
      '    mode: "0777"',
      '    "n": "on"',
      '  metadata:',
      '    creationTimestamp: "2024-01-01T00:00:00Z"',
      '    managedFields:',
      '    - fieldsV1:',
      '        f:data:',
      '          .: {}',
      '    name: "y"',
      'kind: ConfigMapList',
      'metadata:',
      '  resourceVersion: "12"',
      '',
    ].join('\n'),
  );
});

/** The body a request to a server whose handler is `handle` gets, and what `handle` returned. */
async function answer(handle: (res: ServerResponse) => unknown): Promise<{ body: string; contentType: string | null; returned: unknown }> {
  let returned: unknown;
  const server = createServer((_req, res) => {
    returned = handle(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { body: await res.text(), contentType: res.headers.get('content-type'), returned };
  } finally {
    server.close();
  }
}

void test('a YAML Status with a long message is written in slices, the same bytes as at once', async () => {
  const long = badRequest(`parsing time "${'\\xf0\\x9f\\x98\\x80'.repeat(50_000)}": cannot parse it, 'quoted'`);
  const sliced = await answer((res) => writeError(res, long, 'yaml'));
  assert.ok(sliced.returned instanceof Promise, 'a long message is written in slices');
  assert.equal(sliced.contentType, 'application/yaml');
  assert.equal(sliced.body, encode(long.status, 'yaml'));
  const short = await answer((res) => writeError(res, badRequest('no'), 'yaml'));
  assert.equal(short.returned, undefined, 'a short message is written at once');
  assert.equal(short.body, encode(badRequest('no').status, 'yaml'));
  const causes = new StatusError({ code: 422, reason: 'Invalid', message: 'x'.repeat(70_000), details: { name: 'n', causes: [{ field: 'f', message: 'm' }] } });
  assert.equal((await answer((res) => writeError(res, causes, 'yaml'))).body, encode(causes.status, 'yaml'));
});

void test('writeYaml writes what JSON would carry: undefined members dropped, -0 as 0, toJSON and non-finite numbers as JSON has them', async () => {
  const values: unknown[] = [
    { kind: 'Thing', a: undefined, b: [1, undefined, -0], c: { d: null, e: 'on' } },
    { kind: 'Thing', when: new Date(0), n: Number.NaN, i: Infinity, nested: { toJSON: () => 'replaced' } },
    { kind: 'Thing', deep: JSON.parse(`${'['.repeat(150)}1${']'.repeat(150)}`) as unknown },
  ];
  for (const value of values) assert.equal((await answer((res) => writeYaml(res, 200, value))).body, encode(value, 'yaml'));
});
