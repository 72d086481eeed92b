import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type TestCluster } from './harness/cluster.js';

let cluster: TestCluster;
before(async () => {
  cluster = await startCluster();
});
after(async () => {
  await cluster?.stop();
});

interface ResourceRow {
  name: string;
  shortNames: string;
  apiVersion: string;
  namespaced: string;
  kind: string;
}

/** Splits kubectl's column output using the header's column starts (cells may be empty). */
function parseColumns(text: string): ResourceRow[] {
  const [header, ...lines] = text.split('\n').filter((l) => l.trim() !== '');
  assert.ok(header, 'kubectl printed a header');
  const names = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'];
  const starts = names.map((n) => header.indexOf(n));
  assert.ok(starts.every((s, i) => s >= 0 && (i === 0 || s > starts[i - 1]!)), `unexpected header: ${header}`);
  return lines.map((line) => {
    const cell = (i: number) => line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim();
    return { name: cell(0), shortNames: cell(1), apiVersion: cell(2), namespaced: cell(3), kind: cell(4) };
  });
}

void test('kubectl api-resources lists the built-in resources with their short names, scope and kind', async () => {
  const stdout = await cluster.kubectl().ok(['api-resources']);
  const rows = parseColumns(stdout);
  const find = (name: string, apiVersion: string) => rows.find((r) => r.name === name && r.apiVersion === apiVersion);
  const expected: ResourceRow[] = [
    { name: 'namespaces', shortNames: 'ns', apiVersion: 'v1', namespaced: 'false', kind: 'Namespace' },
    { name: 'configmaps', shortNames: 'cm', apiVersion: 'v1', namespaced: 'true', kind: 'ConfigMap' },
    { name: 'secrets', shortNames: '', apiVersion: 'v1', namespaced: 'true', kind: 'Secret' },
    { name: 'serviceaccounts', shortNames: 'sa', apiVersion: 'v1', namespaced: 'true', kind: 'ServiceAccount' },
    { name: 'events', shortNames: 'ev', apiVersion: 'v1', namespaced: 'true', kind: 'Event' },
    { name: 'leases', shortNames: '', apiVersion: 'coordination.k8s.io/v1', namespaced: 'true', kind: 'Lease' },
  ];
  for (const row of expected) {
    assert.deepEqual(find(row.name, row.apiVersion), row, `row for ${row.name} in:\n${stdout}`);
  }
});

void test('kubectl api-resources filters by scope and group', async () => {
  const clusterScoped = await cluster.kubectl().ok(['api-resources', '--namespaced=false', '-o', 'name']);
  const names = clusterScoped.trim().split('\n');
  assert.ok(names.includes('namespaces'), clusterScoped);
  assert.ok(!names.includes('configmaps'), clusterScoped);

  const coordination = await cluster.kubectl().ok(['api-resources', '--api-group=coordination.k8s.io', '-o', 'name']);
  assert.deepEqual(coordination.trim().split('\n'), ['leases.coordination.k8s.io']);
});
