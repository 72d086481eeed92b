/**
 * The per-group defaulting composed into the served definitions (groups/<group>/defaults.ts):
 * each kind's decode step fills kube 1.32's defaults, keeps what the client set, and adds
 * nothing kube's Go types would leave out. The same objects are compared with a real
 * kube-apiserver by e2e/src/reference/defaults-vs-kube.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kapi/machinery';
import { builtinDefinition } from './served.js';

function decoded(group: string, plural: string, body: Record<string, unknown>): Record<string, unknown> {
  const obj = structuredClone({ metadata: { name: 'x' }, ...body }) as KubeObject;
  builtinDefinition(group, plural).strategy?.decode?.(obj);
  return obj as Record<string, unknown>;
}

function created(group: string, plural: string, body: Record<string, unknown>): Record<string, unknown> {
  const obj = decoded(group, plural, body) as KubeObject;
  builtinDefinition(group, plural).strategy?.prepareForCreate?.(obj);
  return obj as Record<string, unknown>;
}

void describe('kube\'s per-kind defaulting', () => {
  void it('PersistentVolumes: Retain, Filesystem, the sources\' defaults; created Pending with a transition time', () => {
    const pv = created('', 'persistentvolumes', { spec: { capacity: { storage: '1Gi' }, hostPath: { path: '/p' }, iscsi: { targetPortal: 't', iqn: 'i', lun: 0 } } });
    const spec = pv['spec'] as Record<string, Record<string, unknown>>;
    assert.equal(spec['persistentVolumeReclaimPolicy'], 'Retain');
    assert.equal(spec['volumeMode'], 'Filesystem');
    assert.deepEqual(spec['hostPath'], { path: '/p', type: '' });
    assert.equal(spec['iscsi']!['iscsiInterface'], 'default');
    const status = pv['status'] as Record<string, unknown>;
    assert.equal(status['phase'], 'Pending');
    assert.match(String(status['lastPhaseTransitionTime']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const kept = decoded('', 'persistentvolumes', { spec: { persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' } });
    assert.deepEqual(kept['spec'], { persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' });
  });

  void it('PersistentVolumeClaims: Filesystem; created Pending', () => {
    const pvc = created('', 'persistentvolumeclaims', { spec: { accessModes: ['ReadWriteOnce'] } });
    assert.equal((pvc['spec'] as Record<string, unknown>)['volumeMode'], 'Filesystem');
    assert.deepEqual(pvc['status'], { phase: 'Pending' });
  });

  void it('LimitRanges: a container item\'s default limit from max, its default request from the limit, then from min', () => {
    const lr = decoded('', 'limitranges', {
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '1Mi' }, default: { memory: '2Mi' } }, { type: 'Pod', max: { cpu: '4' } }] },
    });
    const [container, pod] = (lr['spec'] as { limits: Record<string, unknown>[] }).limits;
    assert.deepEqual(container!['default'], { memory: '2Mi', cpu: '2' });
    assert.deepEqual(container!['defaultRequest'], { memory: '2Mi', cpu: '2' });
    assert.deepEqual(pod, { type: 'Pod', max: { cpu: '4' } }, 'only container items are defaulted');
    const empty = decoded('', 'limitranges', { spec: { limits: [{ type: 'Container' }] } });
    assert.deepEqual(empty['spec'], { limits: [{ type: 'Container' }] }, 'no empty maps Go would leave out');
  });

  void it('pod volumes: RBD, Azure Disk and ScaleIO sources, ephemeral claim templates; serviceAccount mirrors serviceAccountName', () => {
    const pod = decoded('', 'pods', {
      spec: {
        serviceAccountName: 'sa',
        containers: [{ name: 'c', image: 'i' }],
        volumes: [
          { name: 'r', rbd: { monitors: ['m'], image: 'i' } },
          { name: 'a', azureDisk: { diskName: 'd', diskURI: 'u' } },
          { name: 's', scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' } } },
          { name: 'e', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      },
    });
    const spec = pod['spec'] as { serviceAccount: string; volumes: Record<string, Record<string, unknown>>[] };
    assert.equal(spec.serviceAccount, 'sa');
    const [rbd, azure, scaleIO, ephemeral] = spec.volumes;
    assert.deepEqual(rbd!['rbd'], { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    assert.deepEqual(azure!['azureDisk'], { diskName: 'd', diskURI: 'u', cachingMode: 'ReadWrite', kind: 'Shared', fsType: 'ext4', readOnly: false });
    assert.equal(scaleIO!['scaleIO']!['storageMode'], 'ThinProvisioned');
    assert.equal(scaleIO!['scaleIO']!['fsType'], 'xfs');
    assert.deepEqual(ephemeral!['ephemeral'], { volumeClaimTemplate: { spec: { volumeMode: 'Filesystem' }, metadata: { creationTimestamp: null } } });
  });

  void it('a ReplicationController\'s template (a Go pointer) carries the zero creationTimestamp', () => {
    const rc = decoded('', 'replicationcontrollers', { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } });
    assert.deepEqual(((rc['spec'] as Record<string, unknown>)['template'] as Record<string, unknown>)['metadata'], { creationTimestamp: null });
  });

  void it('storage: StorageClass and CSIDriver defaults', () => {
    const sc = decoded('storage.k8s.io', 'storageclasses', { provisioner: 'p' });
    assert.equal(sc['reclaimPolicy'], 'Delete');
    assert.equal(sc['volumeBindingMode'], 'Immediate');
    const driver = decoded('storage.k8s.io', 'csidrivers', { spec: { attachRequired: false } });
    assert.deepEqual(driver['spec'], {
      attachRequired: false,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      requiresRepublish: false,
      seLinuxMount: false,
      volumeLifecycleModes: ['Persistent'],
    });
  });

  void it('flowcontrol: matching precedence 1000, 30 shares, queuing 64/8/50; an explicit v1 zero stays', () => {
    const fs = decoded('flowcontrol.apiserver.k8s.io', 'flowschemas', { spec: { priorityLevelConfiguration: { name: 'p' } } });
    assert.equal((fs['spec'] as Record<string, unknown>)['matchingPrecedence'], 1000);
    const plc = decoded('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 16 } } } },
    });
    assert.deepEqual((plc['spec'] as Record<string, unknown>)['limited'], { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 8, queueLengthLimit: 50 } } });
    const zero = decoded('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } } });
    assert.equal(((zero['spec'] as Record<string, unknown>)['limited'] as Record<string, unknown>)['nominalConcurrencyShares'], 0);
  });

  void it('RBAC bindings: users and groups get RBAC\'s API group, service accounts none; the role reference RBAC\'s', () => {
    const binding = decoded('rbac.authorization.k8s.io', 'rolebindings', {
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 's', namespace: 'n' }],
    });
    assert.deepEqual(binding['roleRef'], { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    assert.deepEqual(binding['subjects'], [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 's', namespace: 'n' }]);
  });

  void it('PriorityClass, IngressClass and APIService defaults', () => {
    assert.equal(decoded('scheduling.k8s.io', 'priorityclasses', { value: 1 })['preemptionPolicy'], 'PreemptLowerPriority');
    const ic = decoded('networking.k8s.io', 'ingressclasses', { spec: { controller: 'c', parameters: { kind: 'K', name: 'n' } } });
    assert.equal(((ic['spec'] as Record<string, unknown>)['parameters'] as Record<string, unknown>)['scope'], 'Cluster');
    assert.deepEqual(decoded('networking.k8s.io', 'ingressclasses', { spec: { controller: 'c' } })['spec'], { controller: 'c' }, 'no parameters, nothing added');
    const api = decoded('apiregistration.k8s.io', 'apiservices', { spec: { service: { namespace: 'n', name: 's' } } });
    assert.equal(((api['spec'] as Record<string, unknown>)['service'] as Record<string, unknown>)['port'], 443);
  });
});
