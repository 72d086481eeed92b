/**
 * kube's defaulting of a core/v1 Pod as clients observe it (SetDefaults_Pod, _PodSpec,
 * _Container, _ContainerPort, _Probe, _HTTPGetAction, _Volume, _ObjectFieldSelector, the
 * volume sources' modes): applied when a body is decoded, so creates, updates, patches and
 * subresource writes all see a defaulted pod, and managedFields record the defaulted fields
 * as kube's do. Mutates the object; never throws.
 */
import type { KubeObject } from '@kapi/machinery';

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function records(value: unknown): Rec[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** The record at `parent[key]`, created when absent. */
function ensure(parent: Rec, key: string): Rec {
  const value = parent[key];
  if (isRecord(value)) return value;
  const fresh: Rec = {};
  parent[key] = fresh;
  return fresh;
}

function setDefault(obj: Rec, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === '') obj[key] = value;
}

/**
 * The tag kube's ParseImageName finds: the text after the last `:` of the last path
 * component, `latest` when there is neither tag nor digest, "" with a digest only.
 */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > lastSlash) return name.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

function defaultHandler(handler: unknown): void {
  if (!isRecord(handler)) return;
  const httpGet = handler['httpGet'];
  if (isRecord(httpGet)) {
    setDefault(httpGet, 'path', '/');
    setDefault(httpGet, 'scheme', 'HTTP');
  }
}

function defaultProbe(probe: unknown): void {
  if (!isRecord(probe)) return;
  defaultHandler(probe);
  for (const [key, value] of [['timeoutSeconds', 1], ['periodSeconds', 10], ['successThreshold', 1], ['failureThreshold', 3]] as const) {
    if (probe[key] === undefined || probe[key] === 0) probe[key] = value;
  }
  const grpc = probe['grpc'];
  if (isRecord(grpc) && grpc['service'] === undefined) grpc['service'] = '';
}

function defaultFieldRef(ref: unknown): void {
  if (isRecord(ref)) setDefault(ref, 'apiVersion', 'v1');
}

/** SetDefaults_Container (also ephemeral containers), ports, probes, env and lifecycle handlers. */
function defaultContainer(container: Rec): void {
  if (container['imagePullPolicy'] === undefined || container['imagePullPolicy'] === '') {
    const image = typeof container['image'] === 'string' ? container['image'] : '';
    container['imagePullPolicy'] = imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
  }
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  for (const port of records(container['ports'])) setDefault(port, 'protocol', 'TCP');
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(container[probe]);
  const lifecycle = container['lifecycle'];
  if (isRecord(lifecycle)) {
    defaultHandler(lifecycle['postStart']);
    defaultHandler(lifecycle['preStop']);
  }
  for (const env of records(container['env'])) {
    const from = env['valueFrom'];
    if (isRecord(from)) defaultFieldRef(from['fieldRef']);
  }
  if (container['resources'] === undefined) container['resources'] = {};
}

/** SetDefaults_Pod: requests default to limits, key by key (containers and init containers). */
function defaultRequestsFromLimits(container: Rec): void {
  const resources = container['resources'];
  if (!isRecord(resources) || !isRecord(resources['limits'])) return;
  const limits = resources['limits'];
  if (Object.keys(limits).length === 0) return;
  const requests = ensure(resources, 'requests');
  for (const [name, value] of Object.entries(limits)) if (requests[name] === undefined) requests[name] = value;
}

/** With hostNetwork, a container port's hostPort defaults to its containerPort. */
function defaultHostNetworkPorts(container: Rec): void {
  for (const port of records(container['ports'])) {
    if (port['hostPort'] === undefined || port['hostPort'] === 0) port['hostPort'] = port['containerPort'];
  }
}

/**
 * The defaults of the volume sources a Pod volume and a PersistentVolume share (hostPath's
 * type, iSCSI's interface, RBD's pool and credentials, Azure Disk's caching and kind, ScaleIO's
 * storage mode and file system): kube defaults both the same way.
 */
export function defaultVolumeSources(source: Rec): void {
  const hostPath = source['hostPath'];
  if (isRecord(hostPath) && hostPath['type'] === undefined) hostPath['type'] = '';
  const iscsi = source['iscsi'];
  if (isRecord(iscsi)) setDefault(iscsi, 'iscsiInterface', 'default');
  const rbd = source['rbd'];
  if (isRecord(rbd)) {
    setDefault(rbd, 'pool', 'rbd');
    setDefault(rbd, 'user', 'admin');
    setDefault(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const azureDisk = source['azureDisk'];
  if (isRecord(azureDisk)) {
    if (azureDisk['cachingMode'] === undefined) azureDisk['cachingMode'] = 'ReadWrite';
    if (azureDisk['kind'] === undefined) azureDisk['kind'] = 'Shared';
    if (azureDisk['fsType'] === undefined) azureDisk['fsType'] = 'ext4';
    if (azureDisk['readOnly'] === undefined) azureDisk['readOnly'] = false;
  }
  const scaleIO = source['scaleIO'];
  if (isRecord(scaleIO)) {
    setDefault(scaleIO, 'storageMode', 'ThinProvisioned');
    setDefault(scaleIO, 'fsType', 'xfs');
  }
}

/**
 * A template a Go pointer holds (a ReplicationController's, an ephemeral volume's claim
 * template) carries the zero creationTimestamp its ObjectMeta always has, which Go writes as
 * null: kube's managedFields record it as set by the creator, and an update that leaves it
 * out must not take it from them.
 */
export function zeroCreationTimestamp(template: Rec): void {
  const metadata = ensure(template, 'metadata');
  if (metadata['creationTimestamp'] === undefined) metadata['creationTimestamp'] = null;
}

/** SetDefaults_PersistentVolumeClaimSpec: a claim's volume mode is Filesystem unless given. */
export function defaultPersistentVolumeClaimSpec(spec: Rec): void {
  if (spec['volumeMode'] === undefined) spec['volumeMode'] = 'Filesystem';
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

/** SetDefaults_Volume and the sources' defaults: no source is an emptyDir; file modes 0644. */
function defaultVolume(volume: Rec): void {
  const sources = Object.keys(volume).filter((k) => k !== 'name');
  if (sources.length === 0) volume['emptyDir'] = {};
  for (const source of VOLUME_SOURCES_WITH_MODE) {
    const value = volume[source];
    if (isRecord(value) && value['defaultMode'] === undefined) value['defaultMode'] = 0o644;
  }
  defaultVolumeSources(volume);
  const ephemeral = volume['ephemeral'];
  if (isRecord(ephemeral) && isRecord(ephemeral['volumeClaimTemplate'])) {
    const template = ephemeral['volumeClaimTemplate'];
    if (isRecord(template['spec'])) defaultPersistentVolumeClaimSpec(template['spec']);
    zeroCreationTimestamp(template);
  }
  const downward = volume['downwardAPI'];
  if (isRecord(downward)) for (const item of records(downward['items'])) defaultFieldRef(item['fieldRef']);
  const projected = volume['projected'];
  if (isRecord(projected)) {
    for (const source of records(projected['sources'])) {
      const token = source['serviceAccountToken'];
      if (isRecord(token) && token['expirationSeconds'] === undefined) token['expirationSeconds'] = 3600;
      const api = source['downwardAPI'];
      if (isRecord(api)) for (const item of records(api['items'])) defaultFieldRef(item['fieldRef']);
    }
  }
}

/** SetDefaults_PodSpec and what it reaches; `pod` is true for Pods (not templates): requests from limits, host ports. */
export function defaultPodSpec(spec: Rec, pod: boolean): void {
  // The v1 conversion keeps serviceAccount, the deprecated alias, equal to serviceAccountName.
  if ((spec['serviceAccountName'] === undefined || spec['serviceAccountName'] === '') && typeof spec['serviceAccount'] === 'string' && spec['serviceAccount'] !== '') {
    spec['serviceAccountName'] = spec['serviceAccount'];
  }
  if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '') spec['serviceAccount'] = spec['serviceAccountName'];
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  if (!isRecord(spec['securityContext'])) spec['securityContext'] = {};
  if (spec['terminationGracePeriodSeconds'] === undefined) spec['terminationGracePeriodSeconds'] = 30;
  setDefault(spec, 'schedulerName', 'default-scheduler');
  const containers = records(spec['containers']);
  const initContainers = records(spec['initContainers']);
  for (const c of [...initContainers, ...containers, ...records(spec['ephemeralContainers'])]) defaultContainer(c);
  for (const volume of records(spec['volumes'])) defaultVolume(volume);
  if (!pod) return;
  for (const c of [...containers, ...initContainers]) defaultRequestsFromLimits(c);
  if (spec['enableServiceLinks'] === undefined) spec['enableServiceLinks'] = true;
  if (spec['hostNetwork'] === true) for (const c of [...containers, ...initContainers]) defaultHostNetworkPorts(c);
}

/** Defaults a Pod in place (its spec is created when absent, as Go's zero struct is). */
export function defaultPod(obj: KubeObject): void {
  defaultPodSpec(ensure(obj, 'spec'), true);
}
