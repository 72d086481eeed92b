/** kubectl's columns for PriorityClasses: the value, whether it is the global default, the preemption policy. */
import { ageColumn, column, nameColumn } from '@kapi/machinery';

export const priorityClassColumns = [
  nameColumn,
  column('Value', 'integer', 'The priority of pods of the class.', (obj) => (typeof obj['value'] === 'number' ? obj['value'] : 0)),
  column('Global-Default', 'boolean', 'Whether pods without a class get this one.', (obj) => obj['globalDefault'] === true),
  ageColumn,
  column('PreemptionPolicy', 'string', 'Whether pods of the class may preempt lower-priority pods.', (obj) => (typeof obj['preemptionPolicy'] === 'string' ? obj['preemptionPolicy'] : '')),
];
