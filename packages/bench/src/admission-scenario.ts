/**
 * Admission: creates of a custom resource (a CRD of the scenario's own) in a closed loop,
 * measured in the same run without any rule or policy, then with one CRD
 * `x-kubernetes-validations` rule and one ValidatingAdmissionPolicy (with its binding) that
 * match every create, in `rounds` rounds ordered plain/with, with/plain, ... so that a drift in
 * the machine's load (or the server warming up) weighs on both alike. The figure is the ratio
 * of the creates per second with them to without (issue 24's target: ≥ 0.80), and the same for
 * the server's CPU per create (less sensitive to a loaded machine). Before a measured "with" step, a create that breaks the rule and
 * one that breaks the policy are sent: each is reported as enforced only when it is refused,
 * so a server that ignores either shows it. The CRD and its objects are deleted afterwards.
 */
import { failedRun, measureClosedLoop, type BenchContext, type MeasuredRun } from './context.js';
import { KapiClient, UnexpectedStatusError } from './kapi-client.js';

const GROUP = 'bench.kapi.io';
const PLURAL = 'widgets';
const CRD_NAME = `${PLURAL}.${GROUP}`;
export const admissionNamespace = 'kapi-bench-admission';
const POLICY = 'kapi-bench-widget-max';
const BINDING = 'kapi-bench-widget-max-binding';
const RULE = 'self.min <= self.max';

export interface AdmissionScenarioOptions {
  readonly concurrency: number;
  readonly durationMs: number;
  /** Plain/with pairs. */
  readonly rounds: number;
}

export interface AdmissionStep extends MeasuredRun {
  readonly mode: 'plain' | 'rule+policy';
  readonly round: number;
  readonly serverCpuMsPerOp: number | undefined;
}

export interface AdmissionScenarioResult {
  readonly steps: AdmissionStep[];
  /** Creates/s with the rule and the policy ÷ without (summed over the rounds). */
  readonly ratio: number | undefined;
  /** Server CPU per create without ÷ with (the throughput the CPU cost alone allows, with ÷ without). */
  readonly cpuRatio: number | undefined;
  /** A create breaking the CRD rule was refused (422) before the measured steps. */
  readonly ruleEnforced: boolean;
  /** A create breaking the policy was refused (422) before the measured steps. */
  readonly policyEnforced: boolean;
  readonly errors: string[];
}

const schema = (withRule: boolean) => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { min: { type: 'integer' }, max: { type: 'integer' }, note: { type: 'string' } },
      ...(withRule ? { 'x-kubernetes-validations': [{ rule: RULE, message: 'min must not exceed max' }] } : {}),
    },
  },
});

const crd = (withRule: boolean, resourceVersion?: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME, ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: PLURAL, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema(withRule) } }],
  },
});

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: POLICY },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [PLURAL] }] },
    validations: [{ expression: 'object.spec.max <= 1000', message: 'max must be at most 1000' }],
  },
};

const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: BINDING },
  spec: { policyName: POLICY, validationActions: ['Deny'] },
};

const widgetsPath = `/apis/${GROUP}/v1/namespaces/${admissionNamespace}/${PLURAL}`;
const widget = (name: string, min: number, max: number) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { min, max, note: 'x'.repeat(256) } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until true; false after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** Whether a create of `obj` is refused with 422 (a 201 is deleted again). */
async function refused(client: KapiClient, obj: ReturnType<typeof widget>): Promise<boolean> {
  try {
    await client.json('POST', widgetsPath, 201, obj);
    await client.delete(`${widgetsPath}/${obj.metadata.name}`);
    return false;
  } catch (err) {
    if (err instanceof UnexpectedStatusError && err.status === 422) return true;
    if (err instanceof UnexpectedStatusError && err.status === 404) return false;
    throw err;
  }
}

async function setRule(client: KapiClient, withRule: boolean): Promise<void> {
  const current = await client.json<{ metadata: { resourceVersion: string } }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, 200);
  await client.json('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`, 200, crd(withRule, current.metadata.resourceVersion));
}

export async function runAdmissionScenario(ctx: BenchContext, options: AdmissionScenarioOptions): Promise<AdmissionScenarioResult> {
  const errors: string[] = [];
  const steps: AdmissionStep[] = [];
  const admin = new KapiClient(ctx.url, 1);
  let ruleEnforced = false;
  let policyEnforced = false;
  let seq = 0;
  try {
    await admin.ensureNamespace(admissionNamespace);
    await admin.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`);
    await until(async () => {
      try {
        await admin.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', 201, crd(false));
        return true;
      } catch (err) {
        if (err instanceof UnexpectedStatusError && err.status === 409) return false; // the old one is still being removed
        throw err;
      }
    }, 60_000);
    if (!await until(async () => (await admin.getBody(`${widgetsPath}?limit=1`).then(() => true, () => false)), 30_000)) throw new Error(`${CRD_NAME} was not served within 30 s`);

    // What is in place: before the first step, nothing but a leftover binding or policy of an earlier run may be.
    let current: AdmissionStep['mode'] | undefined;
    for (let round = 0; round < options.rounds; round++) {
      // plain, with; then with, plain; ...: a trend in the machine's load (or the server warming up) weighs on both alike.
      const order = round % 2 === 0 ? (['plain', 'rule+policy'] as const) : (['rule+policy', 'plain'] as const);
      for (const mode of order) {
        if (mode === 'plain' && current !== 'plain') {
          await admin.delete(`/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${BINDING}`);
          await admin.delete(`/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${POLICY}`);
          if (current === 'rule+policy') await setRule(admin, false);
          // Both gone from every cache: a create breaking either is admitted again.
          await until(async () => !await refused(admin, widget(`probe-${seq++}`, 5, 5000)) && !await refused(admin, widget(`probe-${seq++}`, 5, 1)), 30_000);
        } else if (mode === 'rule+policy' && current !== 'rule+policy') {
          await setRule(admin, true);
          await admin.json('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', 201, policy);
          await admin.json('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', 201, binding);
          policyEnforced = await until(() => refused(admin, widget(`probe-${seq++}`, 5, 5000)), 30_000);
          ruleEnforced = await until(() => refused(admin, widget(`probe-${seq++}`, 5, 1)), policyEnforced ? 10_000 : 1000);
          // The one-time type check of the new policy (kube-controller-manager's status controller, which kapi runs
          // in-process) is not part of the creates' cost: wait for its status before measuring (kube-apiserver without
          // a controller manager never writes one: 10 s at most).
          await until(async () => {
            const p = await admin.json<{ status?: { observedGeneration?: number } }>('GET', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${POLICY}`, 200);
            return p.status?.observedGeneration !== undefined;
          }, 10_000);
          ctx.log(`admission: policy ${policyEnforced ? 'enforced' : 'NOT enforced'}, CRD rule ${ruleEnforced ? 'enforced' : 'NOT enforced'}`);
        }
        current = mode;
        const client = new KapiClient(ctx.url, options.concurrency);
        try {
          const run = await measureClosedLoop(
            async (n) => {
              await client.json('POST', widgetsPath, 201, widget(`w-${round}-${mode === 'plain' ? 'p' : 'r'}-${n}`, 1, 10));
            },
            { concurrency: options.concurrency, durationMs: options.durationMs, warmupMs: round === 0 ? ctx.warmupMs : Math.min(ctx.warmupMs, 1000), pids: { server: ctx.kapiPid }, firstSeq: seq },
          );
          seq = run.nextSeq;
          const usage = run.usage['server'];
          steps.push({ ...run, mode, round, serverCpuMsPerOp: usage !== undefined && run.ops > 0 ? (usage.cpuSeconds * 1000) / run.ops : undefined });
          ctx.log(`admission round ${round} ${mode.padEnd(11)} c=${options.concurrency} ${run.opsPerSecond.toFixed(1)} creates/s p50 ${run.latency.p50.toFixed(1)} ms p99 ${run.latency.p99.toFixed(1)} ms, errors ${run.errors}`);
        } catch (err) {
          steps.push({ ...failedRun(options.concurrency, err), mode, round, serverCpuMsPerOp: undefined });
        } finally {
          await client.close();
        }
      }
    }
  } catch (err) {
    errors.push(`admission: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    for (const path of [
      `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${BINDING}`,
      `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${POLICY}`,
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`,
    ]) await admin.delete(path).catch((err: unknown) => ctx.log(`admission cleanup: ${(err as Error).message}`));
    await admin.close();
  }
  const rate = (mode: AdmissionStep['mode']) => {
    const of = steps.filter((s) => s.mode === mode && s.elapsedSeconds > 0);
    const ops = of.reduce((sum, s) => sum + s.ops, 0);
    const seconds = of.reduce((sum, s) => sum + s.elapsedSeconds, 0);
    return seconds > 0 ? ops / seconds : undefined;
  };
  const cpu = (mode: AdmissionStep['mode']) => {
    const of = steps.filter((s) => s.mode === mode && s.serverCpuMsPerOp !== undefined);
    const ops = of.reduce((sum, s) => sum + s.ops, 0);
    return ops > 0 ? of.reduce((sum, s) => sum + s.serverCpuMsPerOp! * s.ops, 0) / ops : undefined;
  };
  const plain = rate('plain');
  const withBoth = rate('rule+policy');
  const plainCpu = cpu('plain');
  const withCpu = cpu('rule+policy');
  return {
    steps,
    ratio: plain !== undefined && withBoth !== undefined && plain > 0 ? withBoth / plain : undefined,
    cpuRatio: plainCpu !== undefined && withCpu !== undefined && withCpu > 0 ? plainCpu / withCpu : undefined,
    ruleEnforced,
    policyEnforced,
    errors,
  };
}
