/**
 * kube's authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go) with the 1.31+
 * selector functions: `authorizer.group(g).resource(r).namespace(ns).name(n).check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)`, and the Decision
 * accessors. The caller supplies the authorizer (CelAuthorizer) in the activation.
 */
import type { Environment } from '@marcbachmann/cel-js';

/** What a check asks the authorizer. */
export interface AuthorizationCheck {
  /** Set by authorizer.serviceAccount(ns, name): check as that service account instead of the requester. */
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
  readonly verb: string;
  readonly path?: string;
  readonly apiGroup?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

export interface AuthorizationDecision {
  readonly decision: 'Allow' | 'Deny' | 'NoOpinion';
  readonly reason: string;
  /** Set when the authorizer failed. */
  readonly error?: string;
}

/** The caller's authorizer, bound per request (it knows the requesting user). */
export interface CelAuthorizer {
  authorize(check: AuthorizationCheck): AuthorizationDecision;
}

/** The CEL value of the `authorizer` variable. */
export class Authorizer {
  constructor(readonly impl: CelAuthorizer, readonly serviceAccount?: { namespace: string; name: string }) {}
}
export class PathCheck {
  constructor(readonly authorizer: Authorizer, readonly path: string) {}
}
export class GroupCheck {
  constructor(readonly authorizer: Authorizer, readonly group: string) {}
}
export class ResourceCheck {
  constructor(readonly authorizer: Authorizer, readonly attrs: Omit<AuthorizationCheck, 'verb' | 'serviceAccount'>) {}
  with(extra: Partial<AuthorizationCheck>): ResourceCheck { return new ResourceCheck(this.authorizer, { ...this.attrs, ...extra }); }
}
export class Decision {
  constructor(readonly result: AuthorizationDecision) {}
}

function check(a: Authorizer, attrs: Omit<AuthorizationCheck, 'serviceAccount'>): Decision {
  return new Decision(a.impl.authorize({ ...attrs, ...(a.serviceAccount ? { serviceAccount: a.serviceAccount } : {}) }));
}

export function installAuthz(env: Environment): void {
  const NS = 'kubernetes.authorization.';
  const A = `${NS}Authorizer`, P = `${NS}PathCheck`, G = `${NS}GroupCheck`, R = `${NS}ResourceCheck`, D = `${NS}Decision`;
  env.registerType(A, Authorizer);
  env.registerType(P, PathCheck);
  env.registerType(G, GroupCheck);
  env.registerType(R, ResourceCheck);
  env.registerType(D, Decision);
  env.registerFunction(`${A}.path(string): ${P}`, (a: Authorizer, p: string) => new PathCheck(a, p));
  env.registerFunction(`${A}.group(string): ${G}`, (a: Authorizer, g: string) => new GroupCheck(a, g));
  env.registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: Authorizer, namespace: string, name: string) =>
    new Authorizer(a.impl, { namespace, name }));
  env.registerFunction(`${G}.resource(string): ${R}`, (g: GroupCheck, r: string) => new ResourceCheck(g.authorizer, { apiGroup: g.group, resource: r }));
  env.registerFunction(`${R}.subresource(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ subresource: s }));
  env.registerFunction(`${R}.namespace(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ namespace: s }));
  env.registerFunction(`${R}.name(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ name: s }));
  env.registerFunction(`${R}.fieldSelector(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ fieldSelector: s }));
  env.registerFunction(`${R}.labelSelector(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ labelSelector: s }));
  env.registerFunction(`${R}.check(string): ${D}`, (r: ResourceCheck, verb: string) => check(r.authorizer, { ...r.attrs, verb }));
  env.registerFunction(`${P}.check(string): ${D}`, (p: PathCheck, verb: string) => check(p.authorizer, { path: p.path, verb }));
  env.registerFunction(`${D}.allowed(): bool`, (d: Decision) => d.result.decision === 'Allow');
  env.registerFunction(`${D}.reason(): string`, (d: Decision) => d.result.reason);
  env.registerFunction(`${D}.errored(): bool`, (d: Decision) => d.result.error !== undefined);
  env.registerFunction(`${D}.error(): string`, (d: Decision) => d.result.error ?? '');
}
