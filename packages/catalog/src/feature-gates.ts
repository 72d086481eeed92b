/**
 * kube-apiserver 1.32's feature gate table (generated/feature-gates.json, `make feature-gates`):
 * every gate its --feature-gates flag knows, as of 1.32, with its default, stage, and whether it
 * is locked to that default.
 */
import { once, readGenerated } from './generated-file.js';

export interface FeatureGateSpec {
  readonly name: string;
  readonly default: boolean;
  /** kube's PreRelease at 1.32 (GA is kube's empty stage). */
  readonly stage: 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED' | 'PRE-ALPHA';
  readonly lockToDefault: boolean;
}

export interface FeatureGateTable {
  readonly kubeVersion: string;
  readonly gates: readonly FeatureGateSpec[];
}

export const featureGateTable: () => FeatureGateTable = once(() => readGenerated<FeatureGateTable>('feature-gates.json'));
