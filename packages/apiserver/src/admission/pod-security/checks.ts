/**
 * kube 1.32's Pod Security Standards checks (k8s.io/pod-security-admission/policy), on v1
 * JSON: each check has an ID, a level, and versions (the first minor version each applies
 * from). A level and version runs the baseline checks, plus for restricted the restricted
 * checks, some of which replace a baseline one; the order is baseline IDs sorted, then
 * restricted IDs sorted, as kube orders them, so that messages read the same.
 */
import { LATEST, type LevelVersion } from './policy.js';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A pod's metadata and spec (of a pod, or of a workload's pod template). */
export interface PodParts {
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: Json;
}

export interface Violation {
  readonly reason: string;
  readonly detail: string;
}

type CheckFn = (pod: PodParts) => Violation | undefined;

interface Check {
  readonly id: string;
  readonly level: 'baseline' | 'restricted';
  /** Baseline checks this one replaces at the restricted level. */
  readonly overrides?: readonly string[];
  /** Newest last: each applies from its minimum minor version. */
  readonly versions: readonly { readonly min: number; readonly check: CheckFn }[];
}

const joinQuote = (items: readonly string[]) => (items.length === 0 ? '' : `"${items.join('", "')}"`);
const pluralize = (singular: string, plural: string, count: number) => (count === 1 ? singular : plural);
const sortedSet = (items: Iterable<string>) => [...new Set(items)].sort();
const quoteGo = (value: string) => JSON.stringify(value);
const containersPhrase = (names: readonly string[]) => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

/** Init containers, containers, then ephemeral containers, as kube visits them. */
function containers(spec: Json): Json[] {
  return [...list(spec['initContainers']), ...list(spec['containers']), ...list(spec['ephemeralContainers'])];
}
const securityContext = (c: Json): Json | undefined => rec(c['securityContext']);
const podSecurityContext = (spec: Json): Json | undefined => rec(spec['securityContext']);
const isWindows = (spec: Json) => str(rec(spec['os'])?.['name']) === 'windows';

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
function appArmorProfile({ annotations, spec }: PodParts): Violation | undefined {
  const allowedType = (t: string) => t === 'RuntimeDefault' || t === 'Localhost';
  const setters: string[] = [];
  const badValues = new Set<string>();
  const podProfile = rec(podSecurityContext(spec)?.['appArmorProfile']);
  if (podProfile !== undefined && !allowedType(str(podProfile['type']))) {
    setters.push('pod');
    badValues.add(str(podProfile['type']));
  }
  const badContainers: string[] = [];
  for (const c of containers(spec)) {
    const profile = rec(securityContext(c)?.['appArmorProfile']);
    if (profile !== undefined && !allowedType(str(profile['type']))) {
      badContainers.push(str(c['name']));
      badValues.add(str(profile['type']));
    }
  }
  if (badContainers.length > 0) setters.push(containersPhrase(badContainers));
  const badAnnotations: string[] = [];
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith(APPARMOR_ANNOTATION_PREFIX) && !(value === '' || value === 'runtime/default' || value.startsWith('localhost/'))) badAnnotations.push(`${key}=${quoteGo(value)}`);
  }
  const values = [...sortedSet(badValues), ...badAnnotations.sort()];
  if (badAnnotations.length > 0) setters.push(pluralize('annotation', 'annotations', badAnnotations.length));
  if (setters.length === 0) return undefined;
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
}

const DEFAULT_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
function capabilitiesBaseline({ spec }: PodParts): Violation | undefined {
  const bad: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const added = (rec(securityContext(c)?.['capabilities'])?.['add'] as unknown[] | undefined) ?? [];
    const forbidden = (Array.isArray(added) ? added : []).map(str).filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (forbidden.length > 0) {
      bad.push(str(c['name']));
      for (const cap of forbidden) caps.add(cap);
    }
  }
  if (bad.length === 0) return undefined;
  return { reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add` };
}

function hostNamespaces({ spec }: PodParts): Violation | undefined {
  const used = ['hostNetwork', 'hostPID', 'hostIPC'].filter((f) => spec[f] === true).map((f) => `${f}=true`).sort();
  return used.length === 0 ? undefined : { reason: 'host namespaces', detail: used.join(', ') };
}

function hostPathVolumes({ spec }: PodParts): Violation | undefined {
  const names = list(spec['volumes']).filter((v) => rec(v['hostPath']) !== undefined).map((v) => str(v['name']));
  return names.length === 0 ? undefined : { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` };
}

function hostPorts({ spec }: PodParts): Violation | undefined {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of containers(spec)) {
    const used = list(c['ports']).map((p) => p['hostPort']).filter((p): p is number => typeof p === 'number' && p !== 0);
    if (used.length > 0) {
      bad.push(str(c['name']));
      for (const p of used) ports.add(String(p));
    }
  }
  if (bad.length === 0) return undefined;
  const sorted = sortedSet(ports);
  return { reason: 'hostPort', detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', sorted.length)} ${sorted.join(', ')}` };
}

function privileged({ spec }: PodParts): Violation | undefined {
  const bad = containers(spec).filter((c) => securityContext(c)?.['privileged'] === true).map((c) => str(c['name']));
  return bad.length === 0 ? undefined : { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
}

function procMount({ spec }: PodParts): Violation | undefined {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const c of containers(spec)) {
    const value = securityContext(c)?.['procMount'];
    if (typeof value === 'string' && value !== 'Default') {
      bad.push(str(c['name']));
      types.add(value);
    }
  }
  return bad.length === 0 ? undefined : { reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
}

const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
function seLinuxOptions({ spec }: PodParts): Violation | undefined {
  const badTypes = new Set<string>();
  let setUser = false;
  let setRole = false;
  const valid = (opts: Json): boolean => {
    let ok = true;
    if (!SELINUX_TYPES.has(str(opts['type']))) {
      ok = false;
      badTypes.add(str(opts['type']));
    }
    if (str(opts['user']) !== '') {
      ok = false;
      setUser = true;
    }
    if (str(opts['role']) !== '') {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOptions = rec(podSecurityContext(spec)?.['seLinuxOptions']);
  if (podOptions !== undefined && !valid(podOptions)) setters.push('pod');
  const bad = containers(spec).filter((c) => {
    const opts = rec(securityContext(c)?.['seLinuxOptions']);
    return opts !== undefined && !valid(opts);
  }).map((c) => str(c['name']));
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  const data: string[] = [];
  if (badTypes.size > 0) data.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
}

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
function seccompBaselineAnnotations({ annotations, spec }: PodParts): Violation | undefined {
  const valid = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const forbidden = new Set<string>();
  const podValue = annotations[SECCOMP_POD_ANNOTATION];
  if (podValue !== undefined && !valid(podValue)) forbidden.add(`${SECCOMP_POD_ANNOTATION}=${quoteGo(podValue)}`);
  for (const c of containers(spec)) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + str(c['name']);
    const value = annotations[key];
    if (value !== undefined && !valid(value)) forbidden.add(`${key}=${quoteGo(value)}`);
  }
  if (forbidden.size === 0) return undefined;
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', forbidden.size)} ${sortedSet(forbidden).join(', ')}` };
}

const validSeccomp = (type: string) => type === 'Localhost' || type === 'RuntimeDefault';
/** Baseline (explicit bad types) or restricted (a type required on the pod or every container) seccomp check. */
function seccompFields(required: boolean, relaxWindows = false): CheckFn {
  return ({ spec }) => {
    if (relaxWindows && isWindows(spec)) return undefined;
    const setters: string[] = [];
    const badValues = new Set<string>();
    let podSet = false;
    const podProfile = rec(podSecurityContext(spec)?.['seccompProfile']);
    if (podProfile !== undefined) {
      if (!validSeccomp(str(podProfile['type']))) {
        setters.push('pod');
        badValues.add(str(podProfile['type']));
      } else {
        podSet = true;
      }
    }
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of containers(spec)) {
      const profile = rec(securityContext(c)?.['seccompProfile']);
      if (profile !== undefined) {
        if (!validSeccomp(str(profile['type']))) {
          explicit.push(str(c['name']));
          badValues.add(str(profile['type']));
        }
      } else if (!podSet) {
        implicit.push(str(c['name']));
      }
    }
    if (explicit.length > 0) setters.push(containersPhrase(explicit));
    if (setters.length > 0) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}` };
    if (required && implicit.length > 0) return { reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
    return undefined;
  };
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_29 = [...SYSCTLS_1_0, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];
function sysctls(allowed: readonly string[]): CheckFn {
  const safe = new Set(allowed);
  return ({ spec }) => {
    const forbidden = list(podSecurityContext(spec)?.['sysctls']).map((s) => str(s['name'])).filter((name) => !safe.has(name));
    return forbidden.length === 0 ? undefined : { reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  };
}

function windowsHostProcess({ spec }: PodParts): Violation | undefined {
  const hostProcess = (ctx: Json | undefined) => rec(ctx?.['windowsOptions'])?.['hostProcess'] === true;
  const bad = containers(spec).filter((c) => hostProcess(securityContext(c))).map((c) => str(c['name']));
  const setters: string[] = [];
  if (hostProcess(podSecurityContext(spec))) setters.push('pod');
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0 ? undefined : { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
}

function allowPrivilegeEscalation(relaxWindows: boolean): CheckFn {
  return ({ spec }) => {
    if (relaxWindows && isWindows(spec)) return undefined;
    const bad = containers(spec).filter((c) => securityContext(c)?.['allowPrivilegeEscalation'] !== false).map((c) => str(c['name']));
    return bad.length === 0 ? undefined : { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
  };
}

function capabilitiesRestricted(relaxWindows: boolean): CheckFn {
  return ({ spec }) => {
    if (relaxWindows && isWindows(spec)) return undefined;
    const missingDrop: string[] = [];
    const adding: string[] = [];
    const caps = new Set<string>();
    for (const c of containers(spec)) {
      const capabilities = rec(securityContext(c)?.['capabilities']);
      if (capabilities === undefined) {
        missingDrop.push(str(c['name']));
        continue;
      }
      const drop = Array.isArray(capabilities['drop']) ? capabilities['drop'].map(str) : [];
      if (!drop.includes('ALL')) missingDrop.push(str(c['name']));
      const add = (Array.isArray(capabilities['add']) ? capabilities['add'].map(str) : []).filter((cap) => cap !== 'NET_BIND_SERVICE');
      if (add.length > 0) {
        adding.push(str(c['name']));
        for (const cap of add) caps.add(cap);
      }
    }
    const details: string[] = [];
    if (missingDrop.length > 0) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
    if (adding.length > 0) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
    return details.length === 0 ? undefined : { reason: 'unrestricted capabilities', detail: details.join('; ') };
  };
}

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker',
  'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'portworxVolume', 'photonPersistentDisk', 'scaleIO', 'storageos',
];
function restrictedVolumes({ spec }: PodParts): Violation | undefined {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const volume of list(spec['volumes'])) {
    if (ALLOWED_VOLUME_SOURCES.some((source) => rec(volume[source]) !== undefined)) continue;
    bad.push(str(volume['name']));
    types.add(RESTRICTED_VOLUME_SOURCES.find((source) => rec(volume[source]) !== undefined) ?? 'unknown');
  }
  if (bad.length === 0) return undefined;
  const sorted = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', sorted.length)} ${joinQuote(sorted)}`,
  };
}

function runAsNonRoot({ spec }: PodParts): Violation | undefined {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = podSecurityContext(spec)?.['runAsNonRoot'];
  if (podValue === false) setters.push('pod');
  else if (podValue === true) podNonRoot = true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const value = securityContext(c)?.['runAsNonRoot'];
    if (typeof value === 'boolean') {
      if (!value) explicit.push(str(c['name']));
    } else if (!podNonRoot) {
      implicit.push(str(c['name']));
    }
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
}

function runAsUser({ spec }: PodParts): Violation | undefined {
  const setters: string[] = [];
  if (podSecurityContext(spec)?.['runAsUser'] === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => securityContext(c)?.['runAsUser'] === 0).map((c) => str(c['name']));
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0 ? undefined : { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` };
}

const CHECKS: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ min: 0, check: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ min: 0, check: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ min: 0, check: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ min: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ min: 0, check: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ min: 0, check: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ min: 0, check: procMount }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ min: 0, check: seLinuxOptions }] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [{ min: 0, check: seccompBaselineAnnotations }, { min: 19, check: seccompFields(false) }] },
  { id: 'sysctls', level: 'baseline', versions: [{ min: 0, check: sysctls(SYSCTLS_1_0) }, { min: 29, check: sysctls(SYSCTLS_1_29) }, { min: 32, check: sysctls(SYSCTLS_1_32) }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ min: 0, check: windowsHostProcess }] },
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [{ min: 8, check: allowPrivilegeEscalation(false) }, { min: 25, check: allowPrivilegeEscalation(true) }] },
  { id: 'capabilities_restricted', level: 'restricted', overrides: ['capabilities_baseline'], versions: [{ min: 22, check: capabilitiesRestricted(false) }, { min: 25, check: capabilitiesRestricted(true) }] },
  { id: 'restrictedVolumes', level: 'restricted', overrides: ['hostPathVolumes'], versions: [{ min: 0, check: restrictedVolumes }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ min: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ min: 23, check: runAsUser }] },
  { id: 'seccompProfile_restricted', level: 'restricted', overrides: ['seccompProfile_baseline'], versions: [{ min: 19, check: seccompFields(true) }, { min: 25, check: seccompFields(true, true) }] },
];

/** The newest version of a check at `version`, or undefined when it does not apply yet. */
function at(check: Check, version: number): CheckFn | undefined {
  let found: CheckFn | undefined;
  for (const v of check.versions) if (v.min <= version) found = v.check;
  return found;
}

const cache = new Map<string, CheckFn[]>();
/** The checks of a level and version, in kube's order (see the file comment). */
function checksFor(lv: LevelVersion): CheckFn[] {
  const key = `${lv.level}:${lv.version}`;
  let checks = cache.get(key);
  if (checks !== undefined) return checks;
  const applicable = CHECKS.filter((c) => (c.level === 'baseline' || lv.level === 'restricted') && at(c, lv.version) !== undefined);
  const overridden = new Set(applicable.flatMap((c) => c.overrides ?? []));
  checks = applicable.filter((c) => !overridden.has(c.id)).map((c) => at(c, lv.version)!);
  cache.set(key, checks);
  return checks;
}

/** The violations of a pod at a level and version (none at privileged), in kube's order. */
export function evaluatePod(lv: LevelVersion, pod: PodParts): Violation[] {
  if (lv.level === 'privileged') return [];
  const out: Violation[] = [];
  for (const check of checksFor(lv)) {
    const violation = check(pod);
    if (violation !== undefined) out.push(violation);
  }
  return out;
}

/** kube's ForbiddenDetail: `reason (detail), reason (detail), ...`. */
export function forbiddenDetail(violations: readonly Violation[]): string {
  return violations.map((v) => (v.detail === '' ? v.reason : `${v.reason} (${v.detail})`)).join(', ');
}

/** kube's ForbiddenReason: the reasons joined. */
export function forbiddenReason(violations: readonly Violation[]): string {
  return violations.map((v) => v.reason).join(', ');
}

export { LATEST };
