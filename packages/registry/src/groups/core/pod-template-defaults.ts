/**
 * kube's defaulting of a PodTemplateSpec inside a workload (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, Job, CronJob, ReplicationController, PodTemplate): the PodSpec
 * defaults of Pods (pods/pod-defaults.ts) without what only Pods get, so a template is
 * defaulted the same way wherever it lives.
 */
import { isPlainObject } from '@kapi/machinery';
import { defaultPodSpec } from './pods/pod-defaults.js';

/** Options: kube leaves a Job's restartPolicy empty (its validation asks for one). */
export interface PodTemplateDefaultsOptions {
  readonly restartPolicy?: boolean;
}

/** Defaults the PodSpec of a workload's `template` in place (absent template: nothing). */
export function defaultPodTemplateSpec(template: unknown, options: PodTemplateDefaultsOptions = {}): void {
  if (!isPlainObject(template)) return;
  if (!isPlainObject(template['spec'])) template['spec'] = {};
  const spec = template['spec'] as Record<string, unknown>;
  const hadRestartPolicy = spec['restartPolicy'] !== undefined;
  defaultPodSpec(spec, false);
  if (options.restartPolicy === false && !hadRestartPolicy) delete spec['restartPolicy'];
}
