/**
 * A webhook's matchConditions (CEL, @kapi/cel), as kube's matchconditions matcher decides:
 * every condition is evaluated with `object`, `oldObject` and `request` (the AdmissionRequest
 * without the objects); one false condition skips the webhook; otherwise an error (a
 * condition that fails to compile or evaluate) follows failurePolicy — Fail refuses the
 * request with 403 `<resource> "<name>" is forbidden: <errors>`, Ignore skips the webhook.
 * Programs are compiled once per configuration object (informer copies are immutable).
 */
import { compileRule, DynType, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, type Program } from '@kapi/cel';
import { forbidden, type KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes } from '@kapi/registry';
import type { MatchResult } from '../matching.js';
import type { MatchCondition, WebhookEntry } from './configurations.js';

type Compiled = { readonly name: string; readonly expression: string } & ({ readonly program: Program } | { readonly error: string });

const compiledConditions = new WeakMap<readonly MatchCondition[], readonly Compiled[]>();

const VARS = { object: DynType, oldObject: DynType, request: DynType };

function compiled(conditions: readonly MatchCondition[]): readonly Compiled[] {
  let out = compiledConditions.get(conditions);
  if (out === undefined) {
    out = conditions.map((c) => {
      const result = compileRule(c.expression, { vars: VARS }, { expectedType: 'bool' });
      return result.ok ? { name: c.name, expression: c.expression, program: result.program } : { name: c.name, expression: c.expression, error: `compilation failed: ${result.errors.join('\n')}` };
    });
    compiledConditions.set(conditions, out);
  }
  return out;
}

/** kube's CreateAdmissionRequest for CEL: the request fields without the objects. */
function requestValue(attributes: AdmissionAttributes, match: MatchResult): Record<string, unknown> {
  const user = attributes.userInfo;
  return {
    kind: match.kind,
    resource: match.resource,
    subResource: attributes.subresource,
    requestKind: attributes.kind,
    requestResource: attributes.resource,
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: { username: user?.name ?? '', uid: user?.uid ?? '', groups: user?.groups ?? [], extra: user?.extra ?? {} },
    dryRun: attributes.dryRun,
    options: attributes.options ?? null,
  };
}

/**
 * Whether the webhook applies given its matchConditions (true when it has none). Throws
 * kube's 403 when a condition errs and failurePolicy is Fail.
 */
export function matchConditionsAllow(hook: WebhookEntry, attributes: AdmissionAttributes, match: MatchResult, object: KubeObject | undefined, oldObject: KubeObject | undefined): boolean {
  if (hook.matchConditions.length === 0) return true;
  const activation = { object: object ?? null, oldObject: oldObject ?? null, request: requestValue(attributes, match) };
  const errors: string[] = [];
  let remaining = RUNTIME_CEL_COST_BUDGET;
  for (const condition of compiled(hook.matchConditions)) {
    if ('error' in condition) {
      errors.push(condition.error);
      continue;
    }
    const out = condition.program.evaluate(activation, { costLimit: Math.min(PER_CALL_LIMIT, remaining) });
    remaining -= out.cost;
    if (!out.ok) {
      errors.push(`expression '${condition.expression}' resulted in error: ${out.error}`);
      continue;
    }
    if (out.value === false) return false;
  }
  if (errors.length === 0) return true;
  if (hook.failurePolicy === 'Ignore') return false;
  const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  throw forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, attributes.name, message);
}
