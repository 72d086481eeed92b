/**
 * Nodes, CertificateSigningRequests and `kubectl top` through real kubectl as an
 * authenticated user, answered as kube-apiserver 1.32 answers them (texts checked against
 * the v1.32 oracle).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSecureServer, type Identity, type SecureServer } from './testing/secure-server.js';

const alice: Identity = { token: 'alice-token' };

function node(name: string, extra: { labels?: Record<string, string>; spec?: Record<string, unknown>; status?: Record<string, unknown> } = {}) {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) }, spec: extra.spec ?? {}, ...(extra.status ? { status: extra.status } : {}) };
}

const readyStatus = {
  capacity: { cpu: '4', memory: '8Gi', pods: '110' },
  conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  addresses: [{ type: 'InternalIP', address: '10.1.1.1' }, { type: 'ExternalIP', address: '1.2.3.4' }, { type: 'Hostname', address: 'n1' }],
  nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Ubuntu 22.04', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0', machineID: 'm', systemUUID: 's', bootID: 'b', kubeProxyVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64' },
};

/** Rows of kubectl's table output with runs of spaces collapsed and the AGE column blanked. */
const rows = (out: string) => out.trim().split('\n').map((line) => line.trim().split(/\s{2,}|\s(?=\S)/).join(' ').replace(/ \d+s( |$)/, ' AGE$1'));

void describe('nodes, CSRs and top through kubectl', () => {
  let t: SecureServer;
  before(async () => {
    t = await startSecureServer({ tokens: ['alice-token,alice,alice-uid,"system:masters,team"'] });
  });
  after(async () => t?.close());

  const kubectl = async (args: string[]) => {
    const r = await t.kubectl(alice, args);
    return { ...r, out: r.stdout + r.stderr };
  };

  void it('a node keeps the status it registers with, gets defaults and the not-ready taint; get -o wide, cordon and spec.unschedulable', async () => {
    const created = await t.request(alice, 'POST', '/api/v1/nodes', { body: node('n1', { labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/worker': '' }, spec: { podCIDR: '10.0.0.0/24' }, status: readyStatus }) });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json['spec'], { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'], taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
    const status = created.json['status'] as Record<string, unknown>;
    assert.deepEqual(status['allocatable'], readyStatus.capacity);
    assert.deepEqual(status['daemonEndpoints'], { kubeletEndpoint: { Port: 0 } });
    const bare = await t.request(alice, 'POST', '/api/v1/nodes', { body: node('bare') });
    assert.deepEqual((bare.json['status'] as Record<string, unknown>)['nodeInfo'], Object.fromEntries(Object.keys(readyStatus.nodeInfo).sort().map((k) => [k, ''])));

    assert.deepEqual(rows((await kubectl(['get', 'nodes', '-o', 'wide'])).stdout), [
      'NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME',
      'bare Unknown <none> AGE <none> <none> <unknown> <unknown> <unknown>',
      'n1 Ready control-plane,worker AGE v1.32.0 10.1.1.1 1.2.3.4 Ubuntu 22.04 6.1.0 containerd://1.7.0',
    ]);
    assert.equal((await kubectl(['cordon', 'n1'])).stdout, 'node/n1 cordoned\n');
    assert.deepEqual(rows((await kubectl(['get', 'nodes', '--field-selector', 'spec.unschedulable=true'])).stdout), ['NAME STATUS ROLES AGE VERSION', 'n1 Ready,SchedulingDisabled control-plane,worker AGE v1.32.0']);
    assert.deepEqual(rows((await kubectl(['get', 'nodes', '--field-selector', 'spec.unschedulable=false', '-o', 'name'])).stdout), ['node/bare']);
    assert.equal((await kubectl(['uncordon', 'n1'])).stdout, 'node/n1 uncordoned\n');
    assert.equal((await kubectl(['get', 'nodes', '--field-selector', 'spec.unschedulable=true'])).stderr, 'No resources found\n');
    // describe lists the node's pods by spec.nodeName and status.phase, and its events.
    const described = await kubectl(['describe', 'node', 'n1']);
    assert.equal(described.code, 0, described.stderr);
    for (const line of ['Roles:              control-plane,worker', 'Taints:             node.kubernetes.io/not-ready:NoSchedule', 'Unschedulable:      false', 'PodCIDRs:                     10.0.0.0/24', 'Non-terminated Pods:          (0 in total)', 'Events:              <none>']) {
      assert.ok(described.stdout.includes(`${line}\n`), `${line}\n${described.stdout}`);
    }
    const unsupported = await kubectl(['get', 'nodes', '--field-selector', 'metadata.foo=x']);
    assert.equal(unsupported.stderr, 'Error from server (BadRequest): Unable to find "/v1, Resource=nodes" that match label selector "", field selector "metadata.foo=x": field label not supported: metadata.foo\n');
  });

  void it('the main resource keeps status, /status keeps spec; kube\'s validation texts', async () => {
    const patch = async (path: string, body: unknown) => t.request(alice, 'PATCH', path, { body, headers: { 'content-type': 'application/merge-patch+json' } });
    const main = await patch('/api/v1/nodes/bare', { spec: { providerID: 'x://1' }, status: { capacity: { cpu: '2' } } });
    assert.equal(main.status, 200, main.text);
    assert.equal((main.json['status'] as Record<string, unknown>)['capacity'], undefined);
    const viaStatus = await patch('/api/v1/nodes/bare/status', { spec: { unschedulable: true }, status: { capacity: { cpu: '2' } } });
    assert.equal(viaStatus.status, 200, viaStatus.text);
    assert.deepEqual(viaStatus.json['spec'], { providerID: 'x://1', taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
    assert.deepEqual((viaStatus.json['status'] as Record<string, unknown>)['allocatable'], { cpu: '2' });

    const messages = async (path: string, body: unknown, method = 'PATCH') => {
      const r = method === 'PATCH' ? await patch(path, body) : await t.request(alice, method, path, { body });
      assert.equal(r.status, 422, r.text);
      return r.json['message'];
    };
    assert.equal(await messages('/api/v1/nodes/bare', { spec: { providerID: 'x://2' } }), 'Node "bare" is invalid: spec.providerID: Forbidden: node updates may not change providerID except from "" to valid');
    assert.equal(await messages('/api/v1/nodes/n1', { spec: { podCIDR: '10.9.0.0/24' } }), 'Node "n1" is invalid: spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid');
    assert.equal(
      await messages('/api/v1/nodes', node('c1', { spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] } }), 'POST'),
      'Node "c1" is invalid: spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family',
    );
    assert.equal(
      await messages('/api/v1/nodes', node('c2', { spec: { podCIDR: 'x', taints: [{ key: 'k', effect: 'Bogus' }, { key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoSchedule', value: 'a b' }] } }), 'POST'),
      'Node "c2" is invalid: [metadata.taints[0].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute", ' +
        'metadata.taints[2].value: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\'), ' +
        'metadata.taints[2]: Duplicate value: core.Taint{Key:"k", Value:"a b", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair, ' +
        'spec.podCIDRs[0]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)]',
    );
  });

  void it('a CSR records its requester; kubectl certificate approve goes through /approval; spec.signerName selects', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = join(t.ca.dir, 'csr.key');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const pem = execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=alice/O=dev']);
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'alice' },
      spec: { request: pem.toString('base64'), signerName: 'example.com/signer', usages: ['client auth'], username: 'mallory', groups: ['x'] },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    };
    const created = await t.request(alice, 'POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', { body: csr });
    assert.equal(created.status, 201, created.text);
    const spec = created.json['spec'] as Record<string, unknown>;
    assert.deepEqual([spec['username'], spec['uid'], spec['groups']], ['alice', 'alice-uid', ['system:masters', 'team', 'system:authenticated']]);
    assert.equal((created.json['status'] as Record<string, unknown> | undefined)?.['conditions'], undefined);

    assert.deepEqual(rows((await kubectl(['get', 'csr'])).stdout), ['NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION', 'alice AGE example.com/signer alice <none> Pending']);
    assert.equal((await kubectl(['certificate', 'approve', 'alice'])).stdout, 'certificatesigningrequest.certificates.k8s.io/alice approved\n');
    const approved = await t.request(alice, 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice/approval');
    const [condition] = (approved.json['status'] as { conditions: Record<string, string>[] }).conditions;
    assert.deepEqual([condition!['type'], condition!['status'], condition!['reason'], condition!['message']], ['Approved', 'True', 'KubectlApprove', 'This CSR was approved by kubectl certificate approve.']);
    assert.match(condition!['lastUpdateTime']!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // kubectl stamps lastUpdateTime with its clock; the server fills lastTransitionTime with its own (kube's populateConditionTimestamps): the same second, or the next.
    const gap = Date.parse(condition!['lastTransitionTime']!) - Date.parse(condition!['lastUpdateTime']!);
    assert.ok(gap >= 0 && gap <= 2000, `lastTransitionTime ${condition!['lastTransitionTime']} vs lastUpdateTime ${condition!['lastUpdateTime']}`);
    assert.deepEqual(rows((await kubectl(['get', 'csr', '--field-selector', 'spec.signerName=example.com/signer'])).stdout)[1], 'alice AGE example.com/signer alice <none> Approved');
    assert.equal((await kubectl(['get', 'csr', '--field-selector', 'spec.signerName=other'])).stderr, 'No resources found\n');
    assert.equal((await kubectl(['certificate', 'deny', 'alice'])).stderr, 'error: certificate signing request "alice" is already Approved\n');

    const current = approved.json as { status: { conditions: Record<string, unknown>[] } };
    const put = async (sub: string, conditions: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
      t.request(alice, 'PUT', `/apis/certificates.k8s.io/v1/certificatesigningrequests/alice/${sub}`, { body: { ...current, status: { ...current.status, conditions, ...extra } } });
    const denied = await put('approval', [...current.status.conditions, { type: 'Denied', status: 'True', reason: 'x' }]);
    assert.equal(denied.json['message'], 'CertificateSigningRequest.certificates.k8s.io "alice" is invalid: status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive');
    assert.equal((await put('approval', [])).json['message'], 'CertificateSigningRequest.certificates.k8s.io "alice" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"');
    assert.equal((await put('status', current.status.conditions, { certificate: Buffer.from('hello').toString('base64') })).json['message'], 'CertificateSigningRequest.certificates.k8s.io "alice" is invalid: status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block');
    // The main resource changes metadata only.
    const relabelled = await t.request(alice, 'PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice', {
      body: { ...current, metadata: { ...(current as unknown as { metadata: object }).metadata, labels: { a: 'b' } }, spec: { ...spec, signerName: 'example.com/other' }, status: {} },
    });
    assert.equal(relabelled.status, 200, relabelled.text);
    assert.equal((relabelled.json['spec'] as Record<string, unknown>)['signerName'], 'example.com/signer');
    assert.equal((relabelled.json['status'] as { conditions: unknown[] }).conditions.length, 1);
  });

  void it('kubectl top answers that there is no metrics API', async () => {
    for (const what of [['node'], ['pod', '-A']]) {
      const r = await kubectl(['top', ...what]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'error: Metrics API not available\n');
    }
  });

  void it('pods listed by spec.nodeName from the cache (the indexed field) are the pods on that node', async () => {
    const pod = (name: string, nodeName: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'pause' }] } });
    for (const [name, nodeName] of [['a1', 'a'], ['b1', 'b'], ['a2', 'a']] as const) {
      const r = await t.request(alice, 'POST', '/api/v1/namespaces/default/pods', { body: pod(name, nodeName) });
      assert.equal(r.status, 201, r.text);
    }
    for (const rv of ['0', '']) {
      const list = await t.request(alice, 'GET', `/api/v1/pods?fieldSelector=spec.nodeName%3Da&resourceVersion=${rv}`);
      assert.deepEqual((list.json['items'] as { metadata: { name: string } }[]).map((p) => p.metadata.name), ['a1', 'a2']);
    }
    const moved = await t.request(alice, 'PATCH', '/api/v1/namespaces/default/pods/b1', { body: { spec: { nodeName: 'a' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    if (moved.status === 200) {
      // (while pods are generic: kube refuses to move a bound pod)
      const list = await t.request(alice, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Da&resourceVersion=0');
      assert.deepEqual((list.json['items'] as { metadata: { name: string } }[]).map((p) => p.metadata.name), ['a1', 'a2', 'b1']);
    }
  });
});
