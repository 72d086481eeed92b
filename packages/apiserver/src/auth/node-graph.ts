/**
 * What each node may reach, for the Node authorizer: kube's authorization graph, kept as
 * indexes rather than a general graph. A pod bound to a node (spec.nodeName set) makes that
 * node reach the pod, its service account, and the secrets, configmaps, persistent volume
 * claims and resource claims it references; a persistent volume reaches the claim in its
 * claimRef, and through it the secrets its source names for the kubelet; volume attachments
 * and resource slices name their node. Kept by informers over the registry's watch caches.
 *
 * As kube's graph does, a pod's references are taken when it is bound (or its uid or resource
 * claim statuses change), not on every update: what is added to a running pod later grants
 * nothing. Mirror pods reach nothing but themselves.
 */
import type { KubeObject } from '@kapi/machinery';
import { startInformer, type Informer, type Registry } from '@kapi/registry';

export type VertexType = 'pod' | 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceAccount' | 'resourceclaim' | 'volumeattachment' | 'resourceslice';

export interface NodeGraph {
  /** Whether `node` reaches the object of `type` (namespace "" for cluster-scoped ones). */
  reaches(node: string, type: VertexType, namespace: string, name: string): boolean;
  synced(): boolean;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** The names a pod references, by type (kube's VisitPodSecretNames, VisitPodConfigmapNames and volumes). */
export interface PodReferences {
  readonly secrets: Set<string>;
  readonly configmaps: Set<string>;
  readonly pvcs: Set<string>;
  readonly resourceclaims: Set<string>;
}

function containers(spec: Json): Json[] {
  return [...list(spec['initContainers']), ...list(spec['containers']), ...list(spec['ephemeralContainers'])];
}

/** Every secret name a pod spec references (image pull secrets, env, volumes), as kube visits them. */
export function podSecretNames(spec: Json): Set<string> {
  const names = new Set<string>();
  const add = (name: unknown) => names.add(str(name));
  for (const ref of list(spec['imagePullSecrets'])) add(ref['name']);
  for (const container of containers(spec)) {
    for (const from of list(container['envFrom'])) if (rec(from['secretRef']) !== undefined) add(rec(from['secretRef'])!['name']);
    for (const env of list(container['env'])) {
      const ref = rec(rec(env['valueFrom'])?.['secretKeyRef']);
      if (ref !== undefined) add(ref['name']);
    }
  }
  for (const volume of list(spec['volumes'])) {
    const azureFile = rec(volume['azureFile']);
    if (azureFile !== undefined && str(azureFile['secretName']) !== '') add(azureFile['secretName']);
    for (const plugin of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) {
      const ref = rec(rec(volume[plugin])?.['secretRef']);
      if (ref !== undefined) add(ref['name']);
    }
    for (const source of list(rec(volume['projected'])?.['sources'])) if (rec(source['secret']) !== undefined) add(rec(source['secret'])!['name']);
    if (rec(volume['secret']) !== undefined) add(rec(volume['secret'])!['secretName']);
    const csiRef = rec(rec(volume['csi'])?.['nodePublishSecretRef']);
    if (csiRef !== undefined) add(csiRef['name']);
  }
  return names;
}

/** Every configmap name a pod spec references (env, volumes). */
export function podConfigMapNames(spec: Json): Set<string> {
  const names = new Set<string>();
  const add = (name: unknown) => names.add(str(name));
  for (const container of containers(spec)) {
    for (const from of list(container['envFrom'])) if (rec(from['configMapRef']) !== undefined) add(rec(from['configMapRef'])!['name']);
    for (const env of list(container['env'])) {
      const ref = rec(rec(env['valueFrom'])?.['configMapKeyRef']);
      if (ref !== undefined) add(ref['name']);
    }
  }
  for (const volume of list(spec['volumes'])) {
    for (const source of list(rec(volume['projected'])?.['sources'])) if (rec(source['configMap']) !== undefined) add(rec(source['configMap'])!['name']);
    if (rec(volume['configMap']) !== undefined) add(rec(volume['configMap'])!['name']);
  }
  return names;
}

function podReferences(pod: KubeObject): PodReferences {
  const spec = rec((pod as Json)['spec']) ?? {};
  const pvcs = new Set<string>();
  for (const volume of list(spec['volumes'])) {
    const claim = rec(volume['persistentVolumeClaim']);
    if (claim !== undefined) pvcs.add(str(claim['claimName']));
    else if (rec(volume['ephemeral']) !== undefined) pvcs.add(`${pod.metadata.name ?? ''}-${str(volume['name'])}`);
  }
  // kube's resourceclaim.Name: a claim named in the spec, or the one generated from a template as the status records it.
  const statuses = list(rec((pod as Json)['status'])?.['resourceClaimStatuses']);
  const resourceclaims = new Set<string>();
  for (const claim of list(spec['resourceClaims'])) {
    if (str(claim['resourceClaimName']) !== '') resourceclaims.add(str(claim['resourceClaimName']));
    else if (str(claim['resourceClaimTemplateName']) !== '') {
      const generated = str(statuses.find((s) => s['name'] === claim['name'])?.['resourceClaimName']);
      if (generated !== '') resourceclaims.add(generated);
    }
  }
  pvcs.delete('');
  return { secrets: podSecretNames(spec), configmaps: podConfigMapNames(spec), pvcs, resourceclaims };
}

/** The secrets a persistent volume's source names for the kubelet (kube's kubelet-visible PV secrets), as namespace/name. */
function pvSecretKeys(pv: KubeObject): string[] {
  const spec = rec((pv as Json)['spec']) ?? {};
  const claimNamespace = str(rec(spec['claimRef'])?.['namespace']);
  const keys: string[] = [];
  const azureFile = rec(spec['azureFile']);
  if (azureFile !== undefined && str(azureFile['secretName']) !== '') keys.push(`${str(azureFile['secretNamespace']) || claimNamespace}/${str(azureFile['secretName'])}`);
  for (const plugin of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi']) {
    const ref = rec(rec(spec[plugin])?.['secretRef']);
    if (ref !== undefined) keys.push(`${str(ref['namespace']) || claimNamespace}/${str(ref['name'])}`);
  }
  const storageos = rec(rec(spec['storageos'])?.['secretRef']);
  if (storageos !== undefined) keys.push(`${str(storageos['namespace'])}/${str(storageos['name'])}`);
  const csi = rec(spec['csi']);
  for (const field of ['nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef']) {
    const ref = rec(csi?.[field]);
    if (ref !== undefined) keys.push(`${str(ref['namespace'])}/${str(ref['name'])}`);
  }
  return keys;
}

interface BoundPod {
  readonly node: string;
  readonly uid: string;
  readonly claimStatuses: string;
  readonly serviceAccount: string;
  readonly refs: PodReferences | undefined;
}

/** Counts per key and node: how many bound pods make the node reach the key. */
class Reach {
  private readonly counts = new Map<string, Map<string, number>>();
  add(key: string, node: string, delta: number): void {
    let byNode = this.counts.get(key);
    if (byNode === undefined) this.counts.set(key, (byNode = new Map()));
    const count = (byNode.get(node) ?? 0) + delta;
    if (count > 0) byNode.set(node, count);
    else byNode.delete(node);
    if (byNode.size === 0) this.counts.delete(key);
  }
  has(key: string, node: string): boolean {
    return this.counts.get(key)?.has(node) === true;
  }
  clear(): void {
    this.counts.clear();
  }
}

/** The graph over what the registry serves; resources it does not serve contribute nothing. */
export function startNodeGraph(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): NodeGraph {
  const pods = new Map<string, BoundPod>();
  const reach = new Reach();
  /** persistent volume name → its claim (namespace/name) and the secrets it names. */
  const pvs = new Map<string, { claim: string; secrets: string[] }>();
  const attachments = new Map<string, string>();
  const slices = new Map<string, string>();

  const apply = (key: string, pod: BoundPod, delta: number) => {
    const namespace = key.slice(0, key.indexOf('/'));
    reach.add(`pod\u0000${key}`, pod.node, delta);
    if (pod.refs === undefined) return;
    if (pod.serviceAccount !== '') reach.add(`serviceAccount\u0000${namespace}/${pod.serviceAccount}`, pod.node, delta);
    for (const [type, names] of [['secret', pod.refs.secrets], ['configmap', pod.refs.configmaps], ['pvc', pod.refs.pvcs], ['resourceclaim', pod.refs.resourceclaims]] as const) {
      for (const name of names) reach.add(`${type}\u0000${namespace}/${name}`, pod.node, delta);
    }
  };
  const removePod = (key: string) => {
    const old = pods.get(key);
    if (old === undefined) return;
    apply(key, old, -1);
    pods.delete(key);
  };
  const updatePod = (pod: KubeObject) => {
    const spec = rec((pod as Json)['spec']) ?? {};
    const node = str(spec['nodeName']);
    if (node === '') return;
    const key = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
    const uid = pod.metadata.uid ?? '';
    const claimStatuses = JSON.stringify(list(rec((pod as Json)['status'])?.['resourceClaimStatuses']).map((s) => [s['name'], s['resourceClaimName'] ?? null]));
    const old = pods.get(key);
    if (old !== undefined && old.node === node && old.uid === uid && old.claimStatuses === claimStatuses) return;
    removePod(key);
    const mirror = pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
    const bound: BoundPod = { node, uid, claimStatuses, serviceAccount: mirror ? '' : str(spec['serviceAccountName']), refs: mirror ? undefined : podReferences(pod) };
    pods.set(key, bound);
    apply(key, bound, 1);
  };

  const informers: Informer[] = [];
  const watch = (group: string, version: string, plural: string, handlers: { reset(): void; set(obj: KubeObject): void; remove(obj: KubeObject): void }) => {
    const resource = registry.lookup(group, version, plural);
    if (resource === undefined) return;
    informers.push(startInformer(resource, {
      onList(items) {
        handlers.reset();
        for (const item of items) handlers.set(item);
      },
      onEvent(type, obj) {
        if (type === 'DELETED') handlers.remove(obj);
        else handlers.set(obj);
      },
    }, { userAgent: `kapi-apiserver/node-authorizer-${plural}`, onError }));
  };
  const nameOf = (obj: KubeObject) => obj.metadata.name ?? '';
  const nodeNameOf = (obj: KubeObject) => str(rec((obj as Json)['spec'])?.['nodeName']);
  watch('', 'v1', 'pods', {
    reset() {
      pods.clear();
      reach.clear();
    },
    set: updatePod,
    remove: (pod) => removePod(`${pod.metadata.namespace ?? ''}/${nameOf(pod)}`),
  });
  watch('', 'v1', 'persistentvolumes', {
    reset: () => pvs.clear(),
    set(pv) {
      const claimRef = rec(rec((pv as Json)['spec'])?.['claimRef']);
      if (claimRef === undefined) pvs.delete(nameOf(pv));
      else pvs.set(nameOf(pv), { claim: `${str(claimRef['namespace'])}/${str(claimRef['name'])}`, secrets: pvSecretKeys(pv) });
    },
    remove: (pv) => pvs.delete(nameOf(pv)),
  });
  watch('storage.k8s.io', 'v1', 'volumeattachments', {
    reset: () => attachments.clear(),
    set: (va) => (nodeNameOf(va) === '' ? attachments.delete(nameOf(va)) : attachments.set(nameOf(va), nodeNameOf(va))),
    remove: (va) => attachments.delete(nameOf(va)),
  });
  for (const version of ['v1beta1', 'v1alpha3']) {
    if (registry.lookup('resource.k8s.io', version, 'resourceslices') === undefined) continue;
    watch('resource.k8s.io', version, 'resourceslices', {
      reset: () => slices.clear(),
      set: (slice) => (nodeNameOf(slice) === '' ? slices.delete(nameOf(slice)) : slices.set(nameOf(slice), nodeNameOf(slice))),
      remove: (slice) => slices.delete(nameOf(slice)),
    });
    break;
  }

  const pvReached = (node: string, name: string) => {
    const pv = pvs.get(name);
    return pv !== undefined && reach.has(`pvc\u0000${pv.claim}`, node);
  };
  return {
    reaches(node, type, namespace, name) {
      switch (type) {
        case 'pv':
          return pvReached(node, name);
        case 'volumeattachment':
          return attachments.get(name) === node;
        case 'resourceslice':
          return slices.get(name) === node;
        case 'secret':
          if (reach.has(`secret\u0000${namespace}/${name}`, node)) return true;
          for (const [pvName, pv] of pvs) if (pv.secrets.includes(`${namespace}/${name}`) && pvReached(node, pvName)) return true;
          return false;
        default:
          return reach.has(`${type}\u0000${namespace}/${name}`, node);
      }
    },
    synced: () => informers.every((i) => i.synced()),
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
