/**
 * kubectl's columns for API Priority and Fairness: FlowSchemas (priority level, precedence,
 * distinguisher, and whether the priority level is missing: the Dangling condition, `?` before
 * the config controller has set it) and PriorityLevelConfigurations (`<none>` for what an
 * exempt or non-queuing level lacks).
 */
import type { KubeObject } from '@kapi/machinery';
import { ageColumn, column, nameColumn } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

const NONE = '<none>';
const spec = (obj: KubeObject): Record<string, unknown> => recordAt(obj, 'spec') ?? {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

function missingPriorityLevel(obj: KubeObject): string {
  const conditions = recordAt(obj, 'status')?.['conditions'];
  for (const c of Array.isArray(conditions) ? (conditions as unknown[]) : []) {
    const condition = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    if (condition['type'] === 'Dangling') return text(condition['status']);
  }
  return '?';
}

export const flowSchemaColumns = [
  nameColumn,
  column('PriorityLevel', 'string', 'The priority level the matching requests go to.', (obj) => text(recordAt(spec(obj), 'priorityLevelConfiguration')?.['name'])),
  column('MatchingPrecedence', 'string', 'The order of the schema among those a request matches (lowest first).', (obj) => count(spec(obj)['matchingPrecedence'])),
  column('DistinguisherMethod', 'string', 'How matching requests are split into flows.', (obj) => {
    const method = recordAt(spec(obj), 'distinguisherMethod');
    return method === undefined ? NONE : text(method['type']);
  }),
  ageColumn,
  column('MissingPL', 'string', 'Whether the priority level the schema names is missing.', missingPriorityLevel),
];

const limited = (obj: KubeObject) => recordAt(spec(obj), 'limited');
const queuing = (obj: KubeObject) => recordAt(recordAt(limited(obj) ?? {}, 'limitResponse') ?? {}, 'queuing');

export const priorityLevelConfigurationColumns = [
  nameColumn,
  column('Type', 'string', 'Exempt or Limited.', (obj) => text(spec(obj)['type'])),
  column('NominalConcurrencyShares', 'string', 'The level\'s share of the server\'s concurrency limit.', (obj) => {
    const l = limited(obj);
    return l === undefined ? NONE : count(l['nominalConcurrencyShares']);
  }),
  column('Queues', 'string', 'The number of queues of the level.', (obj) => { const q = queuing(obj); return q === undefined ? NONE : count(q['queues']); }),
  column('HandSize', 'string', 'The number of queues a flow is dealt.', (obj) => { const q = queuing(obj); return q === undefined ? NONE : count(q['handSize']); }),
  column('QueueLengthLimit', 'string', 'The most requests a queue holds.', (obj) => { const q = queuing(obj); return q === undefined ? NONE : count(q['queueLengthLimit']); }),
  ageColumn,
];
