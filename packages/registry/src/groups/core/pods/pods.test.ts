/**
 * Pods through the registry on a real etcd: kube's defaults (checked against what
 * kube-apiserver 1.32.13 answered for the same bodies), validation texts, status reset,
 * field selectors, graceful deletion, binding, eviction and the kubelet subresources.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { parseFieldSelector } from '@kapi/machinery';
import type { Registry } from '../../../registry.js';
import type { RestSubresource } from '../../../rest.js';
import { clusterScope, inNamespace, rejectsWithStatus, resource, startFixture, type Fixture } from '../../../testing/registry-fixture.js';

const ns = inNamespace('default');

function pod(name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(labels !== undefined ? { labels } : {}) }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }], ...spec } };
}

const spec = (obj: KubeObject) => obj['spec'] as Record<string, unknown>;
const status = (obj: KubeObject) => obj['status'] as Record<string, unknown>;

void describe('pods', () => {
  let fx: Fixture;
  let registry: Registry;
  const pods = () => resource(registry, 'pods');
  const sub = (name: string): RestSubresource => {
    const found = pods().subresources.get(name);
    assert.ok(found, `pods/${name} is served`);
    return found;
  };
  const create = (body: Record<string, unknown>) => pods().creater.create(ns, body, {});
  const bind = (name: string, node: string) =>
    sub('binding').creater!.create(ns, name, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } }, {});

  before(async () => {
    fx = await startFixture();
    registry = await fx.newRegistry();
  });
  after(async () => fx.close());

  void it('defaults a pod as kube-apiserver 1.32 does', async () => {
    const created = await create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'defaults' },
      spec: {
        nodeName: 'node-a',
        initContainers: [{ name: 'i', image: 'busybox:1.0' }],
        containers: [
          {
            name: 'c',
            image: 'busybox:latest',
            ports: [{ containerPort: 8080 }],
            resources: { limits: { memory: '1Gi' } },
            env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
        volumes: [{ name: 'v', configMap: { name: 'x' } }, { name: 's', secret: { secretName: 'y' } }, { name: 'e', emptyDir: {} }, { name: 'h', hostPath: { path: '/tmp' } }],
        hostNetwork: true,
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    });
    // kube-apiserver v1.32.13's answer to the same body.
    assert.deepEqual(created['spec'], {
      containers: [
        {
          env: [{ name: 'A', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
          image: 'busybox:latest',
          imagePullPolicy: 'Always',
          name: 'c',
          ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }],
          resources: { limits: { memory: '1Gi' }, requests: { memory: '1Gi' } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      hostNetwork: true,
      initContainers: [{ image: 'busybox:1.0', imagePullPolicy: 'IfNotPresent', name: 'i', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      nodeName: 'node-a',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      tolerations: [{ key: 'k', operator: 'Exists' }],
      volumes: [
        { configMap: { defaultMode: 420, name: 'x' }, name: 'v' },
        { name: 's', secret: { defaultMode: 420, secretName: 'y' } },
        { emptyDir: {}, name: 'e' },
        { hostPath: { path: '/tmp', type: '' }, name: 'h' },
      ],
    });
    assert.deepEqual(created['status'], { phase: 'Pending', qosClass: 'Burstable' });
  });

  void it('sets the QoS class from requests and limits', async () => {
    const qos = async (name: string, resources: Record<string, unknown>) => status(await create(pod(name, { containers: [{ name: 'c', image: 'x', resources }] })))['qosClass'];
    assert.equal(await qos('qos-best', {}), 'BestEffort');
    assert.equal(await qos('qos-guaranteed', { limits: { cpu: '500m', memory: '128Mi' } }), 'Guaranteed');
    assert.equal(await qos('qos-guaranteed-equal', { requests: { cpu: '0.5', memory: '134217728' }, limits: { cpu: '500m', memory: '128Mi' } }), 'Guaranteed');
    assert.equal(await qos('qos-burstable', { requests: { cpu: '100m' } }), 'Burstable');
  });

  void it('refuses invalid pods with kube\'s messages', async () => {
    const status = await rejectsWithStatus(
      create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'Bad_' }, spec: { containers: [{ name: '' }, { name: 'Ab', image: 'x', imagePullPolicy: 'Sometimes' }], restartPolicy: 'Maybe' } }),
      { code: 422, reason: 'Invalid' },
    );
    const fields = status.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
    assert.deepEqual(fields?.slice(1), [
      'spec.containers[0].name: Required value',
      'spec.containers[0].image: Required value',
      'spec.containers[1].name: Invalid value: "Ab": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.containers[1].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      'spec.restartPolicy: Unsupported value: "Maybe": supported values: "Always", "OnFailure", "Never"',
    ]);
    // Ports, env, mounts, resources and node selectors: kube-apiserver 1.32.13's message for the same body.
    const containerErrors = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'v1' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'x',
            volumeMounts: [{ name: 'nope', mountPath: '/a' }, { name: 'v', mountPath: '' }],
            resources: { requests: { cpu: '2' }, limits: { cpu: '1' } },
            env: [{ name: '' }, { name: '1=bad' }],
            ports: [{ containerPort: 80, name: 'TooLongPortName123' }, { containerPort: 0 }],
          },
        ],
        volumes: [{ name: 'v', emptyDir: {} }, { name: 'v2' }],
        terminationGracePeriodSeconds: -5,
        nodeSelector: { 'bad key': 'x' },
      },
    };
    await rejectsWithStatus(create(containerErrors), { code: 422, message: "Pod \"v1\" is invalid: [spec.containers[0].ports[0].name: Invalid value: \"TooLongPortName123\": must be no more than 15 characters, spec.containers[0].ports[0].name: Invalid value: \"TooLongPortName123\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), spec.containers[0].ports[1].containerPort: Required value, spec.containers[0].env[0].name: Required value, spec.containers[0].env[1].name: Invalid value: \"1=bad\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].volumeMounts[0].name: Not found: \"nope\", spec.containers[0].volumeMounts[1].mountPath: Required value, spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1, spec.nodeSelector: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]" });
    await rejectsWithStatus(create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty' }, spec: {} }), {
      code: 422,
      message: 'Pod "empty" is invalid: spec.containers: Required value',
    });
  });

  void it('lets an update change only images, activeDeadlineSeconds and added tolerations', async () => {
    const created = await create(pod('immutable'));
    const changed = { ...created, spec: { ...spec(created), containers: [{ ...(spec(created)['containers'] as object[])[0], image: 'registry.example/app:2' }], activeDeadlineSeconds: 30, tolerations: [{ key: 'k', operator: 'Exists' }] } };
    const { object } = await pods().updater.update(ns, 'immutable', changed, {});
    assert.equal(((spec(object)['containers'] as Record<string, unknown>[])[0]!)['image'], 'registry.example/app:2');
    const status = await rejectsWithStatus(pods().updater.update(ns, 'immutable', { ...object, spec: { ...spec(object), restartPolicy: 'Never' } }, {}), { code: 422 });
    assert.ok(
      status.message?.startsWith(
        'Pod "immutable" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
      ),
      status.message,
    );
    await rejectsWithStatus(pods().updater.update(ns, 'immutable', { ...object, spec: { ...spec(object), activeDeadlineSeconds: 60 } }, {}), {
      code: 422,
      message: 'Pod "immutable" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value',
    });
  });

  void it('keeps status on the main resource and spec on /status', async () => {
    const created = await create(pod('status'));
    const { object } = await pods().updater.update(ns, 'status', { ...created, status: { phase: 'Running' } }, {});
    assert.equal(status(object)['phase'], 'Pending');
    const viaStatus = await sub('status').updater!.update(ns, 'status', { ...object, spec: { ...spec(object), nodeName: 'elsewhere' }, status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] } }, {});
    assert.equal(status(viaStatus.object)['phase'], 'Running');
    assert.equal(spec(viaStatus.object)['nodeName'], undefined);
    // kube-apiserver 1.32.13's text for two IPs of one family.
    await rejectsWithStatus(sub('status').updater!.update(ns, 'status', { ...viaStatus.object, status: { podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] } }, {}), {
      code: 422,
      message: 'Pod "status" is invalid: status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.2"}}: may specify no more than one IP for each IP family',
    });
  });

  void it('selects pods by kube\'s pod fields', async () => {
    const byField = async (selector: string) =>
      (await pods().lister.list(ns, { fieldSelector: parseFieldSelector(selector) })).items.map((i) => i.metadata.name).filter((n) => n === 'status' || n === 'defaults');
    assert.deepEqual(await byField('spec.nodeName=node-a'), ['defaults']);
    assert.deepEqual(await byField('status.podIP=10.0.0.9'), ['status']);
    assert.deepEqual(await byField('status.phase=Running'), ['status']);
    assert.deepEqual(await byField('spec.hostNetwork=true'), ['defaults']);
    assert.deepEqual(await byField('spec.restartPolicy=Always,spec.schedulerName=default-scheduler'), ['defaults', 'status']);
    await rejectsWithStatus(pods().lister.list(ns, { fieldSelector: parseFieldSelector('foo=bar') }), { code: 400, message: 'field label not supported: foo' });
  });

  void it('deletes an unscheduled pod at once and a scheduled one gracefully, shortening only', async () => {
    await create(pod('unscheduled'));
    const gone = await pods().deleter.delete(ns, 'unscheduled', {});
    assert.equal(gone.deletedImmediately, true);
    assert.equal((gone.object as KubeObject).metadata.deletionGracePeriodSeconds, 0);
    await rejectsWithStatus(pods().getter.get(ns, 'unscheduled', {}), { code: 404 });

    await create(pod('scheduled', { nodeName: 'node-a' }));
    const first = await pods().deleter.delete(ns, 'scheduled', {});
    assert.equal(first.deletedImmediately, false);
    const marked = first.object as KubeObject;
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
    const at = Date.parse(marked.metadata.deletionTimestamp!);
    assert.ok(Math.abs(at - (Date.now() + 30_000)) < 3000, marked.metadata.deletionTimestamp);

    const shorter = (await pods().deleter.delete(ns, 'scheduled', { gracePeriodSeconds: 10 })).object as KubeObject;
    assert.equal(shorter.metadata.deletionGracePeriodSeconds, 10);
    assert.equal(Date.parse(shorter.metadata.deletionTimestamp!), at - 20_000);
    const longer = await pods().deleter.delete(ns, 'scheduled', { gracePeriodSeconds: 20 });
    assert.equal((longer.object as KubeObject).metadata.resourceVersion, shorter.metadata.resourceVersion, 'a longer period changes nothing');
    assert.equal(longer.deletedImmediately, false);

    const confirmed = await pods().deleter.delete(ns, 'scheduled', { gracePeriodSeconds: 0 });
    assert.equal(confirmed.deletedImmediately, true);
    await rejectsWithStatus(pods().getter.get(ns, 'scheduled', {}), { code: 404 });
  });

  void it('binds once through pods/binding and the bindings resource', async () => {
    await create(pod('bound'));
    assert.deepEqual(await bind('bound', 'node-a'), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = await pods().getter.get(ns, 'bound', {});
    assert.equal(spec(got)['nodeName'], 'node-a');
    const conditions = status(got)['conditions'] as Record<string, unknown>[];
    assert.deepEqual(conditions.map((c) => [c['type'], c['status']]), [['PodScheduled', 'True']]);
    await rejectsWithStatus(bind('bound', 'node-b'), {
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "node-a"',
    });
    await rejectsWithStatus(sub('binding').creater!.create(ns, 'bound', { metadata: { name: 'other' }, target: { name: 'n' } }, {}), {
      code: 400,
      message: 'name in URL does not match name in Binding object',
    });
    await rejectsWithStatus(sub('binding').creater!.create(ns, 'bound', { metadata: { name: 'bound' }, target: {} }, {}), { code: 500, message: 'target.name: Required value' });

    await create(pod('bound-legacy'));
    await resource(registry, 'bindings').creater.create(ns, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound-legacy' }, target: { name: 'node-c' } }, {});
    assert.equal(spec(await pods().getter.get(ns, 'bound-legacy', {}))['nodeName'], 'node-c');
    await rejectsWithStatus(resource(registry, 'bindings').creater.create(ns, { metadata: { name: 'nope' }, target: { name: 'n' } }, {}), {
      code: 404,
      message: 'pods "nope" not found',
    });
  });

  void it('evicts within the PodDisruptionBudget and refuses with 429 beyond it', async () => {
    const pdbs = resource(registry, 'poddisruptionbudgets', 'policy');
    const evict = (name: string) => sub('eviction').creater!.create(ns, name, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } }, {});
    for (const name of ['ev-1', 'ev-2']) {
      const created = await create(pod(name, { nodeName: 'node-a' }, { app: 'ev' }));
      await sub('status').updater!.update(ns, name, { ...created, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, {});
    }
    // Without a budget a running pod is evicted at once (deleted with the eviction's options).
    const free = await create(pod('ev-free', { nodeName: 'node-a' }, { app: 'free' }));
    await sub('status').updater!.update(ns, 'ev-free', { ...free, status: { phase: 'Running' } }, {});
    const freeEviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ev-free' }, deleteOptions: { gracePeriodSeconds: 0 } };
    assert.equal((await sub('eviction').creater!.create(ns, 'ev-free', freeEviction, {}))['status'], 'Success');
    await rejectsWithStatus(pods().getter.get(ns, 'ev-free', {}), { code: 404 });
    await rejectsWithStatus(sub('eviction').creater!.create(ns, 'ev-1', { ...freeEviction, metadata: { name: 'other' } }, {}), {
      code: 400,
      message: 'name in URL does not match name in Eviction object',
    });

    const pdb = await pdbs.creater.create(ns, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'ev' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'ev' } } } }, {});
    await rejectsWithStatus(evict('ev-1'), { code: 429, reason: 'TooManyRequests', message: "Cannot evict pod as it would violate the pod's disruption budget." });
    const setStatus = async (s: Record<string, unknown>) => {
      const current = await pdbs.getter.get(ns, 'ev', {});
      await pdbs.subresources.get('status')!.updater!.update(ns, 'ev', { ...current, status: s }, {});
    };
    await setStatus({ observedGeneration: pdb.metadata.generation ?? 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    assert.equal((await evict('ev-1'))['status'], 'Success');
    const after = status(await pdbs.getter.get(ns, 'ev', {}));
    assert.equal(after['disruptionsAllowed'], 0);
    assert.deepEqual(Object.keys(after['disruptedPods'] as object), ['ev-1']);
    assert.equal(((after['conditions'] as Record<string, unknown>[])[0]!)['reason'], 'InsufficientPods');
    assert.ok((await pods().getter.get(ns, 'ev-1', {})).metadata.deletionTimestamp !== undefined, 'the evicted pod is being deleted');
    const refused = await rejectsWithStatus(evict('ev-2'), { code: 429 });
    assert.deepEqual(refused.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget ev needs 1 healthy pods and has 2 currently' }]);
    assert.equal((await pods().getter.get(ns, 'ev-2', {})).metadata.deletionTimestamp, undefined);
  });

  void it('adds ephemeral containers only through /ephemeralcontainers', async () => {
    const created = await create(pod('debug'));
    const debug = { name: 'debugger', image: 'busybox' };
    const { object } = await sub('ephemeralcontainers').updater!.update(ns, 'debug', { ...created, spec: { ...spec(created), ephemeralContainers: [debug], restartPolicy: 'Never' } }, {});
    const ephemeral = spec(object)['ephemeralContainers'] as Record<string, unknown>[];
    assert.equal(ephemeral[0]!['imagePullPolicy'], 'Always');
    assert.equal(spec(object)['restartPolicy'], 'Always', 'only ephemeral containers change');
    await rejectsWithStatus(sub('ephemeralcontainers').updater!.update(ns, 'debug', { ...object, spec: { ...spec(object), ephemeralContainers: [] } }, {}), { code: 422 });
  });

  void it('answers log, exec and proxy requests with kube\'s Status when no kubelet is there', async () => {
    const connect = (name: string, pod: string, verb: 'get' | 'create' = 'get', query = '') =>
      sub(name).connecter!.connect(ns, pod, { verb, query: new URLSearchParams(query), path: '', upgrade: '', protocols: [] });
    await create(pod('lonely'));
    assert.deepEqual(await connect('log', 'lonely'), { contentType: 'text/plain', body: '' });
    await rejectsWithStatus(connect('exec', 'lonely', 'create'), { code: 400, message: 'pod lonely does not have a host assigned' });
    await rejectsWithStatus(connect('log', 'lonely', 'get', 'container=nope'), { code: 400, message: 'container nope is not valid for pod lonely' });
    await rejectsWithStatus(connect('log', 'missing'), { code: 404, message: 'pods "missing" not found' });
    await rejectsWithStatus(connect('proxy', 'lonely'), { code: 400, message: 'address not allowed' });

    await create(pod('on-node', { nodeName: 'node-x' }));
    // kube names the missing Node a pod.
    await rejectsWithStatus(connect('log', 'on-node'), { code: 404, message: 'pods "node-x" not found' });
    const nodes = resource(registry, 'nodes');
    await nodes.creater.create(clusterScope, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-x' } }, {});
    await rejectsWithStatus(connect('attach', 'on-node', 'create'), { code: 500, message: 'no preferred addresses found; known addresses: []' });
    const node = await nodes.getter.get(clusterScope, 'node-x', {});
    await nodes.subresources.get('status')!.updater!.update(
      clusterScope,
      'node-x',
      { ...node, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } },
      {},
    );
    await rejectsWithStatus(connect('exec', 'on-node', 'create'), { code: 400, message: 'Upgrade request required' });
    await rejectsWithStatus(connect('log', 'on-node'), {
      code: 500,
      message: 'Get "https://127.0.0.1:1/containerLogs/default/on-node/c": dial tcp 127.0.0.1:1: connect: connection refused',
    });
    await rejectsWithStatus(nodes.subresources.get('proxy')!.connecter!.connect(clusterScope, 'node-x', { verb: 'get', query: new URLSearchParams(), path: '', upgrade: '', protocols: [] }), {
      code: 400,
      message: 'address not allowed',
    });
  });
});
