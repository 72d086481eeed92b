/**
 * Tables of objects richer than the catalogue's minimal samples (cases.ts reads those): bound
 * volumes and claims, quota usage, a default StorageClass, a CSIDriver with every column set,
 * bindings with subjects of every kind, policy bindings with each kind of param reference,
 * exempt and queuing priority levels. Objects are made in setup cases in their own namespace
 * (a quota there charges nothing elsewhere); the Table reads are compared.
 */
import type { Case } from './cases.js';

const TNS = 'diff-tables';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const LABELS = { suite: 'diff-tables' };
const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, labels: LABELS, ...extra });
const SELECTED = '?labelSelector=suite%3Ddiff-tables';

const CORE = `/api/v1/namespaces/${TNS}`;
const STORAGE = '/apis/storage.k8s.io/v1';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const FLOW = '/apis/flowcontrol.apiserver.k8s.io/v1';
const dangling = (a: { body: unknown }) => JSON.stringify(a.body).includes('"Dangling"');

const setup = (name: string, method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Case =>
  ({ name: `tables setup: ${name}`, method, path, ...(method === 'PATCH' ? { headers: MERGE } : {}), ...(body !== undefined ? { body } : {}), setup: true });
// Rows without their objects: the Table's columns and cells are what is compared here.
const table = (name: string, path: string, extra: Partial<Case> = {}): Case =>
  ({ name: `${name} as table`, method: 'GET', path: `${path}${path.includes('?') ? '&' : '?'}includeObject=None`, headers: TABLE, ...extra });

export const TABLE_CASES: readonly Case[] = [
  setup('namespace', 'POST', '/api/v1/namespaces', { metadata: { name: TNS } }),
  setup('pv', 'POST', '/api/v1/persistentvolumes', {
    metadata: meta('pv-rich'),
    spec: {
      capacity: { storage: '5120Mi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete',
      claimRef: { namespace: TNS, name: 'pvc-rich' }, storageClassName: 'fast', volumeMode: 'Block', hostPath: { path: '/tmp/pv-rich' },
    },
  }),
  setup('pv status', 'PATCH', '/api/v1/persistentvolumes/pv-rich/status', { status: { phase: 'Failed', reason: 'Broken' } }),
  setup('pvc', 'POST', `${CORE}/persistentvolumeclaims`, {
    metadata: meta('pvc-rich'),
    spec: { accessModes: ['ReadOnlyMany'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pv-rich', storageClassName: 'fast' },
  }),
  setup('pvc status', 'PATCH', `${CORE}/persistentvolumeclaims/pvc-rich/status`, { status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadOnlyMany', 'ReadWriteOncePod'] } }),
  setup('pvc unbound', 'POST', `${CORE}/persistentvolumeclaims`, {
    metadata: meta('pvc-unbound', { annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' } }),
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }),
  table('/persistentvolumes rich', '/api/v1/persistentvolumes/pv-rich'),
  table('/persistentvolumeclaims list', `${CORE}/persistentvolumeclaims`),
  setup('quota', 'POST', `${CORE}/resourcequotas`, { metadata: meta('quota-rich'), spec: { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi', cpu: '1' } } }),
  setup('quota status', 'PATCH', `${CORE}/resourcequotas/quota-rich/status`, {
    status: { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi', cpu: '1' }, used: { pods: '3', cpu: '500m' } },
  }),
  table('/resourcequotas rich', `${CORE}/resourcequotas/quota-rich`),
  setup('storageclass', 'POST', `${STORAGE}/storageclasses`, {
    metadata: meta('sc-rich', { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }),
    provisioner: 'example.com/p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true,
  }),
  setup('storageclass plain', 'POST', `${STORAGE}/storageclasses`, { metadata: meta('sc-plain'), provisioner: 'example.com/p' }),
  table('storage.k8s.io/storageclasses list', `${STORAGE}/storageclasses${SELECTED}`),
  setup('csidriver', 'POST', `${STORAGE}/csidrivers`, {
    metadata: meta('csi.rich.example.com'),
    spec: {
      attachRequired: false, podInfoOnMount: true, storageCapacity: true, requiresRepublish: true,
      tokenRequests: [{ audience: 'a' }, { audience: 'b', expirationSeconds: 3600 }], volumeLifecycleModes: ['Persistent', 'Ephemeral'],
    },
  }),
  table('storage.k8s.io/csidrivers rich', `${STORAGE}/csidrivers/csi.rich.example.com`),
  setup('volumeattachment', 'POST', `${STORAGE}/volumeattachments`, { metadata: meta('va-rich'), spec: { attacher: 'csi.rich.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv-rich' } } }),
  setup('volumeattachment status', 'PATCH', `${STORAGE}/volumeattachments/va-rich/status`, { status: { attached: true } }),
  table('storage.k8s.io/volumeattachments rich', `${STORAGE}/volumeattachments/va-rich`),
  setup('clusterrolebinding', 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: meta('crb-rich'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      { kind: 'ServiceAccount', namespace: TNS, name: 'sa' }, { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' },
      { kind: 'ServiceAccount', namespace: 'other', name: 'sa2' },
    ],
  }),
  table('rbac.authorization.k8s.io/clusterrolebindings rich', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/crb-rich'),
  setup('policy', 'POST', `${ADMISSION}/validatingadmissionpolicies`, {
    metadata: meta('vap-rich'),
    spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      // Matches nothing the suite sends (the bindings' missing params would deny it).
      matchConstraints: { namespaceSelector: { matchLabels: { 'diff-tables-never': 'true' } }, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] },
      validations: [{ expression: 'true' }, { expression: '1 == 1' }],
    },
  }),
  setup('binding by selector', 'POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
    metadata: meta('vapb-selector'),
    spec: {
      policyName: 'vap-rich', validationActions: ['Audit'],
      paramRef: { selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['w', 'v'] }, { key: 'e', operator: 'Exists' }] }, parameterNotFoundAction: 'Deny' },
    },
  }),
  setup('binding by name', 'POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
    metadata: meta('vapb-named'), spec: { policyName: 'vap-rich', validationActions: ['Audit'], paramRef: { name: 'cm', namespace: TNS, parameterNotFoundAction: 'Allow' } },
  }),
  setup('binding by name anywhere', 'POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
    metadata: meta('vapb-anywhere'), spec: { policyName: 'vap-rich', validationActions: ['Audit'], paramRef: { name: 'cm', parameterNotFoundAction: 'Deny' } },
  }),
  table('admissionregistration.k8s.io/validatingadmissionpolicies rich', `${ADMISSION}/validatingadmissionpolicies/vap-rich`),
  table('admissionregistration.k8s.io/validatingadmissionpolicybindings list', `${ADMISSION}/validatingadmissionpolicybindings${SELECTED}`),
  ...['vapb-selector', 'vapb-named', 'vapb-anywhere'].map((name) => setup(`delete ${name}`, 'DELETE', `${ADMISSION}/validatingadmissionpolicybindings/${name}`)),
  setup('delete policy', 'DELETE', `${ADMISSION}/validatingadmissionpolicies/vap-rich`),
  setup('queuing level', 'POST', `${FLOW}/prioritylevelconfigurations`, {
    metadata: meta('plc-queue'),
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 7, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } } } },
  }),
  table('flowcontrol.apiserver.k8s.io/prioritylevelconfigurations list', `${FLOW}/prioritylevelconfigurations${SELECTED}`),
  // Only the server's own `exempt` level may be of type Exempt.
  table('flowcontrol.apiserver.k8s.io/prioritylevelconfigurations rich', `${FLOW}/prioritylevelconfigurations/exempt`),
  setup('schema', 'POST', `${FLOW}/flowschemas`, { metadata: meta('fs-rich'), spec: { priorityLevelConfiguration: { name: 'plc-queue' }, matchingPrecedence: 900, distinguisherMethod: { type: 'ByUser' } } }),
  setup('schema of a missing level', 'POST', `${FLOW}/flowschemas`, { metadata: meta('fs-dangling'), spec: { priorityLevelConfiguration: { name: 'plc-missing' } } }),
  table('flowcontrol.apiserver.k8s.io/flowschemas rich', `${FLOW}/flowschemas/fs-rich`, { until: dangling }),
  table('flowcontrol.apiserver.k8s.io/flowschemas dangling', `${FLOW}/flowschemas/fs-dangling`, { until: dangling }),
  setup('priorityclass', 'POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { metadata: meta('pc-rich'), value: -5, globalDefault: true, preemptionPolicy: 'Never' }),
  table('scheduling.k8s.io/priorityclasses rich', '/apis/scheduling.k8s.io/v1/priorityclasses/pc-rich'),
  // Probed, not stored: etcd answers both servers' health checks alike.
  table('/componentstatuses rich', '/api/v1/componentstatuses/etcd-0'),
  // A global default class would give every later pod its priority.
  setup('priorityclass delete', 'DELETE', '/apis/scheduling.k8s.io/v1/priorityclasses/pc-rich'),
];
