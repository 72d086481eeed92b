/**
 * Which admission requests a webhook or a ValidatingAdmissionPolicy applies to, as kube 1.32
 * decides it (k8s.io/apiserver's admission/plugin/webhook/predicates and policy/matching):
 *
 * - rules: operations, apiGroups, apiVersions, resources (`*` = every resource without a
 *   subresource, `*∕*` = everything, `pods/*`, `*∕status`), scope (`Namespaced` excludes the
 *   namespace object itself and cluster-scoped resources; `Cluster` includes the namespace
 *   object; `*` everything);
 * - namespaceSelector: a cluster-scoped request (other than of a namespace) always matches;
 *   a create or update of a namespace is matched by the object's own labels, anything else
 *   by the labels of the request's namespace (an absent namespace is kube's 404);
 * - objectSelector: the labels of the object or of the old object;
 * - matchPolicy Equivalent (the v1 default): when no rule matches the request's resource, the
 *   rules are tried against the other versions serving the same objects; the match then names
 *   that version's resource and kind (the object is converted before it is sent).
 *
 * Selector errors are kube's InternalError and are reported only when the rules match (a
 * broken configuration does not fail requests it does not apply to). Configurations are
 * read-only (informer copies): parsed selectors are cached per selector object.
 */
import { internalError, isStatusError, labelSelectorFromObject, notFound, type KubeObject, type LabelSelector, type LabelSelectorObject } from '@kapi/machinery';
import type { AdmissionAttributes, EquivalentResource, GroupVersionKind, GroupVersionResource } from '@kapi/registry';

/** admissionregistration.k8s.io/v1 RuleWithOperations. */
export interface RuleWithOperations {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  /** `Cluster`, `Namespaced` or `*` (the default). */
  readonly scope?: string;
}

/** admissionregistration.k8s.io/v1 NamedRuleWithOperations (policies' matchConstraints). */
export interface NamedRuleWithOperations extends RuleWithOperations {
  readonly resourceNames?: readonly string[];
}

export type MatchPolicy = 'Exact' | 'Equivalent';

/** What both webhooks and policies select requests by. */
export interface SelectorCriteria {
  /** Absent = match everything (the v1 default `{}`). */
  readonly namespaceSelector?: LabelSelectorObject;
  readonly objectSelector?: LabelSelectorObject;
}

/** A webhook's matching fields (Mutating/ValidatingWebhook). */
export interface WebhookCriteria extends SelectorCriteria {
  readonly rules?: readonly RuleWithOperations[];
  /** Absent = Equivalent (the v1 default). */
  readonly matchPolicy?: string;
}

/** A policy's or binding's matchResources (MatchResources). */
export interface MatchResources extends SelectorCriteria {
  /** Empty or absent = every resource. */
  readonly resourceRules?: readonly NamedRuleWithOperations[];
  readonly excludeResourceRules?: readonly NamedRuleWithOperations[];
  /** Absent = Exact (kube's matcher; the API defaults it to Equivalent when stored). */
  readonly matchPolicy?: string;
}

/** The part of the admission attributes matching reads. */
export type MatchAttributes = Pick<
  AdmissionAttributes,
  'operation' | 'kind' | 'resource' | 'subresource' | 'name' | 'namespace' | 'object' | 'oldObject' | 'equivalents'
>;

/**
 * The labels of namespace `name`, or undefined when it does not exist. Implementations read
 * an informer copy first and storage when the copy does not have it (kube's lister, then a
 * live GET, for cache latency).
 */
export type NamespaceLabels = (name: string) => Readonly<Record<string, string>> | undefined | Promise<Readonly<Record<string, string>> | undefined>;

/** What a request matched: the resource and kind to present it as, and the equivalent version when it is not the request's. */
export interface MatchResult {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  /** Set when the match is through matchPolicy Equivalent: convert the objects with it. */
  readonly equivalent?: EquivalentResource;
}

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

function isNamespaceResource(resource: GroupVersionResource): boolean {
  return resource.group === NAMESPACES.group && resource.version === NAMESPACES.version && resource.resource === NAMESPACES.resource;
}

const has = (list: readonly string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

function splitResource(resource: string): [string, string] {
  const slash = resource.indexOf('/');
  return slash < 0 ? [resource, ''] : [resource.slice(0, slash), resource.slice(slash + 1)];
}

/**
 * kube's rules.Matcher: whether `rule` covers the request, with `resource` in place of the
 * request's own (matchPolicy Equivalent tries the equivalents this way).
 */
export function ruleMatches(rule: RuleWithOperations, attributes: MatchAttributes, resource: GroupVersionResource = attributes.resource): boolean {
  if (!scopeMatches(rule.scope, attributes, resource)) return false;
  if (!has(rule.operations, attributes.operation)) return false;
  if (!has(rule.apiGroups, resource.group)) return false;
  if (!has(rule.apiVersions, resource.version)) return false;
  for (const entry of rule.resources ?? []) {
    const [res, sub] = splitResource(entry);
    if ((res === '*' || res === resource.resource) && (sub === '*' || sub === attributes.subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: string | undefined, attributes: MatchAttributes, resource: GroupVersionResource): boolean {
  if (scope === undefined || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespaceResource(resource) && attributes.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(resource) || attributes.namespace === '';
  return false;
}

const parsedSelectors = new WeakMap<object, LabelSelector | Error>();

/** The selector of a configuration (cached per object); absent = everything. Throws InternalError for an invalid one. */
function selectorOf(selector: LabelSelectorObject | undefined): LabelSelector | undefined {
  if (selector === undefined || selector === null) return undefined;
  let parsed = parsedSelectors.get(selector);
  if (parsed === undefined) {
    try {
      parsed = labelSelectorFromObject(selector);
    } catch (err) {
      parsed = new Error(isStatusError(err) ? err.status.message ?? String(err) : String(err));
    }
    parsedSelectors.set(selector, parsed);
  }
  if (parsed instanceof Error) throw internalError(parsed);
  return parsed.empty ? undefined : parsed;
}

function labelsOf(obj: KubeObject | undefined): Readonly<Record<string, string>> | undefined {
  return obj?.metadata?.labels;
}

/**
 * The namespaceSelector's verdict: true/false, or the StatusError kube would answer
 * (an invalid selector: 500; an absent namespace: 404), to be reported only once the rules match.
 */
export async function matchNamespaceSelector(criteria: SelectorCriteria, attributes: MatchAttributes, namespaceLabels: NamespaceLabels): Promise<boolean | Error> {
  const namespaceName = attributes.namespace;
  if (namespaceName === '' && attributes.resource.resource !== 'namespaces') return true;
  let selector: LabelSelector | undefined;
  try {
    selector = selectorOf(criteria.namespaceSelector);
  } catch (err) {
    return err as Error;
  }
  if (selector === undefined) return true;
  if (attributes.resource.resource === 'namespaces' && attributes.subresource === '' && (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE')) {
    return selector.matches(labelsOf(attributes.object) ?? {});
  }
  let labels: Readonly<Record<string, string>> | undefined;
  try {
    labels = await namespaceLabels(namespaceName);
  } catch (err) {
    return isStatusError(err) ? err : internalError(err);
  }
  if (labels === undefined) return notFound({ group: '', resource: 'namespaces' }, namespaceName);
  return selector.matches(labels);
}

/** The objectSelector's verdict: the object's or the old object's labels; an invalid selector is kube's InternalError. */
export function matchObjectSelector(criteria: SelectorCriteria, attributes: MatchAttributes): boolean | Error {
  let selector: LabelSelector | undefined;
  try {
    selector = selectorOf(criteria.objectSelector);
  } catch (err) {
    return err as Error;
  }
  if (selector === undefined) return true;
  const matchObject = (obj: KubeObject | undefined) => obj !== undefined && selector.matches(labelsOf(obj) ?? {});
  return matchObject(attributes.object) || matchObject(attributes.oldObject);
}

const exact = (attributes: MatchAttributes): MatchResult => ({ resource: attributes.resource, kind: attributes.kind });

function sameResource(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/**
 * kube's ShouldCallHook without matchConditions: the namespace and object selectors, the
 * rules (then, for matchPolicy Equivalent, the rules against each equivalent resource, earlier
 * rules first). Returns undefined when the webhook does not apply; throws the selectors'
 * StatusError when it does apply but a selector failed.
 */
export async function matchWebhook(webhook: WebhookCriteria, attributes: MatchAttributes, namespaceLabels: NamespaceLabels): Promise<MatchResult | undefined> {
  const namespaceMatch = await matchNamespaceSelector(webhook, attributes, namespaceLabels);
  if (namespaceMatch === false) return undefined;
  const objectMatch = matchObjectSelector(webhook, attributes);
  if (objectMatch === false) return undefined;
  const rules = webhook.rules ?? [];
  let result: MatchResult | undefined = rules.some((rule) => ruleMatches(rule, attributes)) ? exact(attributes) : undefined;
  if (result === undefined && (webhook.matchPolicy ?? 'Equivalent') === 'Equivalent') result = matchEquivalent(rules, attributes);
  if (result === undefined) return undefined;
  if (namespaceMatch instanceof Error) throw namespaceMatch;
  if (objectMatch instanceof Error) throw objectMatch;
  return result;
}

function matchEquivalent(rules: readonly NamedRuleWithOperations[], attributes: MatchAttributes, named = false): MatchResult | undefined {
  const equivalents = attributes.equivalents();
  if (equivalents.length === 0) return undefined;
  for (const rule of rules) {
    for (const equivalent of equivalents) {
      if (sameResource(equivalent.resource, attributes.resource)) continue;
      if (!ruleMatches(rule, attributes, equivalent.resource)) continue;
      if (named && !nameMatches(rule, attributes)) continue;
      return { resource: equivalent.resource, kind: equivalent.kind, equivalent };
    }
  }
  return undefined;
}

function nameMatches(rule: NamedRuleWithOperations, attributes: MatchAttributes): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attributes.name);
}

/** kube's matchesResourceRules: named rules (resourceNames), then equivalents unless matchPolicy is Exact (or absent). */
export function matchResourceRules(rules: readonly NamedRuleWithOperations[], matchPolicy: string | undefined, attributes: MatchAttributes): MatchResult | undefined {
  for (const rule of rules) {
    if (ruleMatches(rule, attributes) && nameMatches(rule, attributes)) return exact(attributes);
  }
  if (matchPolicy === undefined || matchPolicy === 'Exact') return undefined;
  return matchEquivalent(rules, attributes, true);
}

/**
 * kube's policy matching (ValidatingAdmissionPolicy matchConstraints, a binding's
 * matchResources): selectors, then excludeResourceRules (a match excludes), then
 * resourceRules (none = every resource). Undefined when it does not apply; throws a
 * selector's StatusError when it does.
 */
export async function matchResources(criteria: MatchResources, attributes: MatchAttributes, namespaceLabels: NamespaceLabels): Promise<MatchResult | undefined> {
  const namespaceMatch = await matchNamespaceSelector(criteria, attributes, namespaceLabels);
  if (namespaceMatch === false) return undefined;
  const objectMatch = matchObjectSelector(criteria, attributes);
  if (objectMatch === false) return undefined;
  if (matchResourceRules(criteria.excludeResourceRules ?? [], criteria.matchPolicy, attributes) !== undefined) return undefined;
  const rules = criteria.resourceRules ?? [];
  const result = rules.length === 0 ? exact(attributes) : matchResourceRules(rules, criteria.matchPolicy, attributes);
  if (result === undefined) return undefined;
  if (namespaceMatch instanceof Error) throw namespaceMatch;
  if (objectMatch instanceof Error) throw objectMatch;
  return result;
}
