/** flowcontrol.apiserver.k8s.io: hand-written behaviour by resource (defaulting is defaults.ts). */
import type { GroupOverrides, ResourceOverride } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import type { ResourceDefinition } from '../../definition.js';
import { flowSchemaColumns, priorityLevelConfigurationColumns } from './columns.js';
import { validateFlowSchema, validatePriorityLevel, validateStatusUpdate } from './validation.js';

/** Columns, and kube's validation: the same on create and update, only the conditions on a status write. */
const validated = (base: ResourceOverride, validate: NonNullable<NonNullable<ResourceDefinition['strategy']>['validate']>): ResourceOverride => (generated) => {
  const def = base(generated);
  return { ...def, strategy: { ...def.strategy, validate, validateSubresourceUpdate: (subresource, obj) => validateStatusUpdate(subresource, obj) } };
};

export const flowcontrolOverrides: GroupOverrides = {
  flowschemas: validated(withBehaviour({ printerColumns: flowSchemaColumns }), validateFlowSchema),
  prioritylevelconfigurations: validated(withBehaviour({ printerColumns: priorityLevelConfigurationColumns }), validatePriorityLevel),
};
