import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, customResourceDefinitions } from '@kapi/registry';
import { parseFlags } from './flags.js';
import { applyRuntimeConfig, resolveRuntimeConfig } from './runtime-config.js';
import { deprecationOf, isDeprecated } from './deprecation.js';

const all = [...builtinDefinitions, customResourceDefinitions];
const served = (config: Record<string, string>) =>
  applyRuntimeConfig(all, resolveRuntimeConfig(all, config))
    .flatMap((d) => d.versions.filter((v) => v.served).map((v) => `${d.group}/${v.name}/${d.plural}`))
    .sort();

void describe('--runtime-config', () => {
  void it('defaults: kube 1.32\'s, so every version kapi has but the betas kube removed (issue 23)', () => {
    const every = all.flatMap((d) => d.versions.map((v) => `${d.group}/${v.name}/${d.plural}`)).sort();
    const removed = ['coordination.k8s.io/v1beta1/leases', 'events.k8s.io/v1beta1/events'];
    for (const key of removed) assert.ok(every.includes(key), key);
    assert.deepEqual(served({}), every.filter((key) => !removed.includes(key)));
    for (const key of ['/v1/configmaps', 'apps/v1/deployments', 'apiextensions.k8s.io/v1/customresourcedefinitions']) assert.ok(served({}).includes(key), key);
    // Turned on by their key, or with every beta.
    assert.ok(served({ 'coordination.k8s.io/v1beta1': 'true' }).includes('coordination.k8s.io/v1beta1/leases'));
    assert.ok(!served({ 'coordination.k8s.io/v1beta1': 'true' }).includes('events.k8s.io/v1beta1/events'));
    assert.deepEqual(served({ 'api/beta': 'true' }), every);
  });

  void it('api/* first (in all, ga, beta, alpha order), then group versions, then resources', () => {
    assert.deepEqual(served({ 'api/all': 'false', 'api/beta': 'true' }), ['coordination.k8s.io/v1beta1/leases', 'events.k8s.io/v1beta1/events']);
    assert.deepEqual(served({ 'api/all': 'false', 'events.k8s.io/v1': 'true', 'v1/secrets': '' }), ['/v1/secrets', 'events.k8s.io/v1/events']);
    assert.deepEqual(served({ 'api/ga': 'false', 'api/beta': 'false', 'coordination.k8s.io/v1beta1/leases': 'true' }), ['coordination.k8s.io/v1beta1/leases']);
    assert.ok(!served({ 'events.k8s.io/v1beta1': 'false' }).includes('events.k8s.io/v1beta1/events'));
    assert.ok(!served({ v1: 'false' }).includes('/v1/configmaps'));
    assert.ok(!served({ '/v1': 'false' }).includes('/v1/secrets'));
    assert.deepEqual(
      served({}).filter((key) => !served({ 'batch/v1': 'false', 'apps/v1/deployments': 'true' }).includes(key)),
      ['batch/v1/cronjobs', 'batch/v1/jobs'],
    );
    // kube's groups that kapi does not serve are accepted and ignored.
    assert.deepEqual(served({ 'storagemigration.k8s.io/v1alpha1': 'true', 'resource.k8s.io/v1beta1/resourceslices': 'true' }), served({}));
  });

  void it('fails startup with kube\'s texts', () => {
    const fails = (config: Record<string, string>, message: string) => {
      const flags = ['--etcd-servers=http://127.0.0.1:2379', `--runtime-config=${Object.entries(config).map(([k, v]) => `${k}=${v}`).join(',')}`];
      assert.throws(() => parseFlags(flags), { message });
    };
    fails({ 'api/all': 'yes' }, 'invalid value api/all=yes');
    fails({ 'api/all': 'false' }, 'invalid key with only api/all=false');
    fails({ apiall: 'false' }, 'runtime-config invalid key apiall');
    fails({ 'example.com/v1': 'true', 'api/v1': 'true' }, 'unknown api groups example.com,api');
    fails({ 'events.k8s.io/v2': 'true' }, 'group version events.k8s.io/v2 that has not been registered');
    fails({ 'events.k8s.io/v1': 'maybe' }, 'invalid value of events.k8s.io/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    fails({ 'events.k8s.io/v1/Events': 'false' }, 'invalid key events.k8s.io/v1/Events: group/version/resource and resource is always lowercase plural, not "Events"');
    assert.deepEqual((parseFlags(['--etcd-servers=http://127.0.0.1:2379', '--runtime-config=api/beta=false']) as { runtimeConfig: unknown }).runtimeConfig, { 'api/beta': 'false' });
  });
});

void describe('deprecation', () => {
  const leases = builtinDefinitions.find((d) => d.plural === 'leases')!;
  const v1beta1 = leases.versions.find((v) => v.name === 'v1beta1')!;

  void it('kube\'s warning text from the version\'s lifecycle; a CRD\'s own text wins', () => {
    assert.deepEqual(deprecationOf(leases, v1beta1), {
      warning: 'coordination.k8s.io/v1beta1 Lease is deprecated in v1.19+, unavailable in v1.22+; use coordination.k8s.io/v1 Lease',
      removedRelease: '1.22',
    });
    assert.equal(deprecationOf(leases, leases.versions[0]!), undefined);
    assert.deepEqual(deprecationOf(leases, { ...v1beta1, deprecated: { warning: 'go away' } }), { warning: 'go away', removedRelease: '' });
    assert.deepEqual(deprecationOf(leases, { ...v1beta1, deprecated: {} }), { warning: 'coordination.k8s.io/v1beta1 Lease is deprecated', removedRelease: '' });
  });

  void it('relative to the emulated version: deprecated in a later release is not deprecated yet', () => {
    assert.equal(isDeprecated(v1beta1, [1, 32]), true);
    assert.equal(isDeprecated(v1beta1, [1, 19]), true);
    assert.equal(isDeprecated(v1beta1, [1, 18]), false);
  });
});
