/**
 * A small valid object of every kind the catalogue serves, by `<group>/<plural>`, as a client
 * would send it (no defaults filled in): each is accepted by kube-apiserver v1.32.13
 * (e2e/src/reference/minimal-objects-vs-kube.test.ts creates them all there). `change` is a
 * JSON merge patch that changes what the kind's generation counts (where kube counts one);
 * `status` is a valid status for kinds with a status subresource.
 */

export interface MinimalObject {
  /** The body without apiVersion and kind (the test adds the served version's). */
  readonly object: Record<string, unknown>;
  /** A merge patch outside metadata and status (bumps metadata.generation where kube does). */
  readonly change?: Record<string, unknown>;
  /** A status the /status subresource accepts. */
  readonly status?: Record<string, unknown>;
  /** The status a create answers with when it is not absent (kube's empty Go structs: a Service's `loadBalancer: {}`; a Pod's phase; a volume's or claim's Pending; an HPA's nil `currentMetrics`, null). */
  readonly createdStatus?: Record<string, unknown>;
  /** Fields the server assigns under a top-level field (a Service's cluster IP): left out when the created object is compared with this one. */
  readonly assigned?: Readonly<Record<string, readonly string[]>>;
  /** A second object (created with a protobuf body) when `object` renamed `<name>-pb` is not valid (an APIService is named after its group). */
  readonly secondObject?: Record<string, unknown>;
}

const meta = (name: string) => ({ name, labels: { sample: 'yes' } });
const labels = { app: 'sample' };
const container = { name: 'c', image: 'registry.example/app:1' };
const podTemplate = { metadata: { labels }, spec: { containers: [container] } };
const jobPodTemplate = { spec: { containers: [container], restartPolicy: 'Never' } };
const CSR_PEM =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIUE1IZ0NBUUF3RmpFVU1CSUdBMVVFQXd3TGEyRndhUzF6WVcxd2JHVXdXVEFUQmdjcWhrak9QUUlCQmdncQpoa2pPUFFNQkJ3TkNBQVExcXpoaGxOZ3hHNzZKYVZIK0wrTkE3VU9HSmVtRE5WNXIwbGk0RXAwNmV3N09zeGlRCmI2ZmJ5eDk3b2M1ZUJRcXdlNlkzd295am9saUlCeTh1OWYrcm9BQXdDZ1lJS29aSXpqMEVBd0lEUndBd1JBSWcKUzJZZTkrcWppUWVCNVJ2YURXSkZUYjNtNzIvWXRZR0JYMlVHR3Bjb1k1RUNJRm9VZkIyZ29XZTBXK0tHMmRVNAppdU10UE9MQkRkUUlzbjdUZm1vS1ZpT2wKLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';
const NOW = '2024-01-01T00:00:00Z';
const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: NOW, reason: 'Sample', message: 'sample' });

/** By `<group>/<plural>`. */
export const MINIMAL_OBJECTS: Readonly<Record<string, MinimalObject>> = {
  '/configmaps': { object: { metadata: meta('cm-sample'), data: { key: 'value' }, binaryData: { bin: 'AAEC' } } },
  '/secrets': { object: { metadata: meta('secret-sample'), data: { key: 'dmFsdWU=' }, type: 'Opaque' } },
  '/serviceaccounts': { object: { metadata: meta('sa-sample'), automountServiceAccountToken: false } },
  '/events': {
    object: { metadata: meta('event-sample'), involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Sample', message: 'm', type: 'Normal', count: 1 },
  },
  '/endpoints': { object: { metadata: meta('ep-sample'), subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }] } },
  '/limitranges': { object: { metadata: meta('limits-sample'), spec: { limits: [{ type: 'Container', max: { cpu: '2' }, default: { cpu: '1' } }] } } },
  '/nodes': {
    // As kube returns it: podCIDRs from podCIDR, the not-ready taint (admission), allocatable
    // from capacity and Go's always-present status structs.
    object: { metadata: meta('node-sample'), spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } },
    status: {
      capacity: { cpu: '4', memory: '8Gi' },
      allocatable: { cpu: '4', memory: '8Gi' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: NOW, lastTransitionTime: NOW }],
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: { architecture: '', bootID: '', containerRuntimeVersion: '', kernelVersion: '', kubeProxyVersion: '', kubeletVersion: '', machineID: '', operatingSystem: '', osImage: '', systemUUID: '' },
    },
  },
  '/persistentvolumeclaims': {
    object: { metadata: meta('pvc-sample'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    status: { phase: 'Pending' },
    createdStatus: { phase: 'Pending' },
  },
  '/persistentvolumes': {
    object: { metadata: meta('pv-sample'), spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv-sample' } } },
    status: { phase: 'Available' },
    // A new volume is Pending, since the moment it was created.
    createdStatus: { phase: 'Pending' },
    assigned: { status: ['lastPhaseTransitionTime'] },
  },
  // kube's ServiceAccount admission needs the account to exist (the sample's, created before).
  '/pods': {
    object: { metadata: meta('pod-sample'), spec: { containers: [container], serviceAccountName: 'sa-sample' } },
    // Go writes the zero lastProbeTime as null, as kube answers.
    status: { phase: 'Pending', conditions: [{ ...condition('PodScheduled'), lastProbeTime: null }] },
    createdStatus: { phase: 'Pending', qosClass: 'BestEffort' },
  },
  '/podtemplates': { object: { metadata: meta('podtemplate-sample'), template: podTemplate }, change: { template: { metadata: { labels: { app: 'sample', v: '2' } } } } },
  '/replicationcontrollers': {
    object: { metadata: meta('rc-sample'), spec: { replicas: 1, selector: labels, template: podTemplate } },
    change: { spec: { replicas: 2 } },
    createdStatus: { replicas: 0 },
    status: { replicas: 1, readyReplicas: 1 },
  },
  '/resourcequotas': { object: { metadata: meta('quota-sample'), spec: { hard: { pods: '10' } } }, status: { hard: { pods: '10' }, used: { pods: '1' } } },
  '/services': {
    // As kube defaults it: a Service is all defaults (but the cluster IP, which the server assigns).
    object: {
      metadata: meta('svc-sample'),
      spec: {
        selector: labels,
        ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }],
        type: 'ClusterIP',
        sessionAffinity: 'None',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      },
    },
    // Go writes the empty loadBalancer struct with the conditions, as kube answers.
    status: { conditions: [condition('Sample')], loadBalancer: {} },
    createdStatus: { loadBalancer: {} },
    assigned: { spec: ['clusterIP', 'clusterIPs'] },
  },
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': { object: { metadata: meta('mwc-sample') } },
  'admissionregistration.k8s.io/validatingwebhookconfigurations': { object: { metadata: meta('vwc-sample') } },
  'admissionregistration.k8s.io/validatingadmissionpolicies': {
    object: {
      metadata: meta('vap-sample'),
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'true' }],
      },
    },
    change: { spec: { validations: [{ expression: '1 == 1' }] } },
    status: { observedGeneration: 1, conditions: [condition('Sample')] },
  },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': {
    object: { metadata: meta('vapb-sample'), spec: { policyName: 'vap-sample', validationActions: ['Deny'] } },
    change: { spec: { validationActions: ['Warn'] } },
  },
  'apiregistration.k8s.io/apiservices': {
    object: { metadata: meta('v1.sample.example.com'), spec: { group: 'sample.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 } },
    status: { conditions: [condition('Available')] },
    // A local APIService is created Available (reason Local), stamped with the time of the create.
    assigned: { status: ['conditions'] },
    secondObject: { metadata: meta('v1.sample-pb.example.com'), spec: { group: 'sample-pb.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 } },
  },
  'apps/controllerrevisions': { object: { metadata: meta('cr-sample'), data: { spec: { replicas: 1 } }, revision: 1 } },
  'apps/daemonsets': {
    object: { metadata: meta('ds-sample'), spec: { selector: { matchLabels: labels }, template: podTemplate } },
    change: { spec: { minReadySeconds: 5 } },
    createdStatus: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    status: { currentNumberScheduled: 1, numberMisscheduled: 0, desiredNumberScheduled: 1, numberReady: 1 },
  },
  'apps/deployments': {
    object: { metadata: meta('deploy-sample'), spec: { replicas: 1, selector: { matchLabels: labels }, template: podTemplate } },
    change: { spec: { replicas: 2 } },
    status: { replicas: 1, readyReplicas: 1 },
  },
  'apps/replicasets': {
    object: { metadata: meta('rs-sample'), spec: { replicas: 1, selector: { matchLabels: labels }, template: podTemplate } },
    change: { spec: { replicas: 2 } },
    createdStatus: { replicas: 0 },
    status: { replicas: 1 },
  },
  'apps/statefulsets': {
    object: { metadata: meta('sts-sample'), spec: { replicas: 1, serviceName: 'sts', selector: { matchLabels: labels }, template: podTemplate } },
    change: { spec: { replicas: 2 } },
    createdStatus: { replicas: 0, availableReplicas: 0 },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
  },
  'autoscaling/horizontalpodautoscalers': {
    object: {
      metadata: meta('hpa-sample'),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deploy-sample' },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      },
    },
    createdStatus: { desiredReplicas: 0, currentMetrics: null },
    status: { currentReplicas: 1, desiredReplicas: 1, currentMetrics: null },
  },
  'batch/cronjobs': {
    object: { metadata: meta('cronjob-sample'), spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: jobPodTemplate } } } },
    change: { spec: { schedule: '*/10 * * * *' } },
    status: { lastScheduleTime: NOW },
  },
  'batch/jobs': {
    object: { metadata: meta('job-sample'), spec: { template: jobPodTemplate, backoffLimit: 2 } },
    change: { spec: { backoffLimit: 3 } },
    status: { active: 1, startTime: NOW },
  },
  'certificates.k8s.io/certificatesigningrequests': {
    object: { metadata: meta('csr-sample'), spec: { request: CSR_PEM, signerName: 'example.com/sample', usages: ['digital signature'] } },
    status: { conditions: [{ type: 'Failed', status: 'True', reason: 'Sample', message: 'sample', lastUpdateTime: NOW, lastTransitionTime: NOW }] },
  },
  'coordination.k8s.io/leases': { object: { metadata: meta('lease-sample'), spec: { holderIdentity: 'h', leaseDurationSeconds: 15 } } },
  'discovery.k8s.io/endpointslices': {
    object: { metadata: meta('eps-sample'), addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }], ports: [{ name: '', port: 80, protocol: 'TCP' }] },
    change: { ports: [{ port: 81, protocol: 'TCP' }] },
  },
  'events.k8s.io/events': {
    object: {
      metadata: meta('events-sample'),
      eventTime: '2024-01-01T00:00:00.000001Z',
      reportingController: 'example.com/sample',
      reportingInstance: 'sample-1',
      action: 'Sample',
      reason: 'Sample',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      note: 'n',
    },
  },
  'flowcontrol.apiserver.k8s.io/flowschemas': {
    object: { metadata: meta('fs-sample'), spec: { priorityLevelConfiguration: { name: 'plc-sample' }, matchingPrecedence: 5000 } },
    change: { spec: { matchingPrecedence: 6000 } },
    status: { conditions: [condition('Dangling')] },
  },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': {
    object: { metadata: meta('plc-sample'), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } },
    change: { spec: { limited: { nominalConcurrencyShares: 6 } } },
    status: { conditions: [condition('Sample')] },
  },
  'networking.k8s.io/ingressclasses': { object: { metadata: meta('ic-sample'), spec: { controller: 'example.com/ingress' } } },
  'networking.k8s.io/ingresses': {
    object: { metadata: meta('ing-sample'), spec: { defaultBackend: { service: { name: 'svc-sample', port: { number: 80 } } } } },
    change: { spec: { ingressClassName: 'ic-sample' } },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }] } },
    createdStatus: { loadBalancer: {} },
  },
  'networking.k8s.io/networkpolicies': {
    object: { metadata: meta('np-sample'), spec: { podSelector: { matchLabels: labels }, policyTypes: ['Ingress'] } },
    change: { spec: { policyTypes: ['Ingress', 'Egress'] } },
  },
  'node.k8s.io/runtimeclasses': { object: { metadata: meta('rtc-sample'), handler: 'runc' } },
  'policy/poddisruptionbudgets': {
    object: { metadata: meta('pdb-sample'), spec: { minAvailable: 1, selector: { matchLabels: labels } } },
    change: { spec: { minAvailable: '50%' } },
    createdStatus: { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 },
    status: { currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 },
  },
  'rbac.authorization.k8s.io/clusterroles': { object: { metadata: meta('clusterrole-sample'), rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } },
  'rbac.authorization.k8s.io/clusterrolebindings': {
    object: {
      metadata: meta('crb-sample'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'clusterrole-sample' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    },
  },
  'rbac.authorization.k8s.io/roles': { object: { metadata: meta('role-sample'), rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] } },
  'rbac.authorization.k8s.io/rolebindings': {
    object: {
      metadata: meta('rb-sample'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-sample' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa-sample', namespace: 'default' }],
    },
  },
  'scheduling.k8s.io/priorityclasses': { object: { metadata: meta('pc-sample'), value: 1000, description: 'sample' }, change: { description: 'changed' } },
  'storage.k8s.io/csidrivers': { object: { metadata: meta('csi.sample.example.com'), spec: { attachRequired: true } }, change: { spec: { requiresRepublish: true } } },
  'storage.k8s.io/csinodes': { object: { metadata: meta('node-sample'), spec: { drivers: [{ name: 'csi.sample.example.com', nodeID: 'n1' }] } } },
  'storage.k8s.io/csistoragecapacities': { object: { metadata: meta('csc-sample'), storageClassName: 'sc-sample', capacity: '10Gi' } },
  'storage.k8s.io/storageclasses': { object: { metadata: meta('sc-sample'), provisioner: 'csi.sample.example.com', reclaimPolicy: 'Delete' } },
  'storage.k8s.io/volumeattachments': {
    object: { metadata: meta('va-sample'), spec: { attacher: 'csi.sample.example.com', nodeName: 'node-sample', source: { persistentVolumeName: 'pv-sample' } } },
    status: { attached: true },
    createdStatus: { attached: false },
  },
};
