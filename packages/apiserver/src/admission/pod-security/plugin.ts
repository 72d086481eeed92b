/**
 * kube's PodSecurity admission plugin (1.32, validating only), for CREATE and UPDATE:
 *
 * - Pods (and pods/ephemeralcontainers; other subresources are not checked): the namespace's
 *   policy (policy.ts) is enforced — 403 `pods "<n>" is forbidden: violates PodSecurity
 *   "<level:version>": <violations>` — audited (the `pod-security.kubernetes.io/audit-violations`
 *   audit annotation) and warned about (`Warning: would violate PodSecurity ...`, not on a
 *   refused request). An update that changes no image and no seccomp annotation is allowed as is.
 * - Workloads with a pod template (podtemplates, replicationcontrollers, replicasets,
 *   deployments, statefulsets, daemonsets, jobs, cronjobs): audit and warn only, never refused.
 * - Namespaces: invalid `pod-security.kubernetes.io/*` labels are 422 (on update only when they
 *   changed); raising the enforce level warns about the existing pods that would violate it.
 *
 * Exempt users, namespaces and runtime classes, and the default policy, come from the
 * PodSecurityConfiguration (config.ts). Namespaces are read from an informer copy (with a live
 * read on a miss); existing pods from the registry.
 */
import { invalid, type FieldError, type KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionPlugin, Registry, ResourceDefinition } from '@kapi/registry';
import type { Registry as MetricsRegistry } from 'prom-client';
import { clusterObjects, type ClusterObjects } from '../cluster-objects.js';
import { admissionForbidden } from '../forbidden.js';
import { evaluatePod, forbiddenDetail, forbiddenReason, type PodParts, type Violation } from './checks.js';
import { createPodSecurityMetrics, type PodSecurityMetrics } from './metrics.js';
import { compareLevels, DEFAULT_POLICY, formatLevelVersion, fullyPrivileged, MODES, policyFromLabels, PRIVILEGED_LATEST, sameLevelVersion, type LevelVersion, type Policy } from './policy.js';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map((v) => rec(v)).filter((v): v is Json => v !== undefined) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

const AUDIT_PREFIX = 'pod-security.kubernetes.io/';
/** Pod subresources the plugin leaves alone (kube's ignoredPodSubresources). */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status', 'resize']);
/** kube's limits on the pods checked when a namespace's enforce level rises. */
const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000;

export interface PodSecurityExemptions {
  readonly usernames?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly runtimeClasses?: readonly string[];
}

export interface PodSecurityOptions {
  readonly defaults?: Policy;
  readonly exemptions?: PodSecurityExemptions;
}

/** Where kube's pod_security_* metrics go (none: not recorded). */
export interface PodSecurityWiring {
  readonly metricsRegistry?: MetricsRegistry;
}

/** Where each workload kind keeps its pod template. */
const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  '/podtemplates': ['template'],
  '/replicationcontrollers': ['spec', 'template'],
  'apps/replicasets': ['spec', 'template'],
  'apps/deployments': ['spec', 'template'],
  'apps/statefulsets': ['spec', 'template'],
  'apps/daemonsets': ['spec', 'template'],
  'batch/jobs': ['spec', 'template'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template'],
};

function templateOf(obj: KubeObject, path: readonly string[]): PodParts | undefined {
  let at: Json | undefined = obj as Json;
  for (const key of path) at = rec(at?.[key]);
  const spec = rec(at?.['spec']);
  if (at === undefined || spec === undefined) return undefined;
  return { annotations: (rec(rec(at['metadata'])?.['annotations']) ?? {}) as Record<string, string>, spec };
}

const podParts = (pod: KubeObject): PodParts => ({ annotations: pod.metadata.annotations ?? {}, spec: rec((pod as Json)['spec']) ?? {} });

/** kube's isSignificantPodUpdate: only images and seccomp annotations (and added containers) matter. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const a = podParts(pod);
  const b = podParts(old);
  const seccompPod = 'seccomp.security.alpha.kubernetes.io/pod';
  if (a.annotations[seccompPod] !== b.annotations[seccompPod]) return true;
  const changed = (c: Json, o: Json) => {
    if (str(c['image']) !== str(o['image'])) return true;
    const key = `container.seccomp.security.alpha.kubernetes.io/${str(c['name'])}`;
    return a.annotations[key] !== b.annotations[key];
  };
  for (const field of ['containers', 'initContainers']) {
    const now = list(a.spec[field]);
    const before = list(b.spec[field]);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => changed(c, before[i]!))) return true;
  }
  const oldEphemeral = list(b.spec['ephemeralContainers']);
  for (const c of list(a.spec['ephemeralContainers'])) {
    const o = oldEphemeral.find((x) => x['name'] === c['name']);
    if (o === undefined || changed(c, o)) return true;
  }
  return false;
}

export interface PodSecurity {
  plugin(definition: ResourceDefinition): AdmissionPlugin | undefined;
  start(registry: Pick<Registry, 'lookup'>, onError: (err: unknown) => void): void;
  synced(): boolean;
  stop(): Promise<void>;
}

const NO_METRICS: PodSecurityMetrics = { recordEvaluation: () => undefined, recordExemption: () => undefined, recordError: () => undefined };

export function createPodSecurity(options: PodSecurityOptions = {}, wiring: PodSecurityWiring = {}): PodSecurity {
  const metrics = wiring.metricsRegistry !== undefined ? createPodSecurityMetrics(wiring.metricsRegistry) : NO_METRICS;
  const request = (a: AdmissionAttributes) => ({ operation: a.operation, resource: a.resource.resource, subresource: a.subresource });
  const defaults = options.defaults ?? DEFAULT_POLICY;
  const exemptUsers = new Set(options.exemptions?.usernames ?? []);
  const exemptNamespaces = new Set(options.exemptions?.namespaces ?? []);
  const exemptRuntimeClasses = new Set(options.exemptions?.runtimeClasses ?? []);
  const namespaces: ClusterObjects = clusterObjects('', 'v1', 'namespaces');
  let registry: Pick<Registry, 'lookup'> | undefined;

  const annotate = (a: AdmissionAttributes, key: string, value: string) => a.annotate(AUDIT_PREFIX + key, value);
  const exemptRuntimeClass = (spec: Json) => typeof spec['runtimeClassName'] === 'string' && exemptRuntimeClasses.has(spec['runtimeClassName']);

  /** Whether the namespace or the user is exempt (annotated and counted as kube does). */
  function exempt(a: AdmissionAttributes): boolean {
    const why = exemptNamespaces.has(a.namespace) ? 'namespace' : a.userInfo !== undefined && exemptUsers.has(a.userInfo.name) ? 'user' : undefined;
    if (why === undefined) return false;
    metrics.recordExemption(request(a));
    annotate(a, 'exempt', why);
    return true;
  }

  /** The namespace's policy; undefined (after annotating the error) when the namespace cannot be read. */
  async function namespacePolicy(a: AdmissionAttributes): Promise<{ policy: Policy; errors: FieldError[] } | undefined> {
    let namespace: KubeObject | undefined;
    let failure: string | undefined;
    try {
      namespace = await namespaces.get(a.namespace);
      if (namespace === undefined) failure = `namespaces "${a.namespace}" not found`;
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
    if (namespace === undefined) {
      metrics.recordError(true, request(a));
      annotate(a, 'error', `failed to lookup namespace "${a.namespace}": ${failure ?? ''}`);
      return undefined;
    }
    return policyFromLabels(namespace.metadata.labels, defaults);
  }

  /** kube's EvaluatePod: enforce (pods only), then audit, then warn (unless refused). */
  function evaluate(a: AdmissionAttributes, policy: Policy, policyErrors: readonly FieldError[], pod: PodParts, enforce: boolean): void {
    if (exemptRuntimeClass(pod.spec)) {
      metrics.recordExemption(request(a));
      annotate(a, 'exempt', 'runtimeClass');
      return;
    }
    if (policyErrors.length > 0) metrics.recordError(false, request(a));
    if (policyErrors.length > 0) annotate(a, 'error', `Failed to parse policy: ${policyErrors.length === 1 ? `${policyErrors[0]!.field}: ${policyErrors[0]!.message}` : `[${policyErrors.map((e) => `${e.field}: ${e.message}`).join(', ')}]`}`);
    const results: { lv: LevelVersion; violations: Violation[] }[] = [];
    const resultFor = (lv: LevelVersion) => {
      let found = results.find((r) => sameLevelVersion(r.lv, lv));
      if (found === undefined) {
        found = { lv, violations: evaluatePod(lv, pod) };
        results.push(found);
      }
      return found.violations;
    };
    let refusal: string | undefined;
    if (enforce) {
      annotate(a, 'enforce-policy', formatLevelVersion(policy.enforce));
      const violations = resultFor(policy.enforce);
      if (violations.length > 0) refusal = `violates PodSecurity "${formatLevelVersion(policy.enforce)}": ${forbiddenDetail(violations)}`;
      metrics.recordEvaluation(violations.length > 0 ? 'deny' : 'allow', policy.enforce, 'enforce', request(a));
    }
    const audit = resultFor(policy.audit);
    if (audit.length > 0) {
      annotate(a, 'audit-violations', `would violate PodSecurity "${formatLevelVersion(policy.audit)}": ${forbiddenDetail(audit)}`);
      metrics.recordEvaluation('deny', policy.audit, 'audit', request(a));
    }
    if (refusal !== undefined) throw admissionForbidden(a, refusal);
    const warn = resultFor(policy.warn);
    if (warn.length > 0) {
      a.warn(`would violate PodSecurity "${formatLevelVersion(policy.warn)}": ${forbiddenDetail(warn)}`);
      metrics.recordEvaluation('deny', policy.warn, 'warn', request(a));
    }
  }

  async function validatePod(a: AdmissionAttributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(a.subresource) || a.object === undefined) return;
    if (exempt(a)) return;
    const found = await namespacePolicy(a);
    if (found === undefined) return;
    if (found.errors.length === 0 && fullyPrivileged(found.policy)) {
      metrics.recordEvaluation('allow', found.policy.enforce, 'enforce', request(a));
      return annotate(a, 'enforce-policy', formatLevelVersion(PRIVILEGED_LATEST));
    }
    if (a.operation === 'UPDATE' && a.oldObject !== undefined && !significantPodUpdate(a.object, a.oldObject)) return;
    evaluate(a, found.policy, found.errors, podParts(a.object), true);
  }

  async function validateWorkload(a: AdmissionAttributes, path: readonly string[]): Promise<void> {
    if (a.subresource !== '' || a.object === undefined) return;
    if (exempt(a)) return;
    const found = await namespacePolicy(a);
    if (found === undefined) return;
    if (found.errors.length === 0 && found.policy.warn.level === 'privileged' && found.policy.audit.level === 'privileged') return;
    const template = templateOf(a.object, path);
    if (template === undefined) return;
    evaluate(a, found.policy, found.errors, template, false);
  }

  /** kube's exemptNamespaceWarning: a non-default policy set on an exempt namespace is ignored. */
  function exemptNamespaceWarning(name: string, policy: Policy, labels: Readonly<Record<string, string>>): string | undefined {
    if (fullyPrivileged(policy) || MODES.every((m) => sameLevelVersion(policy[m], defaults[m]))) return undefined;
    const parts: string[] = [];
    for (const mode of MODES) {
      const labelled = labels[`pod-security.kubernetes.io/${mode}`] !== undefined || labels[`pod-security.kubernetes.io/${mode}-version`] !== undefined;
      if (policy[mode].level !== 'privileged' && labelled) parts.push(`${mode}=${formatLevelVersion(policy[mode])}`);
    }
    return `namespace "${name}" is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
  }

  async function validateNamespace(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' || a.object === undefined) return;
    const name = a.object.metadata.name ?? a.name;
    const labels = a.object.metadata.labels ?? {};
    const { policy, errors } = policyFromLabels(labels, defaults);
    const refuseInvalid = () => invalid({ group: '', kind: 'Namespace' }, name, errors);
    if (a.operation === 'CREATE') {
      if (errors.length > 0) throw refuseInvalid();
      if (exemptNamespaces.has(name)) {
        const warning = exemptNamespaceWarning(name, policy, labels);
        if (warning !== undefined) a.warn(warning);
      }
      return;
    }
    if (a.oldObject === undefined) return;
    const old = policyFromLabels(a.oldObject.metadata.labels, defaults);
    if (errors.length > 0 && (old.errors.length === 0 || JSON.stringify(errors) !== JSON.stringify(old.errors))) throw refuseInvalid();
    if (sameLevelVersion(policy.enforce, old.policy.enforce)) return;
    if (policy.enforce.level === 'privileged') return;
    if (policy.enforce.version === old.policy.enforce.version && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return;
    if (exemptNamespaces.has(name)) {
      const warning = exemptNamespaceWarning(name, policy, labels);
      if (warning !== undefined) a.warn(warning);
      return;
    }
    for (const warning of await evaluatePodsInNamespace(name, policy.enforce)) a.warn(warning);
  }

  /** kube's EvaluatePodsInNamespace: one warning per distinct set of reasons, naming a pod. */
  async function evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const lister = registry?.lookup('', 'v1', 'pods')?.lister;
    if (lister === undefined) return [];
    let pods: KubeObject[];
    try {
      pods = (await lister.list({ namespace, userAgent: 'kapi-apiserver' }, {})).items;
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    // One pod per controller first, the controllers' other pods after.
    const first: KubeObject[] = [];
    const rest: KubeObject[] = [];
    const seen = new Set<string>();
    for (const pod of pods) {
      if (exemptRuntimeClass(podParts(pod).spec)) continue;
      const controller = pod.metadata.ownerReferences?.find((o) => o.controller === true);
      if (controller === undefined) first.push(pod);
      else if (seen.has(controller.uid)) rest.push(pod);
      else {
        seen.add(controller.uid);
        first.push(pod);
      }
    }
    const prioritized = [...first, ...rest];
    const total = prioritized.length;
    const toCheck = prioritized.slice(0, NAMESPACE_MAX_PODS_TO_CHECK);
    const deadline = Date.now() + NAMESPACE_POD_CHECK_TIMEOUT_MS;
    const reasons: string[] = [];
    const counts = new Map<string, { podName: string; count: number }>();
    let checked = toCheck.length;
    for (const [i, pod] of toCheck.entries()) {
      const violations = evaluatePod(enforce, podParts(pod));
      if (violations.length > 0) {
        const reason = forbiddenReason(violations);
        const podName = pod.metadata.name ?? '';
        const entry = counts.get(reason);
        if (entry === undefined) {
          reasons.push(reason);
          counts.set(reason, { podName, count: 1 });
        } else {
          if (podName < entry.podName) entry.podName = podName;
          entry.count++;
        }
      }
      if (Date.now() > deadline) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (reasons.length > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${formatLevelVersion(enforce)}"`);
    const decorated = reasons.map((reason) => {
      const { podName, count } = counts.get(reason)!;
      if (count === 1) return `${podName}: ${reason}`;
      if (count === 2) return `${podName} (and 1 other pod): ${reason}`;
      return `${podName} (and ${count - 1} other pods): ${reason}`;
    });
    return [...warnings, ...decorated.sort()];
  }

  const handles = (operation: string) => operation === 'CREATE' || operation === 'UPDATE';
  const podPlugin: AdmissionPlugin = { name: 'PodSecurity', handles, validate: validatePod };
  const namespacePlugin: AdmissionPlugin = { name: 'PodSecurity', handles, validate: validateNamespace };
  const workloadPlugins = new Map<string, AdmissionPlugin>();
  return {
    plugin(definition) {
      const key = `${definition.group}/${definition.plural}`;
      if (key === '/pods') return podPlugin;
      if (key === '/namespaces') return namespacePlugin;
      const path = TEMPLATE_PATHS[key];
      if (path === undefined) return undefined;
      let plugin = workloadPlugins.get(key);
      if (plugin === undefined) {
        plugin = { name: 'PodSecurity', handles, validate: (a) => validateWorkload(a, path) };
        workloadPlugins.set(key, plugin);
      }
      return plugin;
    },
    start(r, onError) {
      registry = r;
      namespaces.start(r, onError);
    },
    synced: () => namespaces.synced(),
    stop: () => namespaces.stop(),
  };
}
