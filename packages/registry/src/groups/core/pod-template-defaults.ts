/**
 * kube's defaulting of a PodTemplateSpec inside a workload (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, Job, CronJob, ReplicationController, PodTemplate): the PodSpec
 * defaults every `kubectl get -o yaml` of a workload shows. Shared by every workload so a
 * template is defaulted once, the same way, wherever it lives.
 *
 * This is the minimal set (pod-level scheduling and DNS fields, each container's
 * termination message, image pull policy and `resources: {}`, ports' protocol); Pod
 * defaulting proper (groups/core/pods.ts) is meant to provide the full PodSpec defaults
 * behind the same function.
 */
import { isPlainObject } from '@kapi/machinery';

type Json = Record<string, unknown>;

/** The object at `obj[key]`, created when absent. */
function child(obj: Json, key: string): Json {
  const value = obj[key];
  if (isPlainObject(value)) return value;
  const created: Json = {};
  obj[key] = created;
  return created;
}

function setIfAbsent(obj: Json, key: string, value: unknown): void {
  if (obj[key] === undefined) obj[key] = value;
}

/**
 * kube's image pull policy default: `Always` for `:latest` or an untagged image, else
 * `IfNotPresent` (an image by digest included).
 */
export function defaultImagePullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'Always';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const nameAndTag = image.slice(lastSlash + 1);
  const colon = nameAndTag.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return nameAndTag.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: unknown): void {
  if (!isPlainObject(container)) return;
  setIfAbsent(container, 'terminationMessagePath', '/dev/termination-log');
  setIfAbsent(container, 'terminationMessagePolicy', 'File');
  setIfAbsent(container, 'imagePullPolicy', defaultImagePullPolicy(container['image']));
  setIfAbsent(container, 'resources', {});
  const ports = container['ports'];
  if (Array.isArray(ports)) for (const port of ports) if (isPlainObject(port)) setIfAbsent(port, 'protocol', 'TCP');
}

/** Options: kube leaves a Job's restartPolicy empty (its validation asks for one). */
export interface PodTemplateDefaultsOptions {
  readonly restartPolicy?: boolean;
}

/** Defaults the PodSpec of a workload's `template` in place (absent template: nothing). */
export function defaultPodTemplateSpec(template: unknown, options: PodTemplateDefaultsOptions = {}): void {
  if (!isPlainObject(template)) return;
  const spec = child(template, 'spec');
  if (options.restartPolicy !== false) setIfAbsent(spec, 'restartPolicy', 'Always');
  setIfAbsent(spec, 'terminationGracePeriodSeconds', 30);
  setIfAbsent(spec, 'dnsPolicy', 'ClusterFirst');
  setIfAbsent(spec, 'securityContext', {});
  setIfAbsent(spec, 'schedulerName', 'default-scheduler');
  for (const key of ['containers', 'initContainers']) {
    const containers = spec[key];
    if (Array.isArray(containers)) for (const c of containers) defaultContainer(c);
  }
}
