/**
 * flowcontrol.apiserver.k8s.io defaulting (v1 and v1beta3): a FlowSchema's matching
 * precedence, a priority level's concurrency shares, lendable percent and queuing shape.
 */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';
import { recordAt } from '../../builtin/builtin-strategy.js';

type Rec = Record<string, unknown>;

/** v1beta3 keeps an explicit 0 share count only with this annotation (its field is not a pointer). */
const PRESERVE_ZERO_SHARES = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';

const unset = (value: unknown) => value === undefined || value === 0;

function defaultFlowSchema(obj: KubeObject): void {
  const spec = recordAt(obj, 'spec');
  if (spec !== undefined && unset(spec['matchingPrecedence'])) spec['matchingPrecedence'] = 1000;
}

function defaultPriorityLevel(obj: KubeObject): void {
  const spec = recordAt(obj, 'spec');
  if (spec === undefined) return;
  const v1beta3 = obj.apiVersion === 'flowcontrol.apiserver.k8s.io/v1beta3';
  const limited = recordAt(spec, 'limited');
  if (limited !== undefined) {
    const shares = limited['nominalConcurrencyShares'];
    if (shares === undefined || (v1beta3 && shares === 0 && obj.metadata.annotations?.[PRESERVE_ZERO_SHARES] === undefined)) limited['nominalConcurrencyShares'] = 30;
    if (limited['lendablePercent'] === undefined) limited['lendablePercent'] = 0;
    const queuing = recordAt(recordAt(limited, 'limitResponse') ?? {}, 'queuing');
    if (queuing !== undefined) defaultQueuing(queuing);
  }
  const exempt = recordAt(spec, 'exempt');
  if (exempt !== undefined) {
    if (exempt['nominalConcurrencyShares'] === undefined) exempt['nominalConcurrencyShares'] = 0;
    if (exempt['lendablePercent'] === undefined) exempt['lendablePercent'] = 0;
  }
}

function defaultQueuing(queuing: Rec): void {
  if (unset(queuing['handSize'])) queuing['handSize'] = 8;
  if (unset(queuing['queueLengthLimit'])) queuing['queueLengthLimit'] = 50;
  if (unset(queuing['queues'])) queuing['queues'] = 64;
}

export const flowcontrolDefaults: GroupDefaults = {
  flowschemas: { decode: defaultFlowSchema },
  prioritylevelconfigurations: { decode: defaultPriorityLevel },
};
