import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import type { Registry } from '../../registry.js';
import { inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/registry-fixture.js';

const ns = inNamespace('default');
const template = { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } };
const spec = (o: KubeObject) => o['spec'] as Record<string, unknown>;

void describe('workload strategies (apps, batch, policy, core rc)', () => {
  let fx: Fixture;
  let registry: Registry;
  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('a Deployment: defaults on create, generation on spec change, status kept on update and reset through /status checks', async () => {
    const deployments = resource(registry, 'deployments', 'apps');
    const created = await deployments.creater.create(ns, { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'w' } }, template } }, {});
    assert.deepEqual(spec(created)['strategy'], { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec(created)['replicas'], 1);
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created['status'], {});
    const { object: updated } = await deployments.updater.update(ns, 'd', { ...created, spec: { ...spec(created), replicas: 2 }, status: { replicas: 9 } }, {});
    assert.equal(updated.metadata.generation, 2);
    assert.deepEqual(updated['status'], {});
    const status = await rejectsWithStatus(
      deployments.subresources!.get('status')!.updater!.update(ns, 'd', { ...updated, status: { replicas: 1, readyReplicas: 2 } }, {}),
      { code: 422 },
    );
    assert.equal(status.message, 'Deployment.apps "d" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas');
    const moved = await rejectsWithStatus(
      deployments.updater.update(ns, 'd', { ...updated, spec: { ...spec(updated), selector: { matchLabels: { app: 'w', x: 'y' } }, template: { ...template, metadata: { labels: { app: 'w', x: 'y' } } } } }, {}),
      { code: 422 },
    );
    assert.equal(
      moved.message,
      'Deployment.apps "d" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"w", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });

  void it('/scale: the Scale view, a negative count refused as a Scale, the deployment\'s generation bumped', async () => {
    const deployments = resource(registry, 'deployments', 'apps');
    await deployments.creater.create(ns, { metadata: { name: 's' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['w'] }] }, template } }, {});
    const scale = deployments.subresources!.get('scale')!;
    const got = await scale.getter!.get(ns, 's', {});
    assert.deepEqual({ spec: got['spec'], status: got['status'], kind: got.kind }, { spec: { replicas: 1 }, status: { replicas: 0, selector: 'app in (w)' }, kind: 'Scale' });
    const { object } = await scale.updater!.update(ns, 's', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's' }, spec: { replicas: 4 } }, {});
    assert.deepEqual(object['spec'], { replicas: 4 });
    assert.equal((await deployments.getter.get(ns, 's', {})).metadata.generation, 2);
    const negative = await rejectsWithStatus(scale.updater!.update(ns, 's', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's' }, spec: { replicas: -1 } }, {}), { code: 422 });
    assert.equal(negative.message, 'Scale.autoscaling "s" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    await rejectsWithStatus(scale.getter!.get(ns, 'missing', {}), { code: 404, message: 'deployments/scale.apps "missing" not found' });
  });

  void it('a Job: the generated selector and labels, restartPolicy required, spec.completions immutable', async () => {
    const jobs = resource(registry, 'jobs', 'batch');
    const created = await jobs.creater.create(ns, { metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } }, {});
    const uid = created.metadata.uid!;
    assert.deepEqual(spec(created)['selector'], { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.deepEqual(created.metadata.labels, { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'j', 'controller-uid': uid, 'job-name': 'j' });
    assert.equal(spec(created)['backoffLimit'], 6);
    const noPolicy = await rejectsWithStatus(jobs.creater.create(ns, { metadata: { name: 'j2' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } }, {}), { code: 422 });
    assert.equal(noPolicy.message, 'Job.batch "j2" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
    const changed = await rejectsWithStatus(jobs.updater.update(ns, 'j', { ...created, spec: { ...spec(created), completions: 5 } }, {}), { code: 422 });
    assert.equal(changed.message, 'Job.batch "j" is invalid: spec.completions: Invalid value: 5: field is immutable');
    const templateChange = (o: KubeObject) => ({ ...o, spec: { ...spec(o), template: { ...(spec(o)['template'] as object), spec: { ...((spec(o)['template'] as Record<string, unknown>)['spec'] as object), nodeSelector: { zone: 'a' } } } } });
    await rejectsWithStatus(jobs.updater.update(ns, 'j', templateChange(created), {}), { code: 422 });
    // Suspended and never started: the pods' scheduling directives may change.
    const suspended = await jobs.creater.create(ns, { metadata: { name: 'js' }, spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } }, {});
    const { object: moved } = await jobs.updater.update(ns, 'js', templateChange(suspended), {});
    assert.deepEqual(((spec(moved)['template'] as Record<string, unknown>)['spec'] as Record<string, unknown>)['nodeSelector'], { zone: 'a' });
  });

  void it('a DaemonSet keeps the template generation annotation; a StatefulSet refuses changes outside its mutable fields', async () => {
    const daemonSets = resource(registry, 'daemonsets', 'apps');
    const ds = await daemonSets.creater.create(ns, { metadata: { name: 'ds' }, spec: { selector: { matchLabels: { app: 'w' } }, template } }, {});
    assert.equal(ds.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
    const newTemplate = { ...template, spec: { ...template.spec, containers: [{ name: 'c', image: 'img:2' }] } };
    const { object: bumped } = await daemonSets.updater.update(ns, 'ds', { ...ds, spec: { ...spec(ds), template: newTemplate } }, {});
    assert.equal(bumped.metadata.annotations?.['deprecated.daemonset.template.generation'], '2');

    const statefulSets = resource(registry, 'statefulsets', 'apps');
    const sts = await statefulSets.creater.create(ns, { metadata: { name: 'sts' }, spec: { selector: { matchLabels: { app: 'w' } }, serviceName: 'a', template } }, {});
    assert.deepEqual(sts['status'], { replicas: 0, availableReplicas: 0 });
    const forbidden = await rejectsWithStatus(statefulSets.updater.update(ns, 'sts', { ...sts, spec: { ...spec(sts), serviceName: 'b' } }, {}), { code: 422 });
    assert.match(forbidden.message ?? '', /spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden/);
  });

  void it('a ReplicationController takes its selector and labels from the template; PDB and CronJob validation', async () => {
    const rcs = resource(registry, 'replicationcontrollers');
    const rc = await rcs.creater.create(ns, { metadata: { name: 'rc' }, spec: { template } }, {});
    assert.deepEqual(spec(rc)['selector'], { app: 'w' });
    assert.deepEqual(rc.metadata.labels, { app: 'w' });
    assert.deepEqual(rc['status'], { replicas: 0 });
    const pdbs = resource(registry, 'poddisruptionbudgets', 'policy');
    const pdb = await rejectsWithStatus(pdbs.creater.create(ns, { metadata: { name: 'p' }, spec: { minAvailable: '120%' } }, {}), { code: 422 });
    assert.equal(pdb.message, 'PodDisruptionBudget.policy "p" is invalid: spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%');
    const cronJobs = resource(registry, 'cronjobs', 'batch');
    const cj = await rejectsWithStatus(
      cronJobs.creater.create(ns, { metadata: { name: 'c' }, spec: { schedule: 'TZ=UTC * * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } } } } }, {}),
      { code: 422 },
    );
    assert.equal(cj.message, 'CronJob.batch "c" is invalid: spec.schedule: Invalid value: "TZ=UTC * * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  });

  void it('a ControllerRevision keeps its data as sent, nulls included (a DaemonSet compares it with its template patch byte for byte)', async () => {
    const revisions = resource(registry, 'controllerrevisions', 'apps');
    const data = { spec: { template: { $patch: 'replace', metadata: { creationTimestamp: null, labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'i', resources: {} }] } } } };
    const created = await revisions.creater.create(ns, { metadata: { name: 'r', creationTimestamp: null }, revision: 1, data }, {});
    assert.deepEqual(created['data'], data);
    assert.equal(typeof created.metadata.creationTimestamp, 'string', 'nulls outside data are still dropped');
    assert.deepEqual((await revisions.getter.get(ns, 'r', {}))['data'], data);
  });
});

void describe('horizontal pod autoscalers (autoscaling/v2)', () => {
  let fx: Fixture;
  let registry: Registry;
  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('defaults the CPU target, minReplicas and a given behavior; validates the replica bounds', async () => {
    const hpas = resource(registry, 'horizontalpodautoscalers', 'autoscaling', 'v2');
    const created = await hpas.creater.create(ns, { metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, behavior: { scaleUp: { selectPolicy: 'Min' } } } }, {});
    assert.deepEqual(spec(created)['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    assert.equal(spec(created)['minReplicas'], 1);
    assert.deepEqual(spec(created)['behavior'], {
      scaleUp: { selectPolicy: 'Min', stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    assert.deepEqual(created['status'], { desiredReplicas: 0 });
    const bad = await rejectsWithStatus(hpas.creater.create(ns, { metadata: { name: 'h2' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 0, maxReplicas: 0 } }, {}), { code: 422 });
    assert.equal(
      bad.message,
      'HorizontalPodAutoscaler.autoscaling "h2" is invalid: [spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas]',
    );
  });
});

void describe('autoscaling/v1 HorizontalPodAutoscalers over the stored v2 form', () => {
  let fx: Fixture;
  let registry: Registry;
  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('reads v2 fields v1 cannot hold as kube\'s annotations, and a v1 write brings them back', async () => {
    const v2 = resource(registry, 'horizontalpodautoscalers', 'autoscaling', 'v2');
    const v1 = resource(registry, 'horizontalpodautoscalers', 'autoscaling', 'v1');
    const created = await v2.creater.create(
      ns,
      {
        metadata: { name: 'h' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 5,
          metrics: [
            { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
          ],
          behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
        },
      },
      {},
    );
    const asV1 = await v1.getter.get(ns, 'h', {});
    assert.equal(asV1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(asV1['spec'], { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    assert.deepEqual(asV1.metadata.annotations, {
      'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]',
      'autoscaling.alpha.kubernetes.io/behavior':
        '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}]}}',
    });
    await v1.updater.update(ns, 'h', asV1, {});
    const back = await v2.getter.get(ns, 'h', {});
    assert.deepEqual(spec(back)['behavior'], spec(created)['behavior']);
    assert.deepEqual(back.metadata.annotations, undefined);
    // kube's conversion puts the CPU target after the other metrics (here: where it was).
    assert.deepEqual(spec(back)['metrics'], spec(created)['metrics']);
    const made = await v1.creater.create(ns, { metadata: { name: 'plain' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2 } }, {});
    assert.deepEqual(made['spec'], { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 2, targetCPUUtilizationPercentage: 80 });
  });
});
