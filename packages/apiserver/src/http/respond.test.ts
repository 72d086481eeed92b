import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode } from './respond.js';

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
