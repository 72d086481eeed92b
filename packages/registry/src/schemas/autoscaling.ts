/**
 * autoscaling/v1 Scale: the view the `scale` subresource of custom resources reads and
 * writes (replicas wanted and observed, and the pods' label selector). Field names and
 * types follow the Kubernetes API; descriptions are ours.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { AUTOSCALING_V1, int32, kindSchema, ref, string } from './schema-builders.js';

export const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

const scaleSpec: JSONSchemaProps = {
  description: 'The scale wanted.',
  type: 'object',
  properties: {
    replicas: int32('How many instances are wanted.'),
  },
};

const scaleStatus: JSONSchemaProps = {
  description: 'The scale observed.',
  type: 'object',
  required: ['replicas'],
  properties: {
    replicas: int32('How many instances were last observed.'),
    selector: string('The label selector of the instances, in the serialized form of a label query.'),
  },
};

export const scaleSchema: JSONSchemaProps = kindSchema(SCALE_KIND, 'How many instances a scalable resource should have, and has.', {
  spec: ref(`${AUTOSCALING_V1}ScaleSpec`, 'The scale wanted.'),
  status: ref(`${AUTOSCALING_V1}ScaleStatus`, 'The scale observed; read-only.'),
});

export const autoscalingDefinitions: Record<string, JSONSchemaProps> = {
  [`${AUTOSCALING_V1}Scale`]: scaleSchema,
  [`${AUTOSCALING_V1}ScaleSpec`]: scaleSpec,
  [`${AUTOSCALING_V1}ScaleStatus`]: scaleStatus,
};
