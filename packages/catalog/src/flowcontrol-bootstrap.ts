/**
 * kube-apiserver 1.32's API Priority and Fairness bootstrap configuration
 * (generated/flowcontrol-bootstrap.json, `make bootstrap-policy`): the mandatory and suggested
 * FlowSchemas and PriorityLevelConfigurations, defaulted, without apiVersion/kind.
 */
import { once, readGenerated } from './generated-file.js';

export interface FlowcontrolBootstrap {
  readonly kubeVersion: string;
  readonly mandatoryPriorityLevelConfigurations: readonly Record<string, unknown>[];
  readonly mandatoryFlowSchemas: readonly Record<string, unknown>[];
  readonly suggestedPriorityLevelConfigurations: readonly Record<string, unknown>[];
  readonly suggestedFlowSchemas: readonly Record<string, unknown>[];
}

export const flowcontrolBootstrap: () => FlowcontrolBootstrap = once(() => readGenerated<FlowcontrolBootstrap>('flowcontrol-bootstrap.json'));
