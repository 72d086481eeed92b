/** Pods: the strategy (pods.ts) and the subresources kube serves for them. */
import type { ResourceOverride } from '../../../builtin/override.js';
import { podBehaviour } from './pods.js';

export const podOverride: ResourceOverride = (generated) => ({
  ...generated,
  ...podBehaviour,
  subresources: [...(generated.subresources ?? []), { name: 'ephemeralcontainers', verbs: ['get', 'update', 'patch'] }],
});

/**
 * `bindings` stores nothing (its create binds the pod it names, see binding.ts); its one
 * version is marked the storage version only because every served definition has one.
 */
export const bindingsOverride: ResourceOverride = (generated) => ({
  ...generated,
  versions: generated.versions.map((v) => ({ ...v, storage: true })),
});
