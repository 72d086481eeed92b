/** node.k8s.io: kubectl's columns for RuntimeClasses (NAME HANDLER AGE). */
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';

export const runtimeClassColumns = [
  nameColumn,
  column('Handler', 'string', 'The container runtime configuration that runs the class\'s pods.', (obj) => (typeof obj['handler'] === 'string' ? obj['handler'] : '')),
  ageColumn,
];

export const nodeOverrides: GroupOverrides = { runtimeclasses: withBehaviour({ printerColumns: runtimeClassColumns }) };
