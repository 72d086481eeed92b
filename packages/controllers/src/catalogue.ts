/**
 * The one list of the controllers kapi runs, by name, and the one way to choose among them:
 * kube-controller-manager's `--controllers` (`*`, `name`, `-name`) over the ones that are
 * kube-controller-manager's (a deployment running the real KCM switches those off); kube-
 * apiserver's own work is always on. `kapiControllers` builds the chosen ones from what the
 * apiserver hands over.
 */
import type { Registry } from '@kapi/registry';
import type { Controller, ControllerOwner, TermController } from './controller.js';
import { clusterRoleAggregationController, type ClusterRoleSource } from './clusterrole-aggregation.js';
import { flowcontrolBootstrapKeeper } from './flowcontrol-bootstrap.js';
import { flowcontrolConfigConsumer } from './flowcontrol-config-consumer.js';
import { garbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';
import { kubernetesServiceController, type KubernetesServiceOptions } from './kubernetes-service.js';
import type { LeaderElectionOptions } from './leader-election.js';
import { namespaceController } from './namespace-controller.js';
import { POLICY_STATUS_CONTROLLER, policyStatusController } from './policy-status-controller.js';
import { resourceQuotaController } from './resourcequota-controller.js';
import { pvcProtectionController, pvProtectionController } from './storage-protection.js';
import { defaultServiceAccountController, rootCaPublisher, tokenSecretController, type ControllerCaches, type LegacyTokenSigner } from './serviceaccount-controllers.js';

/** What the controllers are built from. A controller whose input is absent is not built. */
export interface ControllerInputs {
  readonly registry: Registry;
  /** Reports a controller's failed pass (it retries). */
  readonly onError: (controller: string, err: unknown) => void;
  /** When a terminating namespace with content left is looked at again; default 1000 ms. */
  readonly namespaceResyncMs?: number;
  readonly garbageCollector?: GarbageCollectorOptions;
  /** The service account controllers' informers (shared with the apiserver's token authenticator). */
  readonly serviceAccountCaches?: ControllerCaches;
  /** Only when kapi issues service account tokens: the serviceaccount-token and root CA publisher controllers. */
  readonly serviceAccountTokens?: {
    readonly legacyToken: LegacyTokenSigner;
    /** kube-root-ca.crt's and token Secrets' `ca.crt`; none: no root CA publisher. */
    readonly rootCaPem?: string;
  };
  /** The RBAC informers (only with RBAC authorization): ClusterRole aggregation. */
  readonly clusterRoles?: ClusterRoleSource;
  /** The `kubernetes` Service, its endpoints and the IP/port repair. */
  readonly kubernetesService?: KubernetesServiceOptions;
  /** The resourcequota controller's full recount period (kube's --resource-quota-sync-period); default 5 minutes. */
  readonly resourceQuotaSyncMs?: number;
  /** The priority-and-fairness configuration kept every `intervalMs` (when flowcontrol is served). */
  readonly flowcontrol?: { readonly intervalMs: number };
  /** kube's --enable-priority-and-fairness (default true): the config consumer's Dangling condition on every FlowSchema (when flowcontrol is served). */
  readonly priorityAndFairness?: boolean;
}

interface Entry {
  readonly name: string;
  /** Names kube-controller-manager still accepts for it. */
  readonly aliases: readonly string[];
  readonly owner: ControllerOwner;
  readonly leaderElected: boolean;
  build(inputs: ControllerInputs, report: (err: unknown) => void): TermController | undefined;
}

const CATALOGUE: readonly Entry[] = [
  {
    name: 'namespace-controller', aliases: ['namespace'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i) => namespaceController(i.registry, { resyncMs: i.namespaceResyncMs ?? 1000 }),
  },
  {
    name: 'garbage-collector-controller', aliases: ['garbagecollector'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i) => (i.garbageCollector === undefined ? undefined : garbageCollector(i.registry, i.garbageCollector)),
  },
  {
    name: 'serviceaccount-controller', aliases: ['serviceaccount'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => (i.serviceAccountCaches === undefined ? undefined : defaultServiceAccountController(i.registry, i.serviceAccountCaches, report)),
  },
  {
    name: 'serviceaccount-token-controller', aliases: ['serviceaccount-token'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => (i.serviceAccountCaches === undefined || i.serviceAccountTokens === undefined ? undefined
      : tokenSecretController(i.registry, i.serviceAccountCaches, i.serviceAccountTokens.legacyToken, i.serviceAccountTokens.rootCaPem, report)),
  },
  {
    // kube-root-ca.crt is what a pod's service account token is checked against: kapi publishes
    // it when it issues tokens (kube-apiserver always does: it requires an issuer).
    name: 'root-ca-certificate-publisher-controller', aliases: ['root-ca-cert-publisher'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => (i.serviceAccountCaches === undefined || i.serviceAccountTokens?.rootCaPem === undefined ? undefined
      : rootCaPublisher(i.registry, i.serviceAccountCaches, i.serviceAccountTokens.rootCaPem, report)),
  },
  {
    name: POLICY_STATUS_CONTROLLER, aliases: ['validatingadmissionpolicy-status'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => policyStatusController(i.registry, report),
  },
  {
    name: 'persistentvolumeclaim-protection-controller', aliases: ['pvc-protection'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => pvcProtectionController(i.registry, report),
  },
  {
    name: 'persistentvolume-protection-controller', aliases: ['pv-protection'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => pvProtectionController(i.registry, report),
  },
  {
    name: 'resourcequota-controller', aliases: ['resourcequota'], owner: 'kube-controller-manager', leaderElected: true,
    build: (i, report) => resourceQuotaController(i.registry, { onError: report, ...(i.resourceQuotaSyncMs !== undefined ? { resyncMs: i.resourceQuotaSyncMs } : {}) }),
  },
  {
    // Run in every replica, as before the package existed: its writes are deterministic and lose races harmlessly.
    name: 'clusterrole-aggregation-controller', aliases: ['clusterrole-aggregation'], owner: 'kube-controller-manager', leaderElected: false,
    build: (i, report) => (i.clusterRoles === undefined ? undefined : clusterRoleAggregationController(i.registry, i.clusterRoles, report)),
  },
  {
    // kube's bootstrap-controller post-start hook, with start-service-ip-repair-controllers' repair pass and the lease endpoint reconciler.
    name: 'bootstrap-controller', aliases: [], owner: 'kube-apiserver', leaderElected: false,
    build: (i, report) => (i.kubernetesService === undefined ? undefined : kubernetesServiceController(i.registry, { ...i.kubernetesService, onError: report })),
  },
  {
    name: 'priority-and-fairness-config-producer', aliases: [], owner: 'kube-apiserver', leaderElected: false,
    build: (i, report) => (i.flowcontrol === undefined ? undefined : flowcontrolBootstrapKeeper(i.registry, i.flowcontrol.intervalMs, report)),
  },
  {
    name: 'priority-and-fairness-config-consumer', aliases: [], owner: 'kube-apiserver', leaderElected: false,
    build: (i, report) => (i.priorityAndFairness === false ? undefined : flowcontrolConfigConsumer(i.registry, report)),
  },
];

/** kube-controller-manager's names of the controllers kapi runs, in the catalogue's order. */
export const KUBE_CONTROLLER_MANAGER_CONTROLLERS: readonly string[] = CATALOGUE.filter((e) => e.owner === 'kube-controller-manager').map((e) => e.name);

/** A bad `--controllers` entry; the message is the flag error's. */
export class UnknownControllerError extends Error {}

/**
 * Resolves kube-controller-manager's `--controllers` over kapi's KCM controllers as KCM does
 * (IsControllerEnabled): the first mention of a controller (`name` on, `-name` off) decides it;
 * one not mentioned is on only when `*` is in the list (all of kapi's are on by default in KCM),
 * wherever it stands. Older aliases count as their controller's name. Returns the names on. Throws UnknownControllerError for a name kapi does not run (KCM's text, with the
 * list kapi runs).
 */
export function resolveControllerFlag(entries: readonly string[]): Set<string> {
  const byName = new Map<string, string>();
  for (const entry of CATALOGUE.filter((e) => e.owner === 'kube-controller-manager')) {
    byName.set(entry.name, entry.name);
    for (const alias of entry.aliases) byName.set(alias, entry.name);
  }
  const chosen = new Map<string, boolean>();
  let star = false;
  for (const entry of entries) {
    if (entry === '*') {
      star = true;
      continue;
    }
    const off = entry.startsWith('-');
    const given = off ? entry.slice(1) : entry;
    const name = byName.get(given);
    if (name === undefined) throw new UnknownControllerError(`${JSON.stringify(given)} is not in the list of known controllers (kapi runs ${KUBE_CONTROLLER_MANAGER_CONTROLLERS.join(', ')})`);
    if (!chosen.has(name)) chosen.set(name, !off);
  }
  return new Set(KUBE_CONTROLLER_MANAGER_CONTROLLERS.filter((name) => chosen.get(name) ?? star));
}

export interface ControllerSelection {
  /** The kube-controller-manager controllers to run (resolveControllerFlag); default every one. */
  readonly enabled?: ReadonlySet<string>;
  /** false: none of the leader-elected ones (programmatic: tests that need a quiet cluster). */
  readonly leaderElected?: boolean;
}

/**
 * Builds the controllers chosen: kube-apiserver's always, kube-controller-manager's when
 * enabled (and, for the leader-elected ones, unless `leaderElected` is false); each only when
 * its inputs were given. Builds start informers (not acting yet).
 */
export function kapiControllers(inputs: ControllerInputs, selection: ControllerSelection = {}): Controller[] {
  const controllers: Controller[] = [];
  for (const entry of CATALOGUE) {
    if (entry.leaderElected && selection.leaderElected === false) continue;
    if (entry.owner === 'kube-controller-manager' && selection.enabled !== undefined && !selection.enabled.has(entry.name)) continue;
    const built = entry.build(inputs, (err) => inputs.onError(entry.name, err));
    if (built === undefined) continue;
    controllers.push({ name: entry.name, owner: entry.owner, leaderElected: entry.leaderElected, synced: () => built.synced(), run: (signal) => built.run(signal), stop: () => built.stop() });
  }
  return controllers;
}

/** How the apiserver tunes kapi's kube-controller-manager controllers (programmatic; the flags set leaderElection). */
export interface ControllerOptions {
  /** false: no leader election, this replica always acts (kube's --leader-elect=false). */
  readonly leaderElection?: LeaderElectionOptions | false;
  /** When a terminating namespace with content left is looked at again; default 1000 ms. */
  readonly namespaceResyncMs?: number;
  /** The garbage collector's options; false = no garbage collector. */
  readonly garbageCollector?: GarbageCollectorOptions | false;
  /** The resourcequota controller's full recount period; default 5 minutes. */
  readonly resourceQuotaSyncMs?: number;
}
