/**
 * kube-controller-manager's validatingadmissionpolicy-status-controller: a
 * ValidatingAdmissionPolicy whose generation is ahead of `status.observedGeneration` is
 * type-checked (policy-type-checking.ts) and its status applied (server-side apply, field
 * manager `validatingadmissionpolicy-status-controller`, forced) with `observedGeneration`
 * and `typeChecking.expressionWarnings`. Leader-elected, as in KCM; a failed write is retried
 * with backoff.
 */
import { isNotFound } from '@kapi/machinery';
import { createWorkQueue, processQueue, type Registry } from '@kapi/registry';
import type { TermController } from './controller.js';
import { startResourceCache } from './object-cache.js';
import { typeCheckPolicy } from './policy-type-checking.js';

export const POLICY_STATUS_CONTROLLER = 'validatingadmissionpolicy-status-controller';
const GROUP = 'admissionregistration.k8s.io';
const USER_AGENT = `kube-controller-manager/v1.32.0 ${POLICY_STATUS_CONTROLLER}`;

export function policyStatusController(registry: Registry, onError: (err: unknown) => void): TermController | undefined {
  const policies = registry.lookup(GROUP, 'v1', 'validatingadmissionpolicies');
  const status = policies?.subresources?.get('status')?.patcher;
  if (policies === undefined || status === undefined) return undefined;
  const cache = startResourceCache(policies, onError);
  const queue = createWorkQueue<string>();
  const needsCheck = (name: string): boolean => {
    const policy = cache.get('', name);
    if (policy === undefined) return false;
    const observed = (policy['status'] as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0;
    return (policy.metadata.generation ?? 0) > observed;
  };
  const enqueueAll = () => {
    for (const policy of cache.list()) if (needsCheck(policy.metadata.name ?? '')) queue.add(policy.metadata.name ?? '');
  };

  const reconcile = async (name: string): Promise<void> => {
    if (!needsCheck(name)) return;
    const policy = cache.get('', name)!;
    const warnings = typeCheckPolicy(policy as Parameters<typeof typeCheckPolicy>[0], registry);
    const applied = {
      apiVersion: `${GROUP}/v1`,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      status: { observedGeneration: policy.metadata.generation ?? 0, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {} },
    };
    try {
      await status.patch({ namespace: '', userAgent: USER_AGENT }, name, { type: 'application/apply-patch+yaml', body: applied }, { fieldManager: POLICY_STATUS_CONTROLLER, force: true });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };

  return {
    synced: () => cache.synced(),
    async run(signal) {
      if (signal.aborted) return;
      const unsubscribe = cache.onChange((obj, deleted) => {
        if (obj === undefined) enqueueAll();
        else if (!deleted && needsCheck(obj.metadata.name ?? '')) queue.add(obj.metadata.name ?? '');
      });
      // A CRD appearing may resolve a kind a policy names: check again the policies not yet observed.
      const unsubscribeRegistry = registry.subscribe(enqueueAll);
      enqueueAll();
      await processQueue(queue, signal, reconcile, onError);
      unsubscribe();
      unsubscribeRegistry();
    },
    stop: async () => {
      queue.shutDown();
      await cache.stop();
    },
  };
}
