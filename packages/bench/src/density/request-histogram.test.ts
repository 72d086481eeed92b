import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { histogramQuantile, parseRequestHistograms, subtractHistograms } from './request-histogram.js';
import { apiCallLatencies, sloMs } from './density-scenario.js';
import { parseDensityOptions } from './density-command.js';

/** A /metrics excerpt as kube-apiserver writes it (two series, buckets cut short). */
function metrics(postPods: number[], listNodes: number[]): string {
  const series = (labels: string, counts: number[]) => {
    const les = ['0.005', '0.1', '1', '+Inf'];
    return [
      ...les.map((le, i) => `apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",${labels},subresource="",version="v1",le="${le}"} ${counts[i]}`),
      `apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="",${labels},subresource="",version="v1"} 1.5`,
      `apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",${labels},subresource="",version="v1"} ${counts.at(-1)}`,
    ];
  };
  return [
    '# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    '# TYPE apiserver_request_duration_seconds histogram',
    ...series('resource="pods",scope="resource",verb="POST"', postPods),
    ...series('resource="nodes",scope="cluster",verb="LIST"', listNodes),
    ...series('resource="pods",scope="namespace",verb="WATCH"', [0, 0, 0, 5]),
    'apiserver_request_total{code="201",resource="pods",verb="POST"} 9',
  ].join('\n');
}

void describe('the density scenario\'s API call latency', () => {
  void it('reads kube\'s histogram, subtracts two scrapes and takes the p99 as Prometheus does', () => {
    const before = parseRequestHistograms(metrics([10, 10, 10, 10], [0, 0, 0, 0]));
    const after = parseRequestHistograms(metrics([10, 100, 110, 110], [0, 50, 100, 100]));
    const delta = subtractHistograms(after, before);
    const post = delta.find((h) => h.verb === 'POST')!;
    assert.equal(post.count, 100);
    assert.deepEqual(post.buckets.map((b) => b.count), [0, 90, 100, 100]);
    // rank 99 of 100: in (0.1, 1], 9 of its 10 observations → 0.1 + 0.9 × 0.9.
    assert.ok(Math.abs(histogramQuantile(0.99, post) - 0.91) < 1e-9);
    const rows = apiCallLatencies(delta);
    assert.deepEqual(rows.map((r) => `${r.verb} ${r.resource} ${r.scope}`), ['POST pods resource', 'LIST nodes cluster'], 'WATCH is left out, as in kube\'s SLO');
    assert.equal(rows[1]!.sloMs, 30_000);
    assert.equal(sloMs('LIST', 'namespace'), 5000);
    assert.equal(sloMs('PATCH', 'resource'), 1000);
  });

  void it('puts a quantile in the +Inf bucket at the largest finite bound', () => {
    const h = { verb: 'GET', group: '', resource: 'pods', subresource: '', scope: 'resource', buckets: [{ le: 1, count: 0 }, { le: Infinity, count: 4 }], count: 4, sum: 9 };
    assert.equal(histogramQuantile(0.99, h), 1);
    assert.ok(Number.isNaN(histogramQuantile(0.99, { ...h, buckets: [{ le: 1, count: 0 }, { le: Infinity, count: 0 }] })));
  });
});

void describe('kapi-bench density options', () => {
  const defaults = { outDir: '/out', workDir: '/work' };
  void it('defaults to clusterloader2\'s size and both servers; takes a development size', () => {
    const o = parseDensityOptions([], defaults);
    assert.equal(o.nodes, 100);
    assert.equal(o.pods, 3000);
    assert.deepEqual(o.servers, ['kapi', 'kube-apiserver']);
    const small = parseDensityOptions(['--nodes', '10', '--pods=200', '--servers=kapi', '--keep'], defaults);
    assert.deepEqual([small.nodes, small.pods, small.servers, small.keep], [10, 200, ['kapi'], true]);
  });
  void it('refuses bad sizes and unknown options', () => {
    assert.throws(() => parseDensityOptions(['--pods=0'], defaults), /--pods must be a positive integer, got 0/);
    assert.throws(() => parseDensityOptions(['--nodes=1', '--pods=200'], defaults), /do not fit on 1 nodes/);
    assert.throws(() => parseDensityOptions(['--servers=etcd'], defaults), /unknown server etcd/);
    assert.throws(() => parseDensityOptions(['--replicas=3'], defaults), /unknown option --replicas/);
  });
});
