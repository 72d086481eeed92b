/**
 * kubectl's columns for admission configuration: webhook configurations (how many webhooks),
 * ValidatingAdmissionPolicies (how many validations, the param kind) and their bindings (the
 * policy and the param reference, `<unset>` without one).
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const length = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const spec = (obj: KubeObject): Record<string, unknown> => recordAt(obj, 'spec') ?? {};

export const webhookConfigurationColumns = [
  nameColumn,
  column('Webhooks', 'integer', 'The number of webhooks in the configuration.', (obj) => length(obj['webhooks'])),
  ageColumn,
];

export const validatingAdmissionPolicyColumns = [
  nameColumn,
  column('Validations', 'integer', 'The number of validations of the policy.', (obj) => length(spec(obj)['validations'])),
  column('ParamKind', 'string', 'The kind of the policy\'s parameters, as apiVersion/kind.', (obj) => {
    const kind = recordAt(spec(obj), 'paramKind');
    return kind === undefined ? '<unset>' : `${text(kind['apiVersion'])}/${text(kind['kind'])}`;
  }),
  ageColumn,
];

/** A label selector as Go prints metav1.LabelSelector with %v (its generated String()). */
export function goLabelSelector(selector: Record<string, unknown>): string {
  const labels = recordAt(selector, 'matchLabels') ?? {};
  const labelText = Object.keys(labels).sort().map((k) => `${k}: ${String(labels[k])},`).join('');
  const expressions = Array.isArray(selector['matchExpressions']) ? (selector['matchExpressions'] as unknown[]) : [];
  const expressionText = expressions
    .map((e) => {
      const r = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
      const values = Array.isArray(r['values']) ? (r['values'] as unknown[]).map(String) : [];
      return `LabelSelectorRequirement{Key:${text(r['key'])},Operator:${text(r['operator'])},Values:[${values.join(' ')}],},`;
    })
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labelText}},MatchExpressions:[]LabelSelectorRequirement{${expressionText}},}`;
}

function paramRef(obj: KubeObject): string {
  const ref = recordAt(spec(obj), 'paramRef');
  if (ref === undefined) return '<unset>';
  const name = text(ref['name']);
  if (name !== '') return `${text(ref['namespace']) || '*'}/${name}`;
  const selector = recordAt(ref, 'selector');
  return selector === undefined ? '<unset>' : goLabelSelector(selector);
}

export const validatingAdmissionPolicyBindingColumns = [
  nameColumn,
  column('PolicyName', 'string', 'The policy the binding applies.', (obj) => text(spec(obj)['policyName'])),
  column('ParamRef', 'string', 'The parameters the binding gives the policy.', paramRef),
  ageColumn,
];
