/**
 * kubectl's columns for RoleBindings and ClusterRoleBindings: the role as Kind/name and, in
 * wide output, the subjects split into users, groups and service accounts (namespace/name).
 */
import type { KubeObject, PrinterColumn } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function subjectsOf(obj: KubeObject, kind: string): string {
  const subjects = Array.isArray(obj['subjects']) ? (obj['subjects'] as unknown[]) : [];
  return subjects
    .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null && (s as Record<string, unknown>)['kind'] === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${text(s['namespace'])}/${text(s['name'])}` : text(s['name'])))
    .join(', ');
}

function bindingColumns(what: string): readonly PrinterColumn[] {
  return [
    nameColumn,
    column('Role', 'string', `The role the ${what} grants, as Kind/name.`, (obj) => {
      const ref = recordAt(obj, 'roleRef') ?? {};
      return `${text(ref['kind'])}/${text(ref['name'])}`;
    }),
    ageColumn,
    column('Users', 'string', `The users the ${what} names.`, (obj) => subjectsOf(obj, 'User'), { priority: 1 }),
    column('Groups', 'string', `The groups the ${what} names.`, (obj) => subjectsOf(obj, 'Group'), { priority: 1 }),
    column('ServiceAccounts', 'string', `The service accounts the ${what} names, as namespace/name.`, (obj) => subjectsOf(obj, 'ServiceAccount'), { priority: 1 }),
  ];
}

export const roleBindingColumns = bindingColumns('binding');
export const clusterRoleBindingColumns = bindingColumns('cluster binding');
