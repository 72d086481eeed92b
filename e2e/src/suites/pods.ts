/**
 * Pods with kubectl and a REST client, as a user and a scheduler see them: `kubectl run`,
 * `get pods` (kube's columns, -o wide), `describe pod` with its events, binding through
 * pods/binding, graceful deletion confirmed with grace period 0, and `kubectl drain` against
 * a PodDisruptionBudget (eviction: one pod goes, the other is refused with kube's 429 until
 * the budget allows it).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ensureNamespace, type KubeObject } from '../harness/rest.js';
import type { TargetRef } from './targets.js';

interface PodObject extends KubeObject {
  spec: { nodeName?: string; restartPolicy?: string; containers: { name: string; image: string; imagePullPolicy?: string }[] };
  status?: { phase?: string; qosClass?: string };
}

const column = (table: string, row: string) => table.split('\n').find((l) => l.startsWith(`${row} `))?.trim().split(/\s+/);

export function podsSuite(target: TargetRef): void {
  void describe('pods', () => {
    const ns = 'suite-pods';
    const podPath = (name = '') => `/api/v1/namespaces/${ns}/pods${name === '' ? '' : `/${name}`}`;
    const pod = (name: string, extra: Record<string, unknown> = {}, labels: Record<string, string> = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels },
      spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }], ...extra },
    });

    void it('kubectl run, get pods with kube\'s columns, describe with events', async () => {
      const t = target();
      const rest = t.rest();
      try {
        await ensureNamespace(rest, ns);
        const kubectl = t.kubectl();
        assert.equal(await kubectl.ok(['run', 'web', '--image=nginx:1.25', '--port=80', '-n', ns]), 'pod/web created\n');
        const created = await kubectl.json<PodObject>(['get', 'pod', 'web', '-n', ns]);
        assert.equal(created.spec.restartPolicy, 'Always');
        assert.equal(created.spec.containers[0]!.imagePullPolicy, 'IfNotPresent');
        assert.deepEqual(created.status, { phase: 'Pending', qosClass: 'BestEffort' });

        const table = await kubectl.ok(['get', 'pods', '-n', ns]);
        assert.match(table, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/);
        assert.deepEqual(column(table, 'web')?.slice(0, 4), ['web', '0/1', 'Pending', '0']);
        const wide = await kubectl.ok(['get', 'pods', '-n', ns, '-o', 'wide']);
        assert.match(wide, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/);
        assert.deepEqual(column(wide, 'web')?.slice(5), ['<none>', '<none>', '<none>', '<none>']);

        await rest.expect(201, 'POST', `/api/v1/namespaces/${ns}/events`, {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'web.scheduled' },
          involvedObject: { kind: 'Pod', name: 'web', namespace: ns, apiVersion: 'v1', uid: created.metadata.uid },
          reason: 'Scheduled',
          message: `Successfully assigned ${ns}/web to node-a`,
          type: 'Normal',
          source: { component: 'default-scheduler' },
          count: 1,
          firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        });
        const described = await kubectl.ok(['describe', 'pod', 'web', '-n', ns]);
        assert.match(described, /^Name:\s+web$/m);
        assert.match(described, /^Status:\s+Pending$/m);
        assert.match(described, /^QoS Class:\s+BestEffort$/m);
        assert.match(described, /^\s+Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned suite-pods\/web to node-a$/m);

        // A pod on no node has an empty log (kube's answer), and takes ephemeral containers.
        assert.equal(await kubectl.ok(['logs', 'web', '-n', ns]), '');
        await kubectl.ok(['debug', 'web', '-n', ns, '--image=busybox', '--container=debugger', '--profile=general']);
        const debugged = await kubectl.json<PodObject & { spec: { ephemeralContainers?: { name: string; imagePullPolicy?: string }[] } }>(['get', 'pod', 'web', '-n', ns]);
        assert.deepEqual(debugged.spec.ephemeralContainers?.map((c) => [c.name, c.imagePullPolicy]), [['debugger', 'Always']]);
      } finally {
        rest.close();
      }
    });

    void it('kubectl apply --server-side of a pod with ports, then of a new image', async () => {
      const t = target();
      const rest = t.rest();
      try {
        await ensureNamespace(rest, ns);
        const kubectl = t.kubectl();
        const manifest = (image: string) =>
          JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'applied', namespace: ns }, spec: { containers: [{ name: 'c', image, ports: [{ containerPort: 80 }] }] } });
        // The port's key (containerPort, protocol) takes kube's protocol default.
        assert.equal(await kubectl.ok(['apply', '--server-side', '-f', '-'], manifest('nginx:1.25')), 'pod/applied serverside-applied\n');
        assert.equal(await kubectl.ok(['apply', '--server-side', '-f', '-'], manifest('nginx:1.27')), 'pod/applied serverside-applied\n');
        const applied = await kubectl.json<PodObject>(['get', 'pod', 'applied', '-n', ns]);
        assert.equal(applied.spec.containers[0]!.image, 'nginx:1.27');
      } finally {
        rest.close();
      }
    });

    void it('binds through pods/binding once, then deletes gracefully until grace period 0', async () => {
      const t = target();
      const rest = t.rest();
      try {
        await ensureNamespace(rest, ns);
        await rest.expect(201, 'POST', podPath(), pod('bound'));
        const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Node', name: 'node-a' } };
        assert.deepEqual(await rest.expect(201, 'POST', `${podPath('bound')}/binding`, binding), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
        const again = await rest.request<{ message: string }>('POST', `${podPath('bound')}/binding`, { ...binding, target: { kind: 'Node', name: 'node-b' } });
        assert.equal(again.status, 409);
        assert.equal(again.body.message, 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "node-a"');

        const kubectl = t.kubectl();
        assert.equal(column(await kubectl.ok(['get', 'pods', '-n', ns, '-o', 'wide']), 'bound')?.[6], 'node-a');
        assert.equal(await kubectl.ok(['delete', 'pod', 'bound', '-n', ns, '--wait=false']), 'pod "bound" deleted\n');
        const terminating = await rest.expect<PodObject & { metadata: { deletionGracePeriodSeconds?: number } }>(200, 'GET', podPath('bound'));
        assert.equal(terminating.metadata.deletionGracePeriodSeconds, 30);
        assert.equal(column(await kubectl.ok(['get', 'pods', '-n', ns]), 'bound')?.[2], 'Terminating');
        // What a kubelet (or KWOK) sends once the containers are gone.
        await rest.expect(200, 'DELETE', podPath('bound'), { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
        assert.equal((await rest.request('GET', podPath('bound'))).status, 404);
      } finally {
        rest.close();
      }
    });

    void it('kubectl drain evicts within the PodDisruptionBudget and is refused beyond it', async () => {
      const t = target();
      const rest = t.rest();
      const node = 'suite-pods-drain';
      try {
        await ensureNamespace(rest, ns);
        await rest.expect(201, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
        for (const name of ['drain-1', 'drain-2']) {
          await rest.expect(201, 'POST', podPath(), pod(name, { nodeName: node }, { app: 'drain' }));
          await rest.expect(200, 'PATCH', `${podPath(name)}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
        }
        const pdbs = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
        await rest.expect(201, 'POST', pdbs, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'drain' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'drain' } } } });
        const budget = (allowed: number) => ({ status: { observedGeneration: 1, disruptionsAllowed: allowed, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 } });
        await rest.expect(200, 'PATCH', `${pdbs}/drain/status`, budget(1), 'application/merge-patch+json');

        const kubectl = t.kubectl();
        const refused = await kubectl.run(['drain', node, '--force', '--grace-period=0', '--timeout=7s']);
        assert.notEqual(refused.code, 0);
        const output = refused.stdout + refused.stderr;
        assert.match(output, /node\/suite-pods-drain cordoned/);
        assert.match(output, /error when evicting pods\/"drain-\d" -n "suite-pods" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
        const left = (await rest.expect<{ items: PodObject[] }>(200, 'GET', `${podPath()}?fieldSelector=spec.nodeName=${node}`)).items;
        assert.equal(left.length, 1, 'one pod was evicted, the budget kept the other');
        const status = (await rest.expect<{ status: { disruptionsAllowed: number; disruptedPods?: Record<string, string> } }>(200, 'GET', `${pdbs}/drain`)).status;
        assert.equal(status.disruptionsAllowed, 0);

        await rest.expect(200, 'PATCH', `${pdbs}/drain/status`, budget(1), 'application/merge-patch+json');
        const drained = await kubectl.ok(['drain', node, '--force', '--grace-period=0', '--timeout=20s']);
        assert.match(drained, /node\/suite-pods-drain drained/);
        assert.equal((await rest.expect<{ items: PodObject[] }>(200, 'GET', `${podPath()}?fieldSelector=spec.nodeName=${node}`)).items.length, 0);
        const unschedulable = await rest.expect<{ spec: { unschedulable?: boolean } }>(200, 'GET', `/api/v1/nodes/${node}`);
        assert.equal(unschedulable.spec.unschedulable, true);
      } finally {
        rest.close();
      }
    });
  });
}
