/**
 * kube's ValidatingAdmissionPolicy admission plugin (validating phase only): for every
 * policy whose matchConstraints match the request, every binding whose matchResources match,
 * every param the binding resolves, the policy is evaluated and each failed validation is
 * acted on by the binding's validationActions — Deny refuses the request, Warn adds kube's
 * Warning header, Audit adds the `validation.policy.admission.k8s.io/validation_failure`
 * audit annotation. Configuration errors (an unknown paramKind, a missing param with
 * parameterNotFoundAction Deny, a bad selector) follow the policy's failurePolicy. The first
 * denial is answered as kube does: `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy
 * '<policy>' with binding '<binding>' denied request: <message>`, with the validation's reason
 * and its code (Invalid 422 by default, Forbidden 403, Unauthorized 401,
 * RequestEntityTooLarge 413).
 */
import { formatGroupResource, StatusError, forbidden, type KubeObject, type StatusReason } from '@kapi/machinery';
import type { AdmissionAttributes, AdmissionPlugin, Registry } from '@kapi/registry';
import { matchResources, type MatchResult } from '../matching.js';
import type { AdmissionMetrics, PolicyCheckErrorType, PolicyEnforcementAction } from '../metrics.js';
import type { Authorizer, ResourceCheck } from '@kapi/cel';
import { requestAuthorizer, requestResourceCheck, type Authorize } from './authorizer.js';
import { collectParams } from './params.js';
import type { PolicyDecision } from './evaluate.js';
import { validatePolicy } from './evaluate.js';
import { startPolicySource, type PolicyHook, type PolicySource } from './policy-source.js';
import { GROUP, type BindingObject, type PolicyObject } from './policy-types.js';

export const PLUGIN_NAME = 'ValidatingAdmissionPolicy';

/** How long a request waits for the first list of policies and bindings before kube's "not yet ready". */
const READY_WAIT_MS = 10_000;
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

interface Denial {
  readonly policy: PolicyObject;
  readonly binding: BindingObject | undefined;
  readonly message: string;
  readonly reason: string;
}

function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden': return 403;
    case 'Unauthorized': return 401;
    case 'RequestEntityTooLarge': return 413;
    default: return 422;
  }
}

/** The name kube's admission.NewForbidden puts in the error: the request's, else the object's, else "Unknown". */
function nameOf(attributes: AdmissionAttributes): string {
  return attributes.name || attributes.object?.metadata?.name || 'Unknown';
}

function denialError(attributes: AdmissionAttributes, denial: Denial): StatusError {
  const policyName = denial.policy.metadata.name ?? '';
  const message = denial.binding !== undefined
    ? `ValidatingAdmissionPolicy '${policyName}' with binding '${denial.binding.metadata.name ?? ''}' denied request: ${denial.message}`
    : `ValidatingAdmissionPolicy '${policyName}' denied request: ${denial.message}`;
  const gr = { group: attributes.resource.group, resource: attributes.resource.resource };
  const name = nameOf(attributes);
  const reason = (denial.reason || 'Invalid') as StatusReason;
  return new StatusError({
    code: reasonToCode(reason),
    reason,
    message: `${formatGroupResource(gr)} "${name}" is forbidden: ${message}`,
    details: { name, group: gr.group, kind: gr.resource, causes: [{ message }] },
  });
}

/** The AdmissionRequest an expression sees as `request` (kube's CreateAdmissionRequest, as JSON). */
function admissionRequest(attributes: AdmissionAttributes, match: MatchResult): Record<string, unknown> {
  const user = attributes.userInfo;
  return {
    uid: '',
    kind: { group: match.kind.group, version: match.kind.version, kind: match.kind.kind },
    resource: { group: match.resource.group, version: match.resource.version, resource: match.resource.resource },
    ...(attributes.subresource !== '' ? { subResource: attributes.subresource } : {}),
    requestKind: { group: attributes.kind.group, version: attributes.kind.version, kind: attributes.kind.kind },
    requestResource: { group: attributes.resource.group, version: attributes.resource.version, resource: attributes.resource.resource },
    ...(attributes.subresource !== '' ? { requestSubResource: attributes.subresource } : {}),
    ...(attributes.name !== '' ? { name: attributes.name } : {}),
    ...(attributes.namespace !== '' ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo: user === undefined ? {} : {
      ...(user.name !== '' ? { username: user.name } : {}),
      ...(user.uid !== '' ? { uid: user.uid } : {}),
      ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
      ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
    },
    object: null,
    oldObject: null,
    dryRun: attributes.dryRun,
    options: attributes.options ?? null,
  };
}

/** The namespace as `namespaceObject` (kube's CreateNamespaceObject: no managedFields, no owners). */
function namespaceObject(namespace: KubeObject | undefined): Record<string, unknown> | null {
  if (namespace === undefined) return null;
  const { managedFields: _managedFields, ownerReferences: _ownerReferences, ...metadata } = namespace.metadata;
  return { metadata, ...(namespace.spec !== undefined ? { spec: namespace.spec } : {}), ...(namespace.status !== undefined ? { status: namespace.status } : {}) };
}

/** kube's excluded admission resources: the policies' own configuration is never subject to policies. */
const EXCLUDED = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

/** The plugin, its policies read from informers once it is started. */
export interface ValidatingAdmissionPolicy {
  /** The plugin part for every resource (CONNECT, CREATE, UPDATE and DELETE, as kube's handler). */
  readonly plugin: AdmissionPlugin;
  /** Starts the informers (once the registry exists). */
  start(registry: Registry, onError: (err: unknown) => void): void;
  stop(): Promise<void>;
}

export interface ValidatingAdmissionPolicyOptions {
  /** The apiserver's authorizer, for expressions' `authorizer` (absent: `authorizer` is unbound). */
  readonly authorize?: Authorize;
  /** Where checks that deny or err are counted (kube's apiserver_validating_admission_policy_check_*). */
  readonly metrics?: Pick<AdmissionMetrics, 'recordPolicyCheck'>;
}

export function createValidatingAdmissionPolicy(options: ValidatingAdmissionPolicyOptions = {}): ValidatingAdmissionPolicy {
  let source: PolicySource | undefined;
  const ready = async (): Promise<PolicySource | undefined> => {
    const until = Date.now() + READY_WAIT_MS;
    while (source === undefined || !source.synced()) {
      if (Date.now() >= until) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return source;
  };
  return {
    plugin: {
      name: PLUGIN_NAME,
      handles: () => true,
      async validate(attributes) {
        if (attributes.resource.group === GROUP && EXCLUDED.has(attributes.resource.resource)) return;
        const current = source !== undefined && source.synced() ? source : await ready();
        if (current === undefined) {
          throw forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, nameOf(attributes), 'not yet ready to handle request');
        }
        await dispatch(current, attributes, options);
      },
    },
    start(registry, onError) {
      source ??= startPolicySource(registry, onError);
    },
    stop: () => source?.stop() ?? Promise.resolve(),
  };
}

async function dispatch(source: PolicySource, attributes: AdmissionAttributes, options: ValidatingAdmissionPolicyOptions): Promise<void> {
  const { authorize, metrics } = options;
  const hooks = source.hooks();
  if (hooks.length === 0) return;
  const denials: Denial[] = [];
  let authorizer: { authorizer: Authorizer; requestResource: ResourceCheck } | undefined;
  const authorizerValues = () => {
    if (authorize === undefined) return undefined;
    if (authorizer === undefined) {
      const forUser = requestAuthorizer(authorize, attributes.userInfo);
      const { group, resource } = attributes.resource;
      const requestResource = requestResourceCheck(forUser, { group, resource, subresource: attributes.subresource, namespace: attributes.namespace, name: attributes.name });
      authorizer = { authorizer: forUser, requestResource };
    }
    return authorizer;
  };
  const namespaceLabels = async (name: string) => {
    const namespace = await source.namespace(name);
    return namespace === undefined ? undefined : namespace.metadata.labels ?? {};
  };
  const configError = (hook: PolicyHook, binding: BindingObject | undefined, err: string) => {
    if (hook.compiled.failurePolicy === 'Ignore') return;
    denials.push({ policy: hook.policy, binding, message: binding === undefined ? `failed to configure policy: ${err}` : `failed to configure binding: ${err}`, reason: '' });
  };
  for (const hook of hooks) {
    let match: MatchResult | undefined;
    try {
      match = await matchResources(hook.policy.spec?.matchConstraints ?? {}, attributes, namespaceLabels);
    } catch (err) {
      configError(hook, undefined, errorText(err));
      continue;
    }
    if (match === undefined) continue;
    if (hook.configurationError !== undefined) {
      configError(hook, undefined, hook.configurationError);
      continue;
    }
    const object = match.equivalent !== undefined && attributes.object !== undefined ? match.equivalent.convert(attributes.object) : attributes.object;
    const oldObject = match.equivalent !== undefined && attributes.oldObject !== undefined ? match.equivalent.convert(attributes.oldObject) : attributes.oldObject;
    const request = admissionRequest(attributes, match);
    // kube gives a namespace's own requests no namespaceObject.
    const isNamespace = attributes.kind.group === '' && attributes.kind.version === 'v1' && attributes.kind.kind === 'Namespace';
    const namespace = attributes.namespace !== '' && !isNamespace ? namespaceObject(await source.namespace(attributes.namespace)) : null;
    const annotations = new Map<string, string[]>();
    for (const binding of hook.bindings) {
      const matchResourcesOfBinding = binding.spec?.matchResources;
      if (matchResourcesOfBinding !== undefined && matchResourcesOfBinding !== null) {
        try {
          if (await matchResources(matchResourcesOfBinding, attributes, namespaceLabels) === undefined) continue;
        } catch (err) {
          configError(hook, binding, errorText(err));
          continue;
        }
      }
      const collected = await collectParams(hook.policy.spec?.paramKind, hook.params, binding.spec?.paramRef, attributes.namespace);
      if ('error' in collected) {
        configError(hook, binding, collected.error);
        continue;
      }
      for (const param of collected.params) {
        const result = validatePolicy(hook.compiled, { object: object ?? null, oldObject: oldObject ?? null, request, params: param, namespaceObject: namespace, authorizer: authorizerValues()?.authorizer, requestResource: authorizerValues()?.requestResource });
        result.decisions.forEach((decision, index) => act(attributes, hook.policy, binding, decision, index, denials, metrics));
        for (const annotation of result.auditAnnotations) {
          if (annotation.action === 'publish') {
            const value = annotation.value.length > MAX_AUDIT_ANNOTATION_VALUE_LENGTH ? annotation.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH) : annotation.value;
            const values = annotations.get(annotation.key) ?? [];
            if (!values.includes(value)) values.push(value);
            annotations.set(annotation.key, values);
          } else if (annotation.action === 'error') {
            denials.push({ policy: hook.policy, binding, message: annotation.error, reason: '' });
          }
        }
      }
    }
    for (const [key, values] of annotations) attributes.annotate(`${hook.policy.metadata.name ?? ''}/${key}`, values.join(', '));
  }
  if (denials.length > 0) throw denialError(attributes, denials[0]!);
}

/** Applies the binding's validationActions to one decision. */
function act(
  attributes: AdmissionAttributes, policy: PolicyObject, binding: BindingObject, decision: PolicyDecision, index: number, denials: Denial[],
  metrics: ValidatingAdmissionPolicyOptions['metrics'],
): void {
  const record = (action: PolicyEnforcementAction) =>
    metrics?.recordPolicyCheck(policy.metadata.name ?? '', binding.metadata.name ?? '', checkErrorType(decision), action, decision.elapsedSeconds);
  if (decision.action !== 'deny') {
    if (decision.evaluation === 'error') record('allow');
    return;
  }
  const actions = binding.spec?.validationActions ?? [];
  for (const action of actions) {
    switch (action) {
      case 'Deny':
        denials.push({ policy, binding, message: decision.message, reason: decision.reason });
        record('deny');
        break;
      case 'Warn':
        attributes.warn(`Validation failed for ValidatingAdmissionPolicy '${policy.metadata.name ?? ''}' with binding '${binding.metadata.name ?? ''}': ${decision.message}`);
        record('warn');
        break;
      case 'Audit':
        attributes.annotate(VALIDATION_FAILURE_ANNOTATION, goJson([{
          message: decision.message,
          policy: binding.spec?.policyName ?? '',
          binding: binding.metadata.name ?? '',
          expressionIndex: index,
          validationActions: actions,
        }]));
        record('audit');
        break;
    }
  }
}

/** kube's error_type of a decision: by what its message says went wrong. */
function checkErrorType(decision: PolicyDecision): PolicyCheckErrorType {
  if (decision.evaluation === 'admit') return 'no_error';
  if (decision.message.startsWith('compilation')) return 'compile_error';
  if (decision.message.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

/** JSON as Go's encoding/json writes it (<, > and & escaped). */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

function errorText(err: unknown): string {
  if (err instanceof StatusError) return err.status.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
