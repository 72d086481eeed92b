/**
 * `make e2e-control-plane`: kube-controller-manager, kube-scheduler (v1.32.13) and kwok (v0.8.0)
 * run unchanged on two kapi replicas behind kapi-lb, and the workloads users run converge —
 * every scenario asserts counts, phases, nodes, addresses and bindings, not just exit codes.
 * Not part of `make test`'s file walk (it is not a `*.test.js`): it needs the binaries of
 * e2e/control-plane/build-binaries.sh and takes minutes. On failure the run directory (every
 * process's log, kubeconfigs) is kept and its path printed (`KAPI_CP_KEEP=1`: always).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { eventually, startControlPlane, type ControlPlane } from './control-plane.js';
import { allRunning, deployment, yamlStream, livePods, spread, summary, type List, type Pod } from './scenarios.js';

const NS = 'cp-workloads';
const IMAGE_1 = 'registry.k8s.io/pause:3.9';
const IMAGE_2 = 'registry.k8s.io/pause:3.10';
const MINUTE = 60_000;

let cp: ControlPlane;
let failed = false;

/** A scenario: marks the run failed (so the evidence is kept) when it throws. */
function scenario(name: string, fn: (t: TestContext) => Promise<void>, timeoutMs = 10 * MINUTE): void {
  void test(name, { timeout: timeoutMs }, async (t) => {
    const started = Date.now();
    try {
      await fn(t);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      t.diagnostic(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  });
}

const kubectl = () => cp.kubectl();
const apply = (objects: unknown[]) => kubectl().ok(['apply', '-f', '-'], yamlStream(objects));

/**
 * A StatefulSet or DaemonSet stays on the one ControllerRevision it made: its revision's
 * `data` comes back as the controller wrote it (otherwise it sees a hash collision, bumps
 * status.collisionCount and makes revision after revision, rolling its pods forever).
 */
async function settledOnOneRevision(kind: 'statefulset' | 'daemonset', name: string, selector: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 5000));
  const revisions = await kubectl().json<List<Named>>(['get', 'controllerrevisions', '-n', NS, '-l', selector]);
  assert.equal(revisions.items.length, 1, `${kind} ${name} made ${revisions.items.length} revisions: ${revisions.items.map((r) => r.metadata.name).join(' ')}`);
  const status = (await kubectl().json<{ status: { collisionCount?: number; currentRevision?: string; updateRevision?: string } }>(['get', kind, name, '-n', NS])).status;
  assert.equal(status.collisionCount ?? 0, 0, `${kind} ${name}: collisionCount ${status.collisionCount}`);
  if (kind === 'statefulset') assert.equal(status.currentRevision, status.updateRevision);
}

interface Named {
  metadata: { name: string; ownerReferences?: { kind: string; name: string; uid: string }[]; deletionTimestamp?: string };
}

void describe('a real control plane on kapi', { timeout: 60 * MINUTE }, () => {
  before(async () => {
    const started = Date.now();
    cp = await startControlPlane({ nodes: 10 });
    process.stderr.write(`control plane up in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${cp.dir}\n`);
  });

  after(async () => {
    if (!cp) return;
    for (const c of [cp.controllerManager, cp.scheduler, cp.kwok]) {
      if (c.unexpectedExits.length > 0) process.stderr.write(`${c.name} exited on its own (and was restarted): ${c.unexpectedExits.join('; ')}\n`);
    }
    // KAPI_CP_KEEP=1 keeps the logs of a passing run too.
    const keep = failed || process.env.KAPI_CP_KEEP === '1';
    await cp.stop({ keep });
    if (keep) process.stderr.write(`e2e-control-plane ${failed ? 'failed' : 'passed'}: the logs of every process are in ${cp.dir}\n`);
  });

  scenario('kwok brings the 10 nodes Ready and holds their leases', async () => {
    await eventually('10 Ready nodes', 3 * MINUTE, async () => {
      const nodes = await kubectl().json<List<{ metadata: { name: string }; status: { conditions?: { type: string; status: string }[] } }>>(['get', 'nodes']);
      const readyNodes = nodes.items.filter((n) => n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return readyNodes.length === cp.nodeNames.length ? readyNodes : `${readyNodes.length}/${nodes.items.length} nodes Ready`;
    });
    await eventually('a lease per node', MINUTE, async () => {
      const leases = await kubectl().json<List<Named>>(['get', 'leases', '-n', 'kube-node-lease']);
      const names = leases.items.map((l) => l.metadata.name).sort();
      return JSON.stringify(names) === JSON.stringify([...cp.nodeNames].sort()) ? true : `leases: ${names.join(' ')}`;
    });
    // Both leader-elected components hold their lease.
    for (const lease of ['kube-controller-manager', 'kube-scheduler']) {
      await eventually(`${lease} lease`, 2 * MINUTE, async () => {
        const l = await kubectl().json<{ spec: { holderIdentity?: string } }>(['get', 'lease', lease, '-n', 'kube-system']);
        return l.spec.holderIdentity ? true : 'no holder yet';
      });
    }
    await kubectl().ok(['create', 'namespace', NS]);
    // KCM's service account and root CA controllers fill the new namespace.
    await eventually('default ServiceAccount and kube-root-ca.crt', MINUTE, async () => {
      const sa = await kubectl().run(['get', 'serviceaccount', 'default', '-n', NS]);
      const cm = await kubectl().run(['get', 'configmap', 'kube-root-ca.crt', '-n', NS]);
      return sa.code === 0 && cm.code === 0 ? true : `serviceaccount: ${sa.stderr.trim()} configmap: ${cm.stderr.trim()}`;
    });
  });

  scenario('a Deployment of 100 replicas reaches 100 Running pods spread over the nodes', async () => {
    await apply([deployment('web', NS, 100, IMAGE_1)]);
    const pods = await eventually('100 Running pods', 8 * MINUTE, () =>
      allRunning(kubectl(), NS, 'app=web', 100, (p) => (spread(p).size === cp.nodeNames.length ? undefined : `on ${spread(p).size} nodes only`)), 2000);
    const byNode = spread(pods);
    assert.deepEqual([...byNode.keys()].sort(), [...cp.nodeNames].sort());
    assert.ok(Math.max(...byNode.values()) <= 25, `uneven spread: ${JSON.stringify(Object.fromEntries(byNode))}`);
    assert.equal(new Set(pods.map((p) => p.status.podIP)).size, 100, 'every pod has its own IP');
    const d = await kubectl().json<{ status: { availableReplicas?: number; readyReplicas?: number } }>(['get', 'deployment', 'web', '-n', NS]);
    await eventually('deployment status', MINUTE, async () => {
      const s = (await kubectl().json<{ status: { availableReplicas?: number } }>(['get', 'deployment', 'web', '-n', NS])).status;
      return s.availableReplicas === 100 ? true : `availableReplicas ${s.availableReplicas}`;
    });
    assert.ok(d.status !== undefined);
  });

  scenario('a rolling update to a new image completes', async () => {
    await kubectl().ok(['set', 'image', 'deployment/web', `app=${IMAGE_2}`, '-n', NS]);
    await kubectl().ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=8m']);
    const pods = await eventually('100 pods of the new image', 3 * MINUTE, () =>
      allRunning(kubectl(), NS, 'app=web', 100, (p) => {
        const old = p.filter((x) => x.spec.containers[0]!.image !== IMAGE_2).length;
        return old === 0 ? undefined : `${old} pods still run the old image`;
      }), 2000);
    assert.equal(pods.length, 100);
    const sets = await kubectl().json<List<{ spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }>>(['get', 'replicasets', '-n', NS, '-l', 'app=web']);
    assert.deepEqual(sets.items.map((rs) => `${rs.spec.template.spec.containers[0]!.image}=${rs.spec.replicas}`).sort(), [`${IMAGE_1}=0`, `${IMAGE_2}=100`].sort());
  });

  scenario('scale to 0 and back to 100', async () => {
    await kubectl().ok(['scale', 'deployment/web', '--replicas=0', '-n', NS]);
    await eventually('no pods', 5 * MINUTE, async () => {
      const all = (await kubectl().json<List<Pod>>(['get', 'pods', '-n', NS, '-l', 'app=web'])).items;
      return all.length === 0 ? true : summary(all);
    }, 2000);
    await kubectl().ok(['scale', 'deployment/web', '--replicas=100', '-n', NS]);
    await eventually('100 Running pods again', 8 * MINUTE, () => allRunning(kubectl(), NS, 'app=web', 100), 2000);
  });

  scenario('kubectl rollout undo returns to the previous image', async () => {
    await kubectl().ok(['rollout', 'undo', 'deployment/web', '-n', NS]);
    await kubectl().ok(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=8m']);
    await eventually('100 pods of the first image', 3 * MINUTE, () =>
      allRunning(kubectl(), NS, 'app=web', 100, (p) => {
        const other = p.filter((x) => x.spec.containers[0]!.image !== IMAGE_1).length;
        return other === 0 ? undefined : `${other} pods run another image`;
      }), 2000);
    const history = await kubectl().ok(['rollout', 'history', 'deployment/web', '-n', NS]);
    assert.match(history, /\b3\b/, `history after undo:\n${history}`);
  });

  scenario('a Service gets a ClusterIP and KCM fills its EndpointSlices with the ready pods', async () => {
    await kubectl().ok(['expose', 'deployment/web', '--port=80', '--target-port=8080', '-n', NS]);
    const svc = await kubectl().json<{ spec: { clusterIP: string; clusterIPs: string[] } }>(['get', 'service', 'web', '-n', NS]);
    assert.match(svc.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
    const podIPs = (await livePods(kubectl(), NS, 'app=web')).map((p) => p.status.podIP).sort();
    assert.equal(podIPs.length, 100);
    await eventually('EndpointSlices with the 100 pod IPs', 3 * MINUTE, async () => {
      const slices = await kubectl().json<List<{ addressType: string; endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[]; ports?: { port: number }[] }>>(['get', 'endpointslices', '-n', NS, '-l', 'kubernetes.io/service-name=web']);
      const ready = slices.items.flatMap((s) => (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).flatMap((e) => e.addresses)).sort();
      if (JSON.stringify(ready) !== JSON.stringify(podIPs)) return `${slices.items.length} slices with ${ready.length} ready addresses`;
      if (!slices.items.every((s) => s.addressType === 'IPv4' && s.ports?.[0]?.port === 8080)) return 'slices lack IPv4/port 8080';
      return true;
    }, 2000);
    await eventually('Endpoints with the 100 pod IPs', MINUTE, async () => {
      const ep = await kubectl().json<{ subsets?: { addresses?: { ip: string }[] }[] }>(['get', 'endpoints', 'web', '-n', NS]);
      const ips = (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).sort();
      return JSON.stringify(ips) === JSON.stringify(podIPs) ? true : `${ips.length} addresses`;
    }, 2000);
  });

  scenario('a Job runs to completion and a CronJob creates Jobs', async () => {
    await kubectl().ok(['create', 'job', 'once', `--image=${IMAGE_1}`, '-n', NS]);
    const job = await eventually('Job complete', 3 * MINUTE, async () => {
      const j = await kubectl().json<{ status: { succeeded?: number; conditions?: { type: string; status: string }[] } }>(['get', 'job', 'once', '-n', NS]);
      return j.status.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? j : `status ${JSON.stringify(j.status)}`;
    }, 2000);
    assert.equal(job.status.succeeded, 1);
    const jobPods = await kubectl().json<List<Pod>>(['get', 'pods', '-n', NS, '-l', 'job-name=once']);
    assert.deepEqual(jobPods.items.map((p) => p.status.phase), ['Succeeded']);

    await kubectl().ok(['create', 'cronjob', 'tick', `--image=${IMAGE_1}`, '--schedule=* * * * *', '-n', NS]);
    await eventually('a Job of the CronJob completes', 4 * MINUTE, async () => {
      const jobs = await kubectl().json<List<Named & { status: { succeeded?: number } }>>(['get', 'jobs', '-n', NS]);
      const owned = jobs.items.filter((j) => j.metadata.ownerReferences?.some((o) => o.kind === 'CronJob' && o.name === 'tick'));
      return owned.some((j) => j.status.succeeded === 1) ? true : `${owned.length} jobs of the CronJob, none succeeded yet`;
    }, 3000);
    const cron = await kubectl().json<{ status: { lastScheduleTime?: string; lastSuccessfulTime?: string } }>(['get', 'cronjob', 'tick', '-n', NS]);
    assert.ok(cron.status.lastScheduleTime, 'lastScheduleTime is set');
    await kubectl().ok(['patch', 'cronjob', 'tick', '-n', NS, '--type=merge', '-p', '{"spec":{"suspend":true}}']);
  });

  scenario('a StatefulSet binds its volumeClaimTemplates to pre-created PVs', async () => {
    const pvs = [0, 1, 2].map((i) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `cp-pv-${i}`, labels: { e2e: 'control-plane' } },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'manual', hostPath: { path: `/tmp/cp-pv-${i}` } },
    }));
    await apply([
      ...pvs,
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: NS }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] } },
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: NS },
        spec: {
          serviceName: 'db',
          replicas: 3,
          selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: IMAGE_1, volumeMounts: [{ name: 'data', mountPath: '/data' }] }], terminationGracePeriodSeconds: 0 } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'manual', resources: { requests: { storage: '1Gi' } } } }],
        },
      },
    ]);
    await eventually('3 StatefulSet pods Running', 5 * MINUTE, () => allRunning(kubectl(), NS, 'app=db', 3), 2000);
    const claims = await kubectl().json<List<Named & { spec: { volumeName?: string }; status: { phase: string } }>>(['get', 'pvc', '-n', NS]);
    assert.deepEqual(claims.items.map((c) => `${c.metadata.name}:${c.status.phase}`).sort(), ['data-db-0:Bound', 'data-db-1:Bound', 'data-db-2:Bound']);
    assert.deepEqual(claims.items.map((c) => c.spec.volumeName).sort(), ['cp-pv-0', 'cp-pv-1', 'cp-pv-2']);
    const volumes = await kubectl().json<List<Named & { spec: { claimRef?: { name: string; namespace: string } }; status: { phase: string } }>>(['get', 'pv', '-l', 'e2e=control-plane']);
    for (const pv of volumes.items) {
      assert.equal(pv.status.phase, 'Bound', pv.metadata.name);
      assert.equal(pv.spec.claimRef?.namespace, NS);
    }
    await settledOnOneRevision('statefulset', 'db', 'app=db');
  });

  scenario('a DaemonSet puts one pod on each node', async () => {
    await apply([{
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: NS },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: IMAGE_1 }], terminationGracePeriodSeconds: 0 } } },
    }]);
    const pods = await eventually('one agent pod per node', 4 * MINUTE, () => allRunning(kubectl(), NS, 'app=agent', cp.nodeNames.length), 2000);
    assert.deepEqual([...spread(pods).entries()].sort(), cp.nodeNames.map((n) => [n, 1]).sort());
    await eventually('DaemonSet status', MINUTE, async () => {
      const s = (await kubectl().json<{ status: { numberReady?: number; desiredNumberScheduled?: number } }>(['get', 'daemonset', 'agent', '-n', NS])).status;
      return s.numberReady === cp.nodeNames.length && s.desiredNumberScheduled === cp.nodeNames.length ? true : JSON.stringify(s);
    });
    await settledOnOneRevision('daemonset', 'agent', 'app=agent');
  });

  scenario('cordon + drain evicts pods and respects a PodDisruptionBudget', async () => {
    await apply([
      deployment('guarded', NS, 3, IMAGE_1),
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded', namespace: NS }, spec: { minAvailable: 3, selector: { matchLabels: { app: 'guarded' } } } },
    ]);
    const guarded = await eventually('3 guarded pods', 3 * MINUTE, () => allRunning(kubectl(), NS, 'app=guarded', 3), 2000);
    await eventually('PDB status observed', MINUTE, async () => {
      const s = (await kubectl().json<{ status: { currentHealthy?: number; disruptionsAllowed?: number; expectedPods?: number } }>(['get', 'pdb', 'guarded', '-n', NS])).status;
      return s.currentHealthy === 3 && s.expectedPods === 3 && s.disruptionsAllowed === 0 ? true : JSON.stringify(s);
    });
    const node = guarded[0]!.spec.nodeName!;
    // An eviction the budget forbids is refused with 429.
    const refused = await kubectl().run(['create', '--raw', `/api/v1/namespaces/${NS}/pods/${guarded[0]!.metadata.name}/eviction`, '-f', '-'],
      JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: guarded[0]!.metadata.name, namespace: NS } }));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);

    // drain cordons, then cannot finish while the budget holds.
    const blocked = await kubectl().run(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=20s']);
    assert.notEqual(blocked.code, 0, blocked.stdout);
    assert.match(blocked.stderr + blocked.stdout, /disruption budget/);
    const cordoned = await kubectl().json<{ spec: { unschedulable?: boolean } }>(['get', 'node', node]);
    assert.equal(cordoned.spec.unschedulable, true);
    assert.ok((await livePods(kubectl(), NS, 'app=guarded')).some((p) => p.spec.nodeName === node), 'the guarded pod stays while the budget forbids its eviction');

    // With room in the budget the drain finishes: nothing but DaemonSet pods left on the node.
    await kubectl().ok(['patch', 'pdb', 'guarded', '-n', NS, '--type=merge', '-p', '{"spec":{"minAvailable":2}}']);
    await kubectl().ok(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=4m']);
    await eventually(`only DaemonSet pods on ${node}`, 2 * MINUTE, async () => {
      const onNode = (await kubectl().json<List<Pod>>(['get', 'pods', '-A', '--field-selector', `spec.nodeName=${node}`])).items;
      const others = onNode.filter((p) => !p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet'));
      return others.length === 0 ? true : `${others.length} pods left: ${others.map((p) => p.metadata.name).join(' ')}`;
    }, 2000);
    await eventually('3 guarded pods on other nodes', 3 * MINUTE, () =>
      allRunning(kubectl(), NS, 'app=guarded', 3, (p) => (p.some((x) => x.spec.nodeName === node) ? 'a guarded pod is on the drained node' : undefined)), 2000);
    await eventually('web back to 100 after the drain', 5 * MINUTE, () => allRunning(kubectl(), NS, 'app=web', 100, (p) => (p.some((x) => x.spec.nodeName === node) ? 'a web pod is on the drained node' : undefined)), 2000);
    await kubectl().ok(['uncordon', node]);
  });

  scenario('garbage collection removes the ReplicaSets and Pods of a deleted Deployment', async () => {
    const ns = 'cp-gc';
    await kubectl().ok(['create', 'namespace', ns]);
    await apply([deployment('doomed', ns, 10, IMAGE_1)]);
    await eventually('10 doomed pods', 3 * MINUTE, () => allRunning(kubectl(), ns, 'app=doomed', 10), 2000);
    await kubectl().ok(['delete', 'deployment', 'doomed', '-n', ns]);
    await eventually('no ReplicaSets or Pods', 3 * MINUTE, async () => {
      const sets = (await kubectl().json<List<Named>>(['get', 'replicasets', '-n', ns])).items.length;
      const pods = (await kubectl().json<List<Named>>(['get', 'pods', '-n', ns])).items.length;
      return sets === 0 && pods === 0 ? true : `${sets} ReplicaSets, ${pods} Pods left`;
    }, 2000);
  });

  scenario('deleting the namespace with all of the above empties it', async () => {
    await kubectl().ok(['delete', 'namespace', NS, '--wait=false']);
    await eventually(`namespace ${NS} gone`, 6 * MINUTE, async () => {
      const r = await kubectl().run(['get', 'namespace', NS, '-o', 'json']);
      if (r.code !== 0 && /NotFound|not found/.test(r.stderr)) return true;
      const ns = JSON.parse(r.stdout) as { status?: { conditions?: { type: string; message?: string }[] } };
      return `still there: ${JSON.stringify(ns.status?.conditions?.filter((c) => c.message) ?? [])}`;
    }, 3000);
    const left = await kubectl().ok(['get', 'all,pvc,endpointslices,pdb,configmaps,serviceaccounts', '-n', NS, '-o', 'name']);
    assert.equal(left.trim(), '');
    // The Retain volumes are Released, still pointing at their deleted claims.
    await eventually('PVs Released', 2 * MINUTE, async () => {
      const pvs = await kubectl().json<List<Named & { status: { phase: string } }>>(['get', 'pv', '-l', 'e2e=control-plane']);
      return pvs.items.every((pv) => pv.status.phase === 'Released') ? true : pvs.items.map((pv) => pv.status.phase).join(',');
    }, 2000);
  });

  scenario('killing the kapi replica the controllers talk to loses nothing', async (t) => {
    const ns = 'cp-ha';
    await kubectl().ok(['create', 'namespace', ns]);
    await apply([deployment('survivor', ns, 30, IMAGE_1)]);
    await eventually('30 pods', 4 * MINUTE, () => allRunning(kubectl(), ns, 'app=survivor', 30), 2000);
    const victim = cp.replicas[0]!;
    await victim.kill('SIGKILL');
    try {
      await kubectl().ok(['scale', 'deployment/survivor', '--replicas=60', '-n', ns]);
      await eventually('60 pods with one replica down', 6 * MINUTE, () => allRunning(kubectl(), ns, 'app=survivor', 60), 2000);
    } finally {
      await victim.start(90_000);
    }
    // Then the other replica: the controllers move back to the restarted one.
    const second = cp.replicas[1]!;
    await second.kill('SIGKILL');
    try {
      await kubectl().ok(['scale', 'deployment/survivor', '--replicas=20', '-n', ns]);
      await eventually('20 pods with the other replica down', 6 * MINUTE, async () => {
        const all = (await kubectl().json<List<Pod>>(['get', 'pods', '-n', ns, '-l', 'app=survivor'])).items;
        return all.length === 20 && all.every((p) => p.status.phase === 'Running') ? true : summary(all);
      }, 2000);
    } finally {
      await second.start(90_000);
    }
    t.diagnostic(`unexpected exits: kube-controller-manager ${JSON.stringify(cp.controllerManager.unexpectedExits)}, kube-scheduler ${JSON.stringify(cp.scheduler.unexpectedExits)}`);
  });
});
