/**
 * kube's per-kind defaulting of the built-in kinds (the SetDefaults_* functions of each API
 * group), declared in one `defaults.ts` per group folder (groups/<group>/defaults.ts) and
 * composed into each served definition's strategy by served.ts. Defaulting never adds what
 * kube's Go types would leave out: only fields kube sets, with kube's values.
 */
import type { KubeObject } from '@kapi/machinery';
import type { RequestContext, ResourceDefinition } from '../definition.js';

export interface KindDefaults {
  /**
   * kube's SetDefaults_* of the kind: runs on every decoded body (create, update, patch,
   * subresource writes) after the kind's own decode step, before managedFields are computed,
   * so they record the defaulted fields as kube's do. Mutates the object; never throws.
   */
  readonly decode?: (obj: KubeObject) => void;
  /**
   * What a created object carries that kube sets after its strategy cleared the status (kube
   * runs the defaults again when it reads the stored object back, and some strategies set
   * the initial status): runs after the kind's own prepareForCreate. Mutates the object.
   */
  readonly created?: (obj: KubeObject, req?: RequestContext) => void;
}

/** A group's defaults by resource (plural). */
export type GroupDefaults = Readonly<Record<string, KindDefaults>>;

/** `definition` with `defaults` run after its strategy's own decode and prepareForCreate steps. Pure. */
export function withDefaults(definition: ResourceDefinition, defaults: KindDefaults): ResourceDefinition {
  const strategy = definition.strategy ?? {};
  const { decode, created } = defaults;
  return {
    ...definition,
    strategy: {
      ...strategy,
      ...(decode === undefined
        ? {}
        : {
            decode(obj, typed): void {
              strategy.decode?.(obj, typed);
              decode(obj);
            },
          }),
      ...(created === undefined
        ? {}
        : {
            prepareForCreate(obj, req): void {
              strategy.prepareForCreate?.(obj, req);
              created(obj, req);
            },
          }),
    },
  };
}
