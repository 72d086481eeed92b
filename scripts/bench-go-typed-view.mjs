// Micro-benchmark of goTypedView (managed fields' Go view of a built-in object) and of
// omitEmptyGoCollections (request decoding), warm: µs per call for a ConfigMap with 1 KiB of
// data, one with 10,000 keys, a Deployment and a 3-container Pod. Run after `tsc -b`:
//   node scripts/bench-go-typed-view.mjs [--ms 1500]
import { goTypedView, omitEmptyGoCollections } from '@kapi/machinery';

const msArg = process.argv.indexOf('--ms');
const budgetMs = msArg > 0 ? Number(process.argv[msArg + 1]) : 1500;

const meta = (name) => ({ name, namespace: 'default', uid: '2f1c7a7e-8a8e-4c1c-9f0e-1d2a3b4c5d6e', resourceVersion: '123', creationTimestamp: '2026-11-27T00:00:00Z', labels: { app: name, tier: 'web' }, annotations: { note: 'x' } });

const container = (i) => ({
  name: `c${i}`,
  image: `registry.example/app:${i}`,
  command: ['/bin/app'],
  args: ['--port', '8080', '--verbose'],
  ports: [{ name: 'http', containerPort: 8080 + i, protocol: 'TCP' }],
  env: [{ name: 'A', value: '1' }, { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
  resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
  volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
  livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 3, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
});

const podSpec = () => ({
  containers: [container(0), container(1), container(2)],
  volumes: [{ name: 'data', emptyDir: {} }, { name: 'kube-api-access', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  serviceAccountName: 'default',
  serviceAccount: 'default',
  securityContext: {},
  schedulerName: 'default-scheduler',
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  priority: 0,
  enableServiceLinks: true,
  preemptionPolicy: 'PreemptLowerPriority',
});

const objects = {
  'ConfigMap 1 KiB': ['k8s.io.api.core.v1.ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm'), data: { payload: 'x'.repeat(1024) } }],
  'ConfigMap 10,000 keys': ['k8s.io.api.core.v1.ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('big'), data: Object.fromEntries(Array.from({ length: 10000 }, (_, i) => [`key-${i}`, `value-${i}`])) }],
  Deployment: ['k8s.io.api.apps.v1.Deployment', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('web'),
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container(0)], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
    status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2026-11-27T00:00:00Z', lastTransitionTime: '2026-11-27T00:00:00Z', reason: 'MinimumReplicasAvailable', message: 'ok' }] },
  }],
  'Pod, 3 containers': ['k8s.io.api.core.v1.Pod', {
    apiVersion: 'v1', kind: 'Pod', metadata: meta('pod'), spec: podSpec(),
    status: { phase: 'Pending', qosClass: 'Burstable', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-11-27T00:00:00Z' }] },
  }],
};

function measure(fn) {
  for (let i = 0; i < 200; i++) fn(); // warm
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(budgetMs) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / n;
}

const rows = [];
for (const [label, [message, obj]] of Object.entries(objects)) {
  const view = measure(() => goTypedView(message, obj));
  const omit = measure(() => omitEmptyGoCollections(message, obj));
  rows.push(`| ${label} | ${view.toFixed(2)} | ${omit.toFixed(2)} |`);
}
process.stdout.write(`| object | goTypedView µs | omitEmptyGoCollections µs |\n|---|---:|---:|\n${rows.join('\n')}\n`);
