/** flowcontrol.apiserver.k8s.io: hand-written behaviour by resource (defaulting is defaults.ts). */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { flowSchemaColumns, priorityLevelConfigurationColumns } from './columns.js';

export const flowcontrolOverrides: GroupOverrides = {
  flowschemas: withBehaviour({ printerColumns: flowSchemaColumns }),
  prioritylevelconfigurations: withBehaviour({ printerColumns: priorityLevelConfigurationColumns }),
};
