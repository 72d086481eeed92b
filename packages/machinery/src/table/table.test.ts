import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../object.js';
import { ageColumn, column, countOf, defaultColumns, nameColumn } from './columns.js';
import { humanDuration, timestampSince } from './human-duration.js';
import { buildTable } from './table.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

void describe('humanDuration (kube\'s HumanDuration)', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [-500, '0s'],
    [0, '0s'],
    [45 * s, '45s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 3 * s, '5m3s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 12 * m, '3h12m'],
    [8 * h + 59 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [4 * d + 2 * h, '4d2h'],
    [8 * d, '8d'],
    [729 * d, '729d'],
    [2 * 365 * d + 30 * d, '2y30d'],
    [3 * 365 * d, '3y'],
    [9 * 365 * d + 100 * d, '9y'],
  ];
  for (const [ms, text] of cases) void it(`${ms} ms → ${text}`, () => assert.equal(humanDuration(ms), text));

  void it('timestampSince: <unknown> for absent or unparsable timestamps', () => {
    assert.equal(timestampSince(undefined, 0), '<unknown>');
    assert.equal(timestampSince('', 0), '<unknown>');
    assert.equal(timestampSince('yesterday', 0), '<unknown>');
    assert.equal(timestampSince('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:05:03Z')), '5m3s');
  });
});

const cm = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', labels: { a: 'b' } },
  ...extra,
});

void describe('buildTable', () => {
  const now = Date.parse('2024-01-01T01:00:00Z');
  const columns = [nameColumn, column('Data', 'string', 'd', (o) => countOf(o['data']) + countOf(o['binaryData'])), column('Extra', 'string', 'e', () => 'x', { priority: 1 }), ageColumn];

  void it('computes cells per column and writes every column-definition key', () => {
    const table = buildTable([cm('a', { data: { x: '1', y: '2' }, binaryData: { z: '' } }), cm('b')], { resourceVersion: '9', continue: 'c' }, { columns, version: 'v1', includeObject: 'Metadata', now });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '9', continue: 'c' });
    assert.deepEqual(table.columnDefinitions?.map((c) => Object.keys(c).sort()), columns.map(() => ['description', 'format', 'name', 'priority', 'type']));
    assert.deepEqual(table.columnDefinitions?.[0], { name: 'Name', type: 'string', format: 'name', description: nameColumn.definition.description, priority: 0 });
    assert.equal(table.columnDefinitions?.[2]?.priority, 1);
    assert.deepEqual(table.rows.map((r) => r.cells), [['a', 3, 'x', '60m'], ['b', 0, 'x', '60m']]);
    assert.deepEqual(table.rows[0]!.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm('a').metadata });
  });

  void it('includeObject Object and None; v1beta1; no headers; empty rows', () => {
    const obj = cm('a');
    assert.equal(buildTable([obj], {}, { columns, version: 'v1', includeObject: 'Object', now }).rows[0]!.object, obj);
    assert.equal(buildTable([obj], {}, { columns, version: 'v1', includeObject: 'None', now }).rows[0]!.object, null);
    const beta = buildTable([obj], {}, { columns, version: 'v1beta1', includeObject: 'Metadata', now, noHeaders: true });
    assert.equal(beta.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal((beta.rows[0]!.object as { apiVersion: string }).apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(beta.columnDefinitions, null);
    assert.deepEqual(buildTable([], {}, { columns, version: 'v1', includeObject: 'Metadata', now }).rows, []);
  });

  void it('default columns are Name and Created At (RFC 3339 UTC)', () => {
    const table = buildTable([cm('a')], {}, { columns: defaultColumns, version: 'v1', includeObject: 'None', now });
    assert.deepEqual(table.columnDefinitions?.map((c) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Created At', 'date', '']]);
    assert.deepEqual(table.rows[0]!.cells, ['a', '2024-01-01T00:00:00Z']);
  });
});
