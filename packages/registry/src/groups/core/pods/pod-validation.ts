/**
 * The parts of kube's ValidatePodCreate/ValidatePodUpdate clients rely on, with kube's
 * field paths and messages: containers required, container and volume names (DNS-1123
 * labels, unique), images, enumerated fields, ports; on update, a spec that may change only
 * images, activeDeadlineSeconds, added tolerations and removed scheduling gates.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldNotSupported, fieldRequired, isDNS1123Label, isQualifiedName, isValidLabelValue } from '@kapi/machinery';
import { quantityNanos } from './pod-qos.js';
import { semanticEqual } from '../../../semantic-equal.js';
import type { PodSpecPolicy } from '../../../validate-object.js';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

function list(value: unknown): Rec[] {
  return Array.isArray(value) ? value.map(rec) : [];
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

function checkEnum(errs: FieldError[], path: string, value: unknown, allowed: readonly string[], required: boolean): void {
  if (value === undefined || value === '') {
    if (required) errs.push(fieldRequired(path));
    return;
  }
  if (typeof value !== 'string' || !allowed.includes(value)) errs.push(fieldNotSupported(path, value, allowed));
}

/** kube's IsValidPortName (IANA service names). */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  return errs;
}

function validatePorts(errs: FieldError[], path: string, container: Rec): void {
  const names = new Set<string>();
  list(container['ports']).forEach((port, i) => {
    const at = `${path}.ports[${i}]`;
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (name !== '') {
      for (const msg of portNameErrors(name)) errs.push(fieldInvalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
    const containerPort = port['containerPort'];
    if (containerPort === undefined || containerPort === 0) errs.push(fieldRequired(`${at}.containerPort`));
    else if (typeof containerPort !== 'number' || containerPort < 1 || containerPort > 65535) errs.push(fieldInvalid(`${at}.containerPort`, containerPort, PORT_RANGE));
    const hostPort = port['hostPort'];
    if (typeof hostPort === 'number' && hostPort !== 0 && (hostPort < 1 || hostPort > 65535)) errs.push(fieldInvalid(`${at}.hostPort`, hostPort, PORT_RANGE));
    checkEnum(errs, `${at}.protocol`, port['protocol'], PROTOCOLS, true);
  });
}

const ENV_NAME = "a valid environment variable name must consist only of printable ASCII characters other than '='";

function validateEnv(errs: FieldError[], path: string, container: Rec): void {
  list(container['env']).forEach((env, i) => {
    const name = typeof env['name'] === 'string' ? env['name'] : '';
    if (name === '') errs.push(fieldRequired(`${path}.env[${i}].name`));
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(name)) errs.push(fieldInvalid(`${path}.env[${i}].name`, name, ENV_NAME));
  });
}

function validateVolumeMounts(errs: FieldError[], path: string, container: Rec, volumes: ReadonlySet<string>): void {
  const paths = new Set<string>();
  list(container['volumeMounts']).forEach((mount, i) => {
    const at = `${path}.volumeMounts[${i}]`;
    const name = typeof mount['name'] === 'string' ? mount['name'] : '';
    if (name === '') errs.push(fieldRequired(`${at}.name`));
    else if (!volumes.has(name)) errs.push(fieldNotFound(`${at}.name`, name));
    const mountPath = typeof mount['mountPath'] === 'string' ? mount['mountPath'] : '';
    if (mountPath === '') errs.push(fieldRequired(`${at}.mountPath`));
    else if (paths.has(mountPath)) errs.push(fieldInvalid(`${at}.mountPath`, mountPath, 'must be unique'));
    paths.add(mountPath);
  });
}

/** Each request at most its limit (kube's ValidateContainerResourceRequirements, in part). */
function validateResources(errs: FieldError[], path: string, container: Rec): void {
  const resources = rec(container['resources']);
  const requests = rec(resources['requests']);
  const limits = rec(resources['limits']);
  for (const [name, request] of Object.entries(requests)) {
    const limit = limits[name];
    if (limit === undefined) continue;
    const r = quantityNanos(String(request));
    const l = quantityNanos(String(limit));
    if (r !== undefined && l !== undefined && r > l) {
      errs.push(fieldInvalid(`${path}.resources.requests`, String(request), `must be less than or equal to ${name} limit of ${String(limit)}`));
    }
  }
}

function validateContainers(errs: FieldError[], path: string, containers: Rec[], names: Set<string>, volumes: ReadonlySet<string>): void {
  containers.forEach((container, i) => {
    const at = `${path}[${i}]`;
    const name = typeof container['name'] === 'string' ? container['name'] : '';
    if (name === '') errs.push(fieldRequired(`${at}.name`));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(fieldInvalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
    const image = typeof container['image'] === 'string' ? container['image'] : '';
    if (image.trim() === '') errs.push(fieldRequired(`${at}.image`));
    else if (image !== image.trim()) errs.push(fieldInvalid(`${at}.image`, image, 'must not have leading or trailing whitespace'));
    checkEnum(errs, `${at}.terminationMessagePolicy`, container['terminationMessagePolicy'], MESSAGE_POLICIES, true);
    validatePorts(errs, at, container);
    validateEnv(errs, at, container);
    validateVolumeMounts(errs, at, container, volumes);
    checkEnum(errs, `${at}.imagePullPolicy`, container['imagePullPolicy'], PULL_POLICIES, true);
    validateResources(errs, at, container);
  });
}

function validateVolumes(errs: FieldError[], volumes: Rec[]): void {
  const names = new Set<string>();
  volumes.forEach((volume, i) => {
    const name = typeof volume['name'] === 'string' ? volume['name'] : '';
    if (name === '') errs.push(fieldRequired(`spec.volumes[${i}].name`));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(fieldInvalid(`spec.volumes[${i}].name`, name, msg));
      if (names.has(name)) errs.push(fieldDuplicate(`spec.volumes[${i}].name`, name));
      names.add(name);
    }
  });
}

/** The spec checks of every pod write (kube's ValidatePodSpec, in part). */
export function validatePod(pod: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(pod['spec']);
  validateVolumes(errs, list(spec['volumes']));
  const volumes = new Set(list(spec['volumes']).map((v) => String(v['name'] ?? '')));
  const names = new Set<string>();
  const containers = list(spec['containers']);
  if (containers.length === 0) errs.push(fieldRequired('spec.containers'));
  validateContainers(errs, 'spec.containers', containers, names, volumes);
  validateContainers(errs, 'spec.initContainers', list(spec['initContainers']), names, volumes);
  validateContainers(errs, 'spec.ephemeralContainers', list(spec['ephemeralContainers']), names, volumes);
  checkEnum(errs, 'spec.restartPolicy', spec['restartPolicy'], RESTART_POLICIES, true);
  checkEnum(errs, 'spec.dnsPolicy', spec['dnsPolicy'], DNS_POLICIES, true);
  const deadline = spec['activeDeadlineSeconds'];
  if (typeof deadline === 'number' && (deadline < 1 || deadline > 2147483647)) {
    errs.push(fieldInvalid('spec.activeDeadlineSeconds', deadline, 'must be between 1 and 2147483647, inclusive'));
  }
  for (const [key, value] of Object.entries(rec(spec['nodeSelector']))) {
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid('spec.nodeSelector', key, msg));
    for (const msg of isValidLabelValue(String(value))) errs.push(fieldInvalid('spec.nodeSelector', value, msg));
  }
  const nodeName = spec['nodeName'];
  if (typeof nodeName === 'string' && nodeName !== '') {
    // kube validates node names as it validates Node object names.
    for (const msg of isNodeName(nodeName)) errs.push(fieldInvalid('spec.nodeName', nodeName, msg));
  }
  return errs;
}

function isNodeName(name: string): string[] {
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name) && name.length <= 253
    ? []
    : ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"];
}

export const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The new spec with everything an update may change taken from the old one (kube's munging). */
function mungedSpec(spec: Rec, old: Rec): Rec {
  const out: Rec = { ...spec };
  const withOldImages = (key: string) => {
    const before = list(old[key]);
    const after = list(spec[key]);
    if (after.length === 0) return;
    out[key] = after.map((c, i) => (i < before.length ? { ...c, image: before[i]!['image'] } : c));
  };
  withOldImages('containers');
  withOldImages('initContainers');
  if (old['activeDeadlineSeconds'] === undefined) delete out['activeDeadlineSeconds'];
  else out['activeDeadlineSeconds'] = spec['activeDeadlineSeconds'] === undefined ? undefined : old['activeDeadlineSeconds'];
  if (out['activeDeadlineSeconds'] === undefined) delete out['activeDeadlineSeconds'];
  if (spec['tolerations'] !== undefined || old['tolerations'] !== undefined) out['tolerations'] = old['tolerations'];
  if (out['tolerations'] === undefined) delete out['tolerations'];
  if (spec['schedulingGates'] !== undefined || old['schedulingGates'] !== undefined) out['schedulingGates'] = old['schedulingGates'];
  if (out['schedulingGates'] === undefined) delete out['schedulingGates'];
  const grace = old['terminationGracePeriodSeconds'];
  if (typeof grace === 'number' && grace < 0 && spec['terminationGracePeriodSeconds'] === 1) out['terminationGracePeriodSeconds'] = grace;
  return out;
}

/** A short account of the spec fields that differ (kube prints a Go diff here). */
function specDiff(spec: Rec, old: Rec): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(spec)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    if (semanticEqual(spec[key], old[key])) continue;
    if (old[key] !== undefined) lines.push(`- \t${key}: ${JSON.stringify(old[key])},`);
    if (spec[key] !== undefined) lines.push(`+ \t${key}: ${JSON.stringify(spec[key])},`);
  }
  return `  core.PodSpec{\n${lines.join('\n')}\n  }\n`;
}

function tolerationKey(t: Rec): string {
  return JSON.stringify([t['key'] ?? '', t['operator'] ?? '', t['value'] ?? '', t['effect'] ?? '', t['tolerationSeconds'] ?? null]);
}

/** kube's ValidatePodUpdate, in part: the immutable spec, activeDeadlineSeconds, tolerations and scheduling gates. */
export function validatePodUpdate(pod: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(pod['spec']);
  const oldSpec = rec(old['spec']);
  const deadline = spec['activeDeadlineSeconds'];
  const oldDeadline = oldSpec['activeDeadlineSeconds'];
  if (typeof oldDeadline === 'number') {
    if (typeof deadline !== 'number') errs.push(fieldInvalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
    else if (deadline > oldDeadline) errs.push(fieldInvalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'));
  }
  const before = new Set(list(oldSpec['tolerations']).map(tolerationKey));
  const after = new Set(list(spec['tolerations']).map(tolerationKey));
  const removedToleration = [...before].some((t) => !after.has(t));
  const oldGates = list(oldSpec['schedulingGates']).map((g) => String(g['name'] ?? ''));
  list(spec['schedulingGates']).forEach((gate) => {
    const name = String(gate['name'] ?? '');
    if (!oldGates.includes(name)) errs.push(fieldForbidden('spec.schedulingGates', `only deletion is allowed, but found new scheduling gate '${name}'`));
  });
  if (removedToleration) errs.push(fieldForbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
  const munged = mungedSpec(spec, oldSpec);
  if (!semanticEqual(munged, oldSpec)) errs.push(fieldForbidden('spec', `${POD_UPDATE_FORBIDDEN}\n${specDiff(munged, oldSpec)}`));
  return errs;
}

function ipFamily(ip: string): 'v4' | 'v6' | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return 'v4';
  return ip.includes(':') ? 'v6' : undefined;
}

/** kube's ValidatePodStatusUpdate, in part: the nominated node's name and one pod IP per family. */
export function validatePodStatus(pod: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const status = rec(pod['status']);
  const nominated = status['nominatedNodeName'];
  if (typeof nominated === 'string' && nominated !== '') {
    for (const msg of isNodeName(nominated)) errs.push(fieldInvalid('status.nominatedNodeName', nominated, msg));
  }
  const ips = list(status['podIPs']).map((p) => String(p['ip'] ?? ''));
  const families = ips.map(ipFamily);
  if (ips.length > 1 && new Set(families).size < families.length) {
    // kube prints the Go value (%#v) of the list.
    const goValue = `[]core.PodIP{${ips.map((ip) => `core.PodIP{IP:${JSON.stringify(ip)}}`).join(', ')}}`;
    errs.push({ type: 'FieldValueInvalid', field: 'status.podIPs', message: `Invalid value: ${goValue}: may specify no more than one IP for each IP family` });
  }
  return errs;
}

/** Where each kind keeps its pod spec (a Pod's own, or its template's). */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  '/pods': ['spec'],
  '/podtemplates': ['template', 'spec'],
  '/replicationcontrollers': ['spec', 'template', 'spec'],
  'apps/replicasets': ['spec', 'template', 'spec'],
  'apps/deployments': ['spec', 'template', 'spec'],
  'apps/statefulsets': ['spec', 'template', 'spec'],
  'apps/daemonsets': ['spec', 'template', 'spec'],
  'batch/jobs': ['spec', 'template', 'spec'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

/**
 * kube's --allow-privileged=false (its default), as its pod spec validation applies it: a
 * container (regular, init or ephemeral) may not be privileged, and a pod may not run Windows
 * hostProcess containers. Checked wherever kube validates a pod spec: a Pod's create and every
 * write of a kind with a pod template (`group/plural`; other kinds: none).
 */
export function privilegedPolicy(groupPlural: string): PodSpecPolicy | undefined {
  const path = POD_SPEC_PATHS[groupPlural];
  if (path === undefined) return undefined;
  const where = path.join('.');
  const check = (obj: KubeObject): FieldError[] => {
    let at: Rec = obj as unknown as Rec;
    for (const key of path) at = rec(at[key]);
    const errs: FieldError[] = [];
    const podHostProcess = rec(rec(at['securityContext'])['windowsOptions'])['hostProcess'];
    let hostProcess = false;
    for (const field of ['containers', 'initContainers', 'ephemeralContainers']) {
      list(at[field]).forEach((container, i) => {
        const context = rec(container['securityContext']);
        if (context['privileged'] === true) errs.push(fieldForbidden(`${where}.${field}[${i}].securityContext.privileged`, 'disallowed by cluster policy'));
        const own = rec(context['windowsOptions'])['hostProcess'];
        if (own === true || (own === undefined && podHostProcess === true)) hostProcess = true;
      });
    }
    if (hostProcess) errs.push(fieldForbidden(where, 'hostProcess containers are disallowed by cluster policy'));
    return errs;
  };
  return { check, onUpdate: groupPlural !== '/pods' };
}
