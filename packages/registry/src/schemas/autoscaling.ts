/**
 * autoscaling/v1 Scale: the view the `scale` subresource of custom resources reads and
 * writes (replicas wanted and observed, and the pods' label selector), as the catalogue
 * generates it.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { schemaOf } from '../builtin/schemas.js';

export const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

export const scaleSchema: JSONSchemaProps = schemaOf('io.k8s.api.autoscaling.v1.Scale');
