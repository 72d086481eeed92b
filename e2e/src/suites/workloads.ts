/**
 * kubectl's workload commands against a target, as kube-apiserver 1.32 answers them with no
 * controller running: `create deployment` (kube's defaults), `scale` through /scale,
 * `rollout history` (no ReplicaSets or ControllerRevisions yet), `get all` and the Table
 * columns of deploy, rs, sts, ds, job, cronjob, pdb and rc (default and -o wide).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TargetRef } from './targets.js';

const ns = 'suite-workloads';

const template = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
const objects = [
  { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { selector: { matchLabels: { a: 'b' } }, serviceName: 's', template } },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template } },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { selector: { matchLabels: { a: 'b' } }, template } },
  { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { template } },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec: { minAvailable: 1, selector: { matchLabels: { a: 'b' } } } },
];

/** A table as cells per line (kubectl pads with 3+ spaces), AGE cells and the Job's uid made stable. */
function stable(table: string): string {
  return table
    .split('\n')
    .map((line) =>
      line
        .trimEnd()
        .split(/ {2,}/)
        .map((cell) => (/^\d+(s|m(\d+s)?|h(\d+m)?|d)$/.test(cell) ? 'AGE' : cell.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UID')))
        .join(' | '),
    )
    .join('\n');
}

export function workloadsSuite(target: TargetRef): void {
  void describe('kubectl workloads', () => {
    void it('create deployment answers with kube\'s defaults; scale goes through /scale', async () => {
      const kubectl = target().kubectl();
      await kubectl.ok(['create', 'namespace', ns]);
      const created = await kubectl.json<{ spec: Record<string, unknown>; status: unknown; metadata: { generation: number } }>(['create', 'deployment', 'web', '--image=nginx:1.25', '-n', ns]);
      assert.deepEqual(created.spec, {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx:1.25', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
            restartPolicy: 'Always',
            terminationGracePeriodSeconds: 30,
            dnsPolicy: 'ClusterFirst',
            securityContext: {},
            schedulerName: 'default-scheduler',
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      });
      assert.deepEqual(created.status, {});
      assert.equal(created.metadata.generation, 1);

      assert.equal(await kubectl.ok(['scale', 'deployment', 'web', '--replicas=3', '-n', ns]), 'deployment.apps/web scaled\n');
      assert.equal(await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas} {.metadata.generation}']), '3 2');
      const scale = JSON.parse(await kubectl.ok(['get', '--raw', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`])) as Record<string, unknown>;
      assert.deepEqual({ ...scale, metadata: undefined }, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: undefined, spec: { replicas: 3 }, status: { replicas: 0, selector: 'app=web' } });
      // A Scale's resourceVersion is a precondition on the Deployment.
      const body = JSON.stringify({ ...scale, metadata: { ...(scale['metadata'] as object), resourceVersion: '1' }, spec: { replicas: 1 } });
      const stale = await kubectl.run(['replace', '--raw', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, '-f', '-'], body);
      assert.equal(stale.code, 1);
      assert.match(stale.stderr, /Error from server \(Conflict\): Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again/);
    });

    void it('rollout history, get all and the Table columns of every workload kind, as kube prints them', async () => {
      const kubectl = target().kubectl();
      for (const obj of objects) await kubectl.ok(['create', '-n', ns, '-f', '-'], JSON.stringify(obj));
      await kubectl.ok(['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '-n', ns]);
      await kubectl.ok(['create', 'job', 'j', '--image=busybox', '-n', ns]);
      for (const kind of ['rs/r', 'sts/s', 'rc/rc']) assert.match(await kubectl.ok(['scale', kind, '--replicas=2', '-n', ns]), / scaled\n$/);

      for (const kind of ['deploy/web', 'sts/s', 'ds/d']) {
        const name = { 'deploy/web': 'deployment.apps/web', 'sts/s': 'statefulset.apps/s', 'ds/d': 'daemonset.apps/d' }[kind];
        assert.equal(await kubectl.ok(['rollout', 'history', kind, '-n', ns]), `${name} \nNo rollout history found.\n`);
      }

      const tables = stable(await kubectl.ok(['get', 'deploy,rs,sts,ds,job,cronjob,pdb,rc', '-n', ns]));
      assert.equal(
        tables,
        [
          'NAME | READY | UP-TO-DATE | AVAILABLE | AGE',
          'deployment.apps/web | 0/3 | 0 | 0 | AGE',
          '',
          'NAME | DESIRED | CURRENT | READY | AGE',
          'replicaset.apps/r | 2 | 0 | 0 | AGE',
          '',
          'NAME | READY | AGE',
          'statefulset.apps/s | 0/2 | AGE',
          '',
          'NAME | DESIRED | CURRENT | READY | UP-TO-DATE | AVAILABLE | NODE SELECTOR | AGE',
          'daemonset.apps/d | 0 | 0 | 0 | 0 | 0 | <none> | AGE',
          '',
          'NAME | STATUS | COMPLETIONS | DURATION | AGE',
          'job.batch/j | Running | 0/1 | AGE',
          '',
          'NAME | SCHEDULE | TIMEZONE | SUSPEND | ACTIVE | LAST SCHEDULE | AGE',
          'cronjob.batch/cj | */5 * * * * | <none> | False | 0 | <none> | AGE',
          '',
          'NAME | MIN AVAILABLE | MAX UNAVAILABLE | ALLOWED DISRUPTIONS | AGE',
          'poddisruptionbudget.policy/p | 1 | N/A | 0 | AGE',
          '',
          'NAME | DESIRED | CURRENT | READY | AGE',
          'replicationcontroller/rc | 2 | 0 | 0 | AGE',
          '',
        ].join('\n'),
      );
      const wide = stable(await kubectl.ok(['get', 'deploy,job,cronjob,ds', '-n', ns, '-o', 'wide']));
      for (const line of [
        'NAME | READY | UP-TO-DATE | AVAILABLE | AGE | CONTAINERS | IMAGES | SELECTOR',
        'deployment.apps/web | 0/3 | 0 | 0 | AGE | nginx | nginx:1.25 | app=web',
        'NAME | STATUS | COMPLETIONS | DURATION | AGE | CONTAINERS | IMAGES | SELECTOR',
        'job.batch/j | Running | 0/1 | AGE | j | busybox | batch.kubernetes.io/controller-uid=UID',
        'cronjob.batch/cj | */5 * * * * | <none> | False | 0 | <none> | AGE | cj | busybox | <none>',
        'daemonset.apps/d | 0 | 0 | 0 | 0 | 0 | <none> | AGE | c | x | a=b',
      ]) {
        assert.ok(wide.split('\n').includes(line), `${line}\nnot in\n${wide}`);
      }

      // `get all`: the `all` category of the workload kinds kube lists (no pods or services here).
      const all = await kubectl.ok(['get', 'all', '-n', ns, '-o', 'name']);
      assert.equal(
        all.split('\n').filter((l) => l !== '').sort().join('\n'),
        ['cronjob.batch/cj', 'daemonset.apps/d', 'deployment.apps/web', 'job.batch/j', 'replicaset.apps/r', 'replicationcontroller/rc', 'statefulset.apps/s'].join('\n'),
      );

      assert.equal(await kubectl.ok(['get', 'jobs', '-n', ns, '--field-selector=status.successful=0', '-o', 'name']), 'job.batch/j\n');
      const badField = await kubectl.run(['get', 'jobs', '-n', ns, '--field-selector=foo=1']);
      assert.match(badField.stderr, /field label "foo" not supported for Job/);
      await kubectl.ok(['delete', 'namespace', ns, '--wait=false']);
    });
  });
}
