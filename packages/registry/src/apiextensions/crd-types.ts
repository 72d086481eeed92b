/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition as kapi reads it (field names from
 * upstream's v1 types). Objects arrive decoded from JSON; every field is optional here and
 * checked by crd-validation.ts before anything relies on it.
 */
import type { JSONSchemaProps, KubeObject } from '@kapi/machinery';

export const APIEXTENSIONS_GROUP = 'apiextensions.k8s.io';
/** The finalizer that holds a CRD until its custom resources are gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CrdScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CrdSubresources {
  status?: Record<string, never>;
  scale?: CrdScale;
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CrdSubresources;
  additionalPrinterColumns?: CrdColumn[];
  selectableFields?: { jsonPath?: string }[];
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: { strategy?: string; webhook?: unknown };
  preserveUnknownFields?: boolean;
}

export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: CrdNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec?: CrdSpec;
  status?: CrdStatus;
}

export function asCrd(obj: KubeObject): CustomResourceDefinition {
  return obj as CustomResourceDefinition;
}

export function findCondition(crd: CustomResourceDefinition, type: string): CrdCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}
