/**
 * Objects that reach kube's per-kind defaulting (SetDefaults_* of every built-in group) beyond
 * the minimal objects: each is created on kube-apiserver v1.32.13 and on kapi by
 * defaults-vs-kube.test.ts, and the two created objects must be the same. Each sample leaves
 * out what kube fills in, so every default is observed.
 */

export interface DefaultsSample {
  /** Unique within the list; the case name printed on a difference. */
  readonly name: string;
  /** The collection path below the server, e.g. `/api/v1/namespaces/default/pods`. */
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const NS = '/api/v1/namespaces/default';
const meta = (name: string) => ({ name });
const labels = { app: 'defaults' };
const container = { name: 'c', image: 'registry.example/app' };
const template = { metadata: { labels }, spec: { containers: [container] } };
const webhook = (name: string) => ({
  name,
  clientConfig: { service: { namespace: 'default', name: 'hook' } },
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
});

/** The service account pods name (kube's ServiceAccount admission needs it to exist). */
export const SERVICE_ACCOUNT = { path: `${NS}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('defaults-sa') } };

export const DEFAULTS_SAMPLES: readonly DefaultsSample[] = [
  {
    name: 'pod: containers, probes, volumes, limits',
    path: `${NS}/pods`,
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('pod-rich'),
      spec: {
        serviceAccountName: 'defaults-sa',
        initContainers: [{ name: 'init', image: 'registry.example/init:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
        containers: [
          {
            ...container,
            ports: [{ containerPort: 80 }],
            env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            livenessProbe: { httpGet: { port: 80 } },
            readinessProbe: { tcpSocket: { port: 80 } },
            startupProbe: { grpc: { port: 81 } },
            lifecycle: { preStop: { httpGet: { port: 80 } } },
            resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
          },
        ],
        volumes: [
          { name: 'empty' },
          { name: 'secret', secret: { secretName: 's' } },
          { name: 'cm', configMap: { name: 'c' } },
          { name: 'down', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
          { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 't' } }, { downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
          { name: 'host', hostPath: { path: '/tmp' } },
          { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
          { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'https://example/d' } },
          { name: 'eph', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
        ],
      },
    },
  },
  {
    name: 'pod: host network',
    path: `${NS}/pods`,
    body: { apiVersion: 'v1', kind: 'Pod', metadata: meta('pod-hostnet'), spec: { serviceAccountName: 'defaults-sa', hostNetwork: true, containers: [{ ...container, image: 'registry.example/app@sha256:' + 'a'.repeat(64), ports: [{ containerPort: 8080 }] }] } },
  },
  { name: 'service: only a port', path: `${NS}/services`, body: { apiVersion: 'v1', kind: 'Service', metadata: meta('svc-port'), spec: { ports: [{ port: 80 }] } } },
  {
    name: 'service: ClientIP affinity, named target port',
    path: `${NS}/services`,
    body: { apiVersion: 'v1', kind: 'Service', metadata: meta('svc-affinity'), spec: { sessionAffinity: 'ClientIP', ports: [{ name: 'http', port: 80, targetPort: 'web' }] } },
  },
  { name: 'service: headless', path: `${NS}/services`, body: { apiVersion: 'v1', kind: 'Service', metadata: meta('svc-headless'), spec: { clusterIP: 'None', selector: labels } } },
  { name: 'service: ExternalName', path: `${NS}/services`, body: { apiVersion: 'v1', kind: 'Service', metadata: meta('svc-external'), spec: { type: 'ExternalName', externalName: 'example.com' } } },
  { name: 'pv: only a source', path: '/api/v1/persistentvolumes', body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta('pv-defaults'), spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } } },
  { name: 'pvc: only requests', path: `${NS}/persistentvolumeclaims`, body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('pvc-defaults'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
  { name: 'namespace', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: meta('ns-defaults') } },
  { name: 'secret: no type', path: `${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: meta('secret-defaults'), stringData: { k: 'v' } } },
  { name: 'endpoints: port without protocol', path: `${NS}/endpoints`, body: { apiVersion: 'v1', kind: 'Endpoints', metadata: meta('ep-defaults'), subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] } },
  {
    name: 'limitrange: max only',
    path: `${NS}/limitranges`,
    body: { apiVersion: 'v1', kind: 'LimitRange', metadata: meta('lr-defaults'), spec: { limits: [{ type: 'Container', max: { cpu: '2', memory: '1Gi' } }, { type: 'Pod', max: { cpu: '4' } }] } },
  },
  { name: 'replicationcontroller: selector from template', path: `${NS}/replicationcontrollers`, body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: meta('rc-defaults'), spec: { template } } },
  { name: 'podtemplate', path: `${NS}/podtemplates`, body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta('pt-defaults'), template } },
  { name: 'deployment', path: '/apis/apps/v1/namespaces/default/deployments', body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('deploy-defaults'), spec: { selector: { matchLabels: labels }, template } } },
  { name: 'replicaset', path: '/apis/apps/v1/namespaces/default/replicasets', body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta('rs-defaults'), spec: { selector: { matchLabels: labels }, template } } },
  {
    name: 'statefulset: claim templates',
    path: '/apis/apps/v1/namespaces/default/statefulsets',
    body: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta('sts-defaults'),
      spec: { serviceName: 'sts', selector: { matchLabels: labels }, template, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] },
    },
  },
  { name: 'daemonset', path: '/apis/apps/v1/namespaces/default/daemonsets', body: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta('ds-defaults'), spec: { selector: { matchLabels: labels }, template } } },
  {
    name: 'job',
    path: '/apis/batch/v1/namespaces/default/jobs',
    body: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta('job-defaults'), spec: { template: { spec: { containers: [container], restartPolicy: 'Never' } } } },
  },
  {
    name: 'job: indexed',
    path: '/apis/batch/v1/namespaces/default/jobs',
    body: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta('job-indexed'), spec: { completionMode: 'Indexed', completions: 3, template: { spec: { containers: [container], restartPolicy: 'Never' } } } },
  },
  {
    name: 'cronjob',
    path: '/apis/batch/v1/namespaces/default/cronjobs',
    body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta('cj-defaults'), spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { containers: [container], restartPolicy: 'OnFailure' } } } } } },
  },
  {
    name: 'hpa v2: behavior',
    path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers',
    body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: meta('hpa-defaults'), spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3, behavior: { scaleUp: {} } } },
  },
  {
    name: 'hpa v1',
    path: '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers',
    body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: meta('hpa-v1-defaults'), spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
  },
  {
    name: 'ingress',
    path: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
    body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('ing-defaults'), spec: { rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { name: 'http' } } } }] } }] } },
  },
  { name: 'ingressclass: parameters', path: '/apis/networking.k8s.io/v1/ingressclasses', body: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: meta('ic-defaults'), spec: { controller: 'example.com/i', parameters: { kind: 'P', name: 'p' } } } },
  { name: 'networkpolicy: egress rule', path: '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', body: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta('np-egress'), spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } } },
  { name: 'networkpolicy: ingress rule', path: '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', body: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta('np-ingress'), spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] } } },
  { name: 'endpointslice: port without name/protocol', path: '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta('eps-defaults'), addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.2'] }], ports: [{ port: 80 }] } },
  { name: 'storageclass', path: '/apis/storage.k8s.io/v1/storageclasses', body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: meta('sc-defaults'), provisioner: 'example.com/p' } },
  { name: 'csidriver', path: '/apis/storage.k8s.io/v1/csidrivers', body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: meta('csi.defaults.example.com'), spec: {} } },
  { name: 'flowschema', path: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: meta('fs-defaults'), spec: { priorityLevelConfiguration: { name: 'global-default' } } } },
  { name: 'prioritylevel: limited', path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta('plc-limited'), spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } } },
  { name: 'prioritylevel: reject', path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: meta('plc-reject'), spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } } },
  { name: 'mutating webhooks', path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: meta('mwc-defaults'), webhooks: [webhook('m.example.com')] } },
  { name: 'validating webhooks', path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: meta('vwc-defaults'), webhooks: [webhook('v.example.com')] } },
  {
    name: 'validating admission policy',
    path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
    body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: meta('vap-defaults'), spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'true' }] } },
  },
  {
    name: 'validating admission policy binding',
    path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
    body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: meta('vapb-defaults'), spec: { policyName: 'vap-defaults', validationActions: ['Deny'], matchResources: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] } } },
  },
  {
    name: 'clusterrolebinding: subjects without apiGroup',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta('crb-defaults'), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }] },
  },
  {
    name: 'rolebinding: subjects without apiGroup',
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta('rb-defaults'), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'bob' }] },
  },
  { name: 'priorityclass', path: '/apis/scheduling.k8s.io/v1/priorityclasses', body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta('pc-defaults'), value: 10 } },
  { name: 'apiservice: service without port', path: '/apis/apiregistration.k8s.io/v1/apiservices', body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: meta('v1.defaults.example.com'), spec: { group: 'defaults.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: 'default', name: 'api' } } } },
  { name: 'pdb', path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets', body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta('pdb-defaults'), spec: { maxUnavailable: 1 } } },
];
