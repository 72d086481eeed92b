/**
 * The served-resource table: every group, version and resource kube-apiserver 1.32 serves
 * by default, in kube's discovery order (recorded from a real server), with the facts the
 * generic store needs (storage prefix and version, strategy switches).
 */
import { once, readGenerated } from './generated-file.js';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A subresource and the kind its requests and responses carry (e.g. `scale` → autoscaling/v1 Scale). */
export interface CatalogSubresource {
  readonly name: string;
  readonly kind: GroupVersionKind;
  readonly verbs: readonly string[];
}

/** The switches of kube's registry code for a resource, which generic code honours. */
export interface CatalogStrategy {
  /**
   * Who owns metadata.generation: `bump` (1 on create, +1 whenever anything but metadata and
   * status changes), `create` (1 on create, then kept), or absent (the client's value is kept).
   */
  readonly generation?: 'bump' | 'create';
  readonly allowCreateOnUpdate: boolean;
  readonly allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object rather than a Status. */
  readonly returnDeletedObject: boolean;
}

export interface CatalogResource {
  readonly resource: string;
  readonly kind: string;
  /** Absent for kinds without a list (the review APIs, bindings). */
  readonly listKind?: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly CatalogSubresource[];
  readonly storage: {
    /** The key path under --etcd-prefix (kube's resource prefix: `minions` for nodes, ...). */
    readonly prefix: string;
    /** The group version objects are stored as ("" version: nothing is stored). */
    readonly group: string;
    readonly version: string;
  };
  readonly strategy: CatalogStrategy;
}

export interface CatalogVersion {
  readonly version: string;
  readonly resources: readonly CatalogResource[];
}

export interface CatalogGroup {
  readonly group: string;
  /** In kube's preference order: the first is the preferred version. */
  readonly versions: readonly CatalogVersion[];
}

/** A kind with its OpenAPI definition name and protobuf message. */
export interface CatalogKind extends GroupVersionKind {
  /** Absent for the options of connect subresources (pods/exec, nodes/proxy): kube publishes no schema for them. */
  readonly schema?: string;
  readonly protobuf: string;
}

interface Table {
  readonly kubeVersion: string;
  readonly groups: readonly CatalogGroup[];
  readonly kinds: readonly CatalogKind[];
}

const table = once(() => readGenerated<Table>('resources.json'));

/** Every served group (the core group `""` first), in kube's discovery order. */
export function servedGroups(): readonly CatalogGroup[] {
  return table().groups;
}

/** Every kind with a schema and a protobuf message: the served kinds, their lists, subresource kinds and kapi's extra versions. */
export function catalogKinds(): readonly CatalogKind[] {
  return table().kinds;
}

/** The kube-apiserver version the table was recorded from (e.g. `v1.32.13`). */
export function catalogKubeVersion(): string {
  return table().kubeVersion;
}
