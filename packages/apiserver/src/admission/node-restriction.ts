/**
 * kube's NodeRestriction admission plugin (1.32): what a node (`system:node:<name>` in
 * `system:nodes`) writes is limited to itself. It may create only mirror pods bound to itself
 * that reference nothing else, delete, evict and update the status of only its own pods,
 * create and update only its own Node (without node-restriction labels, kube labels outside
 * the kubelet's set, taint changes or a new configSource), touch only its own Lease in
 * kube-node-lease and its own CSINode, update only capacity and conditions of PVC status, and
 * request tokens only bound to a pod that runs on it. Other users are not this plugin's
 * business. Pods and nodes are read from informer copies, as kube's listers.
 */
import { forbidden, notFound, type KubeObject, type StatusError } from '@kapi/machinery';
import type { AdmissionPlugin, Registry, RequestContext, ResourceDefinition } from '@kapi/registry';

type CreateAdmission = (req: RequestContext, obj: KubeObject) => Promise<void>;
type UpdateAdmission = (req: RequestContext, name: string, subresource: string, obj: KubeObject, old: KubeObject) => void;
type DeleteAdmission = (req: RequestContext, name: string) => Promise<void>;
import { nodeIdentity } from '../auth/node-authorizer.js';
import { podConfigMapNames, podSecretNames } from '../auth/node-graph.js';
import { ANONYMOUS } from '../auth/user.js';
import { EMPTY_OBJECT_CACHE, startObjectCache, type ObjectCache } from '@kapi/controllers';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const NODE_RESTRICTION_LABEL_NAMESPACE = 'node-restriction.kubernetes.io';
/** The labels a kubelet may set on its Node (k8s.io/kubelet's well-known labels), and the namespaces it owns. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
  'node.kubernetes.io/instance-type', 'beta.kubernetes.io/instance-type',
  'kubernetes.io/os', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

export interface NodeRestriction {
  /** The plugin's part for a resource (kube's NodeRestriction is a mutating plugin: it runs in the mutating phase). */
  plugin(definition: ResourceDefinition): AdmissionPlugin | undefined;
  admitCreate(definition: ResourceDefinition): CreateAdmission | undefined;
  admitUpdate(definition: ResourceDefinition): UpdateAdmission | undefined;
  admitDelete(definition: ResourceDefinition): DeleteAdmission | undefined;
  /**
   * Writes to subresources that are not stored updates (pods/eviction and the other pod
   * subresources); runs once the request is authorized. `verb` is the request's.
   */
  admitSubresource(user: RequestContext['user'], verb: string, info: { group: string; resource: string; subresource: string; namespace: string; name: string }): void;
  /** The check of a TokenRequest's body (serviceaccounts/token). */
  admitTokenRequest(ctx: RequestContext, name: string, body: unknown): void;
  /** Starts the informers the checks read (the plugin's hooks may be handed out before). */
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (namespace: string, domain: string) => namespace === domain || namespace.endsWith(`.${domain}`);

function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((ns) => inNamespace(labelNamespace(key), ns));
}

function modifiedLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (b[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b)) if (a[k] !== v) out.add(k);
  return out;
}

function forbiddenLabels(keys: Set<string>): string[] {
  const out: string[] = [];
  for (const key of keys) {
    const namespace = labelNamespace(key);
    const kube = inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
    if (inNamespace(namespace, NODE_RESTRICTION_LABEL_NAMESPACE) || (kube && !isKubeletLabel(key))) out.push(key);
  }
  return out.sort();
}

/** Equal as Go's semantic DeepEqual sees JSON: key order aside, an empty list equal to none. */
function sameJson(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(norm);
    if (typeof v !== 'object' || v === null) return v;
    const entries = Object.entries(v as Json).map(([k, x]) => [k, norm(x)] as const).filter(([, x]) => x !== undefined && x !== null).sort(([x], [y]) => (x < y ? -1 : 1));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  };
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** The dotted paths where two JSON values differ (kube prints a Go diff here; kapi names the fields). */
function changedFields(a: unknown, b: unknown, path = ''): string[] {
  if (sameJson(a, b)) return [];
  const ra = rec(a);
  const rb = rec(b);
  if (ra === undefined || rb === undefined) return [path === '' ? '.' : path];
  return [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort().flatMap((k) => changedFields(ra[k], rb[k], path === '' ? k : `${path}.${k}`));
}

const labelsOf = (obj: KubeObject) => obj.metadata.labels ?? {};
const specOf = (obj: KubeObject): Json => rec((obj as Json)['spec']) ?? {};

export function createNodeRestriction(): NodeRestriction {
  let pods: ObjectCache = EMPTY_OBJECT_CACHE;
  let nodes: ObjectCache = EMPTY_OBJECT_CACHE;
  const nodeOf = (req: RequestContext): string | undefined => nodeIdentity(req.user ?? ANONYMOUS);
  const refuse = (resource: string, name: string, message: string, group = ''): StatusError => forbidden({ group, resource }, name, message);
  /** The pod as kube's lister answers: its NotFound names the resource `pod`. */
  const existingPod = (namespace: string, name: string): KubeObject => {
    const pod = pods.get(namespace, name);
    if (pod === undefined) throw notFound({ group: '', resource: 'pod' }, name);
    return pod;
  };
  /** Common to every check: a user named as a node but without a name is refused outright. */
  const identify = (req: RequestContext, resource: string, name: string, group = ''): string | undefined => {
    const node = nodeOf(req);
    if (node === '') throw refuse(resource, name, `could not determine node from user "${req.user?.name ?? ''}"`, group);
    return node;
  };

  const admitPodCreate = (node: string, pod: KubeObject) => {
    const name = pod.metadata.name ?? '';
    const no = (message: string) => refuse('pods', name, message);
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) throw no(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    const spec = specOf(pod);
    if (str(spec['nodeName']) !== node) throw no(`node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) throw no(`node "${node}" can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw no(`node "${node}" can only create pods with an owner reference set to itself`);
    const owner = owners[0]!;
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw no(`node "${node}" can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw no(`node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw no(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const found = nodes.get('', node);
    if (found === undefined) throw notFound({ group: '', resource: 'node' }, node);
    if (owner.uid !== found.metadata.uid) throw no(`node ${node} UID mismatch: expected ${owner.uid} got ${found.metadata.uid ?? ''}`);
    if (str(spec['serviceAccountName']) !== '') throw no(`node "${node}" can not create pods that reference a service account`);
    if (podSecretNames(spec).size > 0) throw no(`node "${node}" can not create pods that reference secrets`);
    if (podConfigMapNames(spec).size > 0) throw no(`node "${node}" can not create pods that reference configmaps`);
    const volumes = list(spec['volumes']);
    if (volumes.some((v) => list(rec(v['projected'])?.['sources']).some((s) => rec(s['clusterTrustBundle']) !== undefined))) throw no(`node "${node}" can not create pods that reference clustertrustbundles`);
    if (volumes.some((v) => rec(v['persistentVolumeClaim']) !== undefined)) throw no(`node "${node}" can not create pods that reference persistentvolumeclaims`);
  };

  const admitNodeWrite = (node: string, name: string, obj: KubeObject, old: KubeObject | undefined) => {
    if (name !== node) throw refuse('nodes', name, `node "${node}" is not allowed to modify node "${name}"`);
    const spec = specOf(obj);
    if (old === undefined) {
      if (spec['configSource'] !== undefined && spec['configSource'] !== null) throw refuse('nodes', name, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenLabels(modifiedLabels(labelsOf(obj), {}));
      if (bad.length > 0) throw refuse('nodes', name, `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
      return;
    }
    const oldSpec = specOf(old);
    if (spec['configSource'] !== undefined && spec['configSource'] !== null && !sameJson(spec['configSource'], oldSpec['configSource'])) {
      throw refuse('nodes', name, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!sameJson(spec['taints'], oldSpec['taints'])) throw refuse('nodes', name, `node "${node}" is not allowed to modify taints`);
    const bad = forbiddenLabels(modifiedLabels(labelsOf(obj), labelsOf(old)));
    if (bad.length > 0) throw refuse('nodes', name, `is not allowed to modify labels: ${bad.join(', ')}`);
  };

  const admitLeaseName = (node: string, namespace: string, name: string, what: 'lease' | 'csinode') => {
    const [resource, group] = what === 'lease' ? ['leases', 'coordination.k8s.io'] : ['csinodes', 'storage.k8s.io'];
    if (what === 'lease' && namespace !== NODE_LEASE_NAMESPACE) throw refuse(resource, name, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`, group);
    if (name !== node) throw refuse(resource, name, what === 'lease' ? 'can only access node lease with the same name as the requesting node' : 'can only access CSINode with the same name as the requesting node', group);
  };

  const admitPvcStatus = (node: string, name: string, obj: KubeObject, old: KubeObject) => {
    const strip = (pvc: KubeObject): Json => {
      const copy = JSON.parse(JSON.stringify(pvc)) as Json & { metadata: Json; status?: Json };
      delete copy.metadata['resourceVersion'];
      delete copy.metadata['managedFields'];
      delete copy['apiVersion'];
      delete copy['kind'];
      if (copy.status !== undefined) {
        for (const field of ['capacity', 'conditions', 'allocatedResourceStatuses', 'allocatedResources']) delete copy.status[field];
      }
      return copy;
    };
    if (!sameJson(strip(old), strip(obj))) throw refuse('persistentvolumeclaims', name, `node "${node}" is not allowed to update fields other than status.quantity and status.conditions: ${changedFields(strip(old), strip(obj)).join(', ')}`);
  };

  const key = (d: ResourceDefinition) => `${d.group}/${d.plural}`;
  const self: NodeRestriction = {
    plugin(definition) {
      const create = self.admitCreate(definition);
      const update = self.admitUpdate(definition);
      const remove = self.admitDelete(definition);
      if (create === undefined && update === undefined && remove === undefined) return undefined;
      return {
        name: 'NodeRestriction',
        handles: (operation) => (operation === 'CREATE' && create !== undefined) || (operation === 'UPDATE' && update !== undefined) || (operation === 'DELETE' && remove !== undefined),
        async admit(a) {
          if (a.operation === 'CREATE') await create!(a.request, a.object!);
          else if (a.operation === 'UPDATE') update!(a.request, a.name, a.subresource, a.object!, a.oldObject!);
          else if (a.operation === 'DELETE') await remove!(a.request, a.name);
        },
      };
    },
    admitCreate(definition) {
      switch (key(definition)) {
        case '/pods':
          return (req, pod) => {
            const node = identify(req, 'pods', pod.metadata.name ?? '');
            if (node !== undefined) admitPodCreate(node, pod);
            return Promise.resolve();
          };
        case '/nodes':
          return (req, obj) => {
            const node = identify(req, 'nodes', obj.metadata.name ?? '');
            if (node !== undefined) admitNodeWrite(node, obj.metadata.name ?? '', obj, undefined);
            return Promise.resolve();
          };
        case '/persistentvolumeclaims':
          return (req, obj) => {
            const node = identify(req, 'persistentvolumeclaims', obj.metadata.name ?? '');
            if (node !== undefined) throw refuse('persistentvolumeclaims', obj.metadata.name ?? '', 'may only update PVC status');
            return Promise.resolve();
          };
        case 'coordination.k8s.io/leases':
        case 'storage.k8s.io/csinodes':
          return (req, obj) => {
            const what = definition.plural === 'leases' ? 'lease' : 'csinode';
            const node = identify(req, definition.plural, obj.metadata.name ?? '', definition.group);
            if (node !== undefined) admitLeaseName(node, req.namespace, obj.metadata.name ?? '', what);
            return Promise.resolve();
          };
        default:
          return undefined;
      }
    },
    admitUpdate(definition) {
      switch (key(definition)) {
        case '/pods':
          return (req, name, subresource, obj, old) => {
            const node = identify(req, 'pods', name);
            if (node === undefined) return;
            if (subresource === '') throw refuse('pods', name, `unexpected operation "UPDATE", node "${node}" can only create and delete mirror pods`);
            if (subresource !== 'status') throw refuse('pods', name, `unexpected pod subresource "${subresource}", only 'status' and 'eviction' are allowed`);
            if (str(specOf(old)['nodeName']) !== node) throw refuse('pods', name, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
            if (!sameJson(labelsOf(old), labelsOf(obj))) throw refuse('pods', name, `node "${node}" cannot update labels through pod status`);
            const claims = (p: KubeObject) => list(rec((p as Json)['status'])?.['resourceClaimStatuses']).map((s) => [s['name'], s['resourceClaimName'] ?? null]);
            if (JSON.stringify(claims(old)) !== JSON.stringify(claims(obj))) throw refuse('pods', name, `node "${node}" cannot update resource claim statues`);
          };
        case '/nodes':
          return (req, name, _subresource, obj, old) => {
            const node = identify(req, 'nodes', name);
            if (node !== undefined) admitNodeWrite(node, name, obj, old);
          };
        case '/persistentvolumeclaims':
          return (req, name, subresource, obj, old) => {
            const node = identify(req, 'persistentvolumeclaims', name);
            if (node === undefined) return;
            if (subresource !== 'status') throw refuse('persistentvolumeclaims', name, 'may only update PVC status');
            admitPvcStatus(node, name, obj, old);
          };
        case 'coordination.k8s.io/leases':
        case 'storage.k8s.io/csinodes':
          return (req, name) => {
            const node = identify(req, definition.plural, name, definition.group);
            if (node !== undefined) admitLeaseName(node, req.namespace, name, definition.plural === 'leases' ? 'lease' : 'csinode');
          };
        default:
          return undefined;
      }
    },
    admitDelete(definition) {
      switch (key(definition)) {
        case '/pods':
          return (req, name) => {
            const node = identify(req, 'pods', name);
            // kube reads the pod before admission: a pod that does not exist is the store's 404.
            const pod = node === undefined ? undefined : pods.get(req.namespace, name);
            if (pod !== undefined && str(specOf(pod)['nodeName']) !== node) {
              throw refuse('pods', name, `node "${node}" can only delete pods with spec.nodeName set to itself`);
            }
            return Promise.resolve();
          };
        case '/nodes':
          return (req, name) => {
            const node = identify(req, 'nodes', name);
            if (node !== undefined && name !== node) throw refuse('nodes', name, `node "${node}" is not allowed to modify node "${name}"`);
            return Promise.resolve();
          };
        case '/persistentvolumeclaims':
          return (req, name) => {
            if (identify(req, 'persistentvolumeclaims', name) !== undefined) throw refuse('persistentvolumeclaims', name, 'may only update PVC status');
            return Promise.resolve();
          };
        case 'coordination.k8s.io/leases':
        case 'storage.k8s.io/csinodes':
          return (req, name) => {
            const node = identify(req, definition.plural, name, definition.group);
            if (node !== undefined) admitLeaseName(node, req.namespace, name, definition.plural === 'leases' ? 'lease' : 'csinode');
            return Promise.resolve();
          };
        default:
          return undefined;
      }
    },
    admitSubresource(user, verb, info) {
      if (info.group !== '' || info.resource !== 'pods' || info.subresource === '' || info.subresource === 'status') return;
      if (!['create', 'update', 'patch', 'delete'].includes(verb)) return;
      const node = identify({ namespace: info.namespace, ...(user !== undefined ? { user } : {}) }, 'pods', info.name);
      if (node === undefined) return;
      if (info.subresource !== 'eviction') throw refuse('pods', info.name, `unexpected pod subresource "${info.subresource}", only 'status' and 'eviction' are allowed`);
      if (verb !== 'create') throw refuse('pods', info.name, `unexpected operation ${verb === 'delete' ? 'DELETE' : 'UPDATE'}`);
      if (info.name === '') throw refuse('pods', info.name, 'could not determine pod from request data');
      if (str(specOf(existingPod(info.namespace, info.name))['nodeName']) !== node) throw refuse('pods', info.name, `node ${node} can only evict pods with spec.nodeName set to itself`);
    },
    admitTokenRequest(ctx, name, body) {
      const node = identify(ctx, 'serviceaccounts', name);
      if (node === undefined) return;
      const ref = rec(rec(rec(body)?.['spec'])?.['boundObjectRef']);
      if (ref === undefined || ref['apiVersion'] !== 'v1' || ref['kind'] !== 'Pod' || str(ref['name']) === '') throw refuse('serviceaccounts', name, 'node requested token not bound to a pod');
      if (str(ref['uid']) === '') throw refuse('serviceaccounts', name, 'node requested token with a pod binding without a uid');
      const pod = existingPod(ctx.namespace, str(ref['name']));
      if (str(ref['uid']) !== pod.metadata.uid) {
        throw refuse('serviceaccounts', name, `the UID in the bound object reference (${str(ref['uid'])}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
      if (str(specOf(pod)['nodeName']) !== node) throw refuse('serviceaccounts', name, 'node requested token bound to a pod scheduled on a different node');
    },
    start(registry, onError) {
      pods = startObjectCache(registry, 'pods', onError);
      nodes = startObjectCache(registry, 'nodes', onError);
    },
    synced: () => pods.synced() && nodes.synced(),
    async stop() {
      await Promise.all([pods.stop(), nodes.stop()]);
    },
  };
  return self;
}
