/**
 * One definition of the client e2e suites — kubectl, @kubernetes/client-node, client-go and the
 * Python `kubernetes` client — registered against a target kind. `single.test.ts` and
 * `cluster.test.ts` each call {@link defineClientSuites} once: the target starts once in a
 * `before` and every suite shares it (for the cluster: one `make cluster` start for all suites).
 */
import { after, before, describe } from 'node:test';
import { clientGoSuite } from './client-go.js';
import { clientNodeSuite } from './client-node.js';
import { kubectlSuite } from './kubectl.js';
import { podsSuite } from './pods.js';
import { pythonSuite } from './python.js';
import { workloadsSuite } from './workloads.js';
import { startTarget, type Target, type TargetKind, type TargetRef } from './targets.js';

export function defineClientSuites(kind: TargetKind): void {
  void describe(`e2e suites against ${kind === 'single' ? 'a single kapi-apiserver' : 'the local HA cluster through kapi-lb'}`, () => {
    let target: Target | undefined;
    before(async () => {
      const started = Date.now();
      target = await startTarget(kind);
      process.stderr.write(`# target ${kind} up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${target.server}\n`);
    });
    after(async () => {
      await target?.stop();
    });
    const ref: TargetRef = () => {
      if (!target) throw new Error(`target ${kind} did not start`);
      return target;
    };
    kubectlSuite(ref);
    podsSuite(ref);
    clientNodeSuite(ref);
    clientGoSuite(ref);
    pythonSuite(ref);
    workloadsSuite(ref);
  });
}
