/**
 * kube 1.32's validation of FlowSchemas and PriorityLevelConfigurations (its
 * pkg/apis/flowcontrol/validation), on the storage (v1) form: the spec rules, the conditions'
 * types in status, and the mandatory bootstrap objects (`exempt`, `catch-all`) whose spec is
 * fixed (the exempt level's `spec.exempt` excepted). Messages, field paths and error types as
 * kube prints them.
 */
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, goQuote, isDNS1123Label, isDNS1123Subdomain, isPlainObject, type FieldError, type KubeObject } from '@kapi/machinery';
import { flowcontrolBootstrap } from '@kapi/catalog';

type Rec = Record<string, unknown>;

const PRESERVE_ZERO_SHARES = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';
const MAX_MATCHING_PRECEDENCE = 10000;
const MAX_QUEUES = 10_000_000;
const MAX_HASH_BITS = 60;
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const VERBS = new Set(['get', 'list', 'create', 'update', 'delete', 'deletecollection', 'patch', 'watch', 'proxy']);
const SORTED_VERBS = [...VERBS].sort();
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const PRIORITY_TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
const NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const rec = (value: unknown): Rec | undefined => (isPlainObject(value) ? value : undefined);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map((v) => String(v)) : []);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Go's `%#v` of a []string, as kube prints a list in an Invalid or NotSupported message. */
function goStrings(values: readonly string[] | undefined): string {
  if (values === undefined) return '[]string(nil)';
  return `[]string{${values.map((v) => goQuote(v)).join(', ')}}`;
}

/** fieldInvalid / fieldNotSupported with a value already printed as Go does. */
function invalidGo(field: string, goText: string, detail: string): FieldError {
  const err = fieldInvalid(field, 0, detail);
  return { ...err, message: `Invalid value: ${goText}: ${detail}` };
}
function notSupportedGo(field: string, goText: string, valid: readonly string[]): FieldError {
  const err = fieldNotSupported(field, 0, valid);
  return { ...err, message: err.message.replace(/^Unsupported value: 0/, `Unsupported value: ${goText}`) };
}

// ---------------------------------------------------------------- FlowSchema

function validateNonResourceURL(path: string, field: string): FieldError | undefined {
  if (path === '') return fieldInvalid(field, path, 'must not be empty');
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return fieldInvalid(field, path, 'must start with slash');
  if (path.includes(' ')) return fieldInvalid(field, path, 'must not contain white-space');
  if (path.includes('//')) return fieldInvalid(field, path, 'must not contain double slash');
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return fieldInvalid(field, path, 'wildcard can only do suffix matching');
  return undefined;
}

function validateVerbs(verbs: string[], field: string, errs: FieldError[]): void {
  if (verbs.length === 0) errs.push(fieldRequired(field, 'verbs must contain at least one value'));
  else if (verbs.includes('*')) {
    if (verbs.length > 1) errs.push(invalidGo(field, goStrings(verbs), "if '*' is present, must not specify other verbs"));
  } else if (!verbs.every((v) => VERBS.has(v))) errs.push(notSupportedGo(field, goStrings(verbs), SORTED_VERBS));
}

function validateResourceRule(rule: Rec, path: string, errs: FieldError[]): void {
  validateVerbs(strings(rule['verbs']), `${path}.verbs`, errs);
  const groups = strings(rule['apiGroups']);
  if (groups.length === 0) errs.push(fieldRequired(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(invalidGo(`${path}.apiGroups`, goStrings(groups), "if '*' is present, must not specify other api groups"));
  const resources = strings(rule['resources']);
  if (resources.length === 0) errs.push(fieldRequired(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(invalidGo(`${path}.resources`, goStrings(resources), "if '*' is present, must not specify other resources"));
  const namespaces = strings(rule['namespaces']);
  if (namespaces.length === 0 && rule['clusterScope'] !== true) {
    errs.push(fieldRequired(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalidGo(`${path}.namespaces`, goStrings(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(ns)) errs.push(fieldInvalid(`${path}.namespaces[${i}]`, ns, NS_INTRO + msg));
    });
  }
}

function validateNonResourceRule(rule: Rec, path: string, errs: FieldError[]): void {
  validateVerbs(strings(rule['verbs']), `${path}.verbs`, errs);
  const urls = strings(rule['nonResourceURLs']);
  if (urls.length === 0) errs.push(fieldRequired(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(invalidGo(`${path}.nonResourceURLs`, goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((url, i) => {
      const err = validateNonResourceURL(url, `${path}.nonResourceURLs[${i}]`);
      if (err !== undefined) errs.push(err);
    });
  }
}

const present = (value: unknown) => value !== undefined && value !== null;

function validateSubject(subject: Rec, path: string, errs: FieldError[]): void {
  const kind = str(subject['kind']);
  const forbidden = (key: 'user' | 'group' | 'serviceAccount') => {
    if (!present(subject[key])) return;
    const text = { user: "user is forbidden when subject kind is not 'User'", group: "group is forbidden when subject kind is not 'Group'", serviceAccount: "serviceAccount is forbidden when subject kind is not 'ServiceAccount'" }[key];
    errs.push(fieldForbidden(`${path}.${key}`, text));
  };
  switch (kind) {
    case 'ServiceAccount': {
      const sa = rec(subject['serviceAccount']);
      if (sa === undefined) errs.push(fieldRequired(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = str(sa['name']);
        if (name === '') errs.push(fieldRequired(`${path}.serviceAccount.name`, ''));
        else if (name !== '*') for (const msg of isDNS1123Subdomain(name)) errs.push(fieldInvalid(`${path}.serviceAccount.name`, name, msg));
        const ns = str(sa['namespace']);
        if (ns === '') errs.push(fieldRequired(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
        else for (const msg of isDNS1123Label(ns)) errs.push(fieldInvalid(`${path}.serviceAccount.namespace`, ns, msg));
      }
      forbidden('user');
      forbidden('group');
      return;
    }
    case 'User': {
      const user = rec(subject['user']);
      if (user === undefined) errs.push(fieldRequired(`${path}.user`, "user is required when subject kind is 'User'"));
      else if (str(user['name']) === '') errs.push(fieldRequired(`${path}.user.name`, ''));
      forbidden('serviceAccount');
      forbidden('group');
      return;
    }
    case 'Group': {
      const group = rec(subject['group']);
      if (group === undefined) errs.push(fieldRequired(`${path}.group`, "group is required when subject kind is 'Group'"));
      else if (str(group['name']) === '') errs.push(fieldRequired(`${path}.group.name`, ''));
      forbidden('serviceAccount');
      forbidden('user');
      return;
    }
    default:
      errs.push(fieldNotSupported(`${path}.kind`, kind, SUBJECT_KINDS));
  }
}

function validateFlowSchemaSpec(name: string, spec: Rec, errs: FieldError[]): void {
  const precedence = num(spec['matchingPrecedence']);
  if (precedence <= 0) errs.push(fieldInvalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE) errs.push(fieldInvalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && name !== 'exempt') errs.push(fieldInvalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const distinguisher = rec(spec['distinguisherMethod']);
  if (distinguisher !== undefined && !DISTINGUISHER_METHODS.includes(str(distinguisher['type']))) {
    errs.push(notSupportedGo('spec.distinguisherMethod.type', `flowcontrol.FlowDistinguisherMethod{Type:${goQuote(str(distinguisher['type']))}}`, DISTINGUISHER_METHODS));
  }
  const level = str(rec(spec['priorityLevelConfiguration'])?.['name']);
  if (level === '') errs.push(fieldRequired('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const msg of isDNS1123Subdomain(level)) errs.push(fieldInvalid('spec.priorityLevelConfiguration.name', level, msg));
  list(spec['rules']).forEach((r, i) => {
    const rule = rec(r) ?? {};
    const path = `spec.rules[${i}]`;
    const subjects = list(rule['subjects']);
    if (subjects.length === 0) errs.push(fieldRequired(`${path}.subjects`, 'subjects must contain at least one value'));
    else subjects.forEach((s, j) => validateSubject(rec(s) ?? {}, `${path}.subjects[${j}]`, errs));
    const resourceRules = list(rule['resourceRules']);
    const nonResourceRules = list(rule['nonResourceRules']);
    if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(fieldRequired(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    resourceRules.forEach((rr, j) => validateResourceRule(rec(rr) ?? {}, `${path}.resourceRules[${j}]`, errs));
    nonResourceRules.forEach((nr, j) => validateNonResourceRule(rec(nr) ?? {}, `${path}.nonResourceRules[${j}]`, errs));
  });
}

function validateConditions(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(rec(obj['status'])?.['conditions']).forEach((c, i) => {
    const type = str(rec(c)?.['type']);
    if (seen.has(type)) errs.push(fieldDuplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    if (type === '') errs.push(fieldRequired(`status.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}

// ------------------------------------------------- fixed specs of mandatory objects

/**
 * The fields of the internal flowcontrol types that are plain values (not pointers) in Go: their
 * zero value and their absence are the same thing there.
 */
const VALUE_FIELDS = new Set(['name', 'namespace', 'matchingPrecedence', 'type', 'kind', 'clusterScope', 'queues', 'handSize', 'queueLengthLimit', 'priorityLevelConfiguration', 'limitResponse']);

/** A spec reduced to what Go's semantic equality sees: no nulls, no empty lists, no zero plain values. */
function canonical(value: unknown, key = '', parent = ''): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((v) => canonical(v));
  if (isPlainObject(value)) {
    const out: Rec = {};
    for (const k of Object.keys(value).sort()) {
      const c = canonical(value[k], k, key);
      if (c !== undefined) out[k] = c;
    }
    if (Object.keys(out).length === 0 && VALUE_FIELDS.has(key)) return undefined;
    return out;
  }
  if (value === null || value === undefined) return undefined;
  // The limited level's share count is a plain int32 inside kube (a pointer only in v1).
  const plain = VALUE_FIELDS.has(key) || (key === 'nominalConcurrencyShares' && parent === 'limited');
  if (plain && (value === 0 || value === '' || value === false)) return undefined;
  return value;
}

const sameSpec = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function mandatory(kind: 'flowSchemas' | 'priorityLevels', name: string): Rec | undefined {
  const config = flowcontrolBootstrap();
  const objs = kind === 'flowSchemas' ? config.mandatoryFlowSchemas : config.mandatoryPriorityLevelConfigurations;
  const found = objs.find((o) => rec(o['metadata'])?.['name'] === name);
  return found === undefined ? undefined : rec(found['spec']) ?? {};
}

// ------------------------------------------------- Go %#v of the specs (kube prints them whole)

const goInt = (value: unknown) => String(num(value));
const goSlice = (type: string, value: unknown, item: (v: Rec) => string) =>
  Array.isArray(value) ? `[]flowcontrol.${type}{${value.map((v) => `flowcontrol.${type}{${item(rec(v) ?? {})}}`).join(', ')}}` : `[]flowcontrol.${type}(nil)`;

/** kube's `%#v` of a FlowSchemaSpec (pointers print as addresses there; here as a fixed one). */
export function goFlowSchemaSpec(spec: Rec): string {
  const subject = (s: Rec) =>
    `Kind:${goQuote(str(s['kind']))}, User:${ptrAddr('UserSubject', s['user'])}, Group:${ptrAddr('GroupSubject', s['group'])}, ServiceAccount:${ptrAddr('ServiceAccountSubject', s['serviceAccount'])}`;
  const resourceRule = (r: Rec) =>
    `Verbs:${goStringsOf(r['verbs'])}, APIGroups:${goStringsOf(r['apiGroups'])}, Resources:${goStringsOf(r['resources'])}, ClusterScope:${String(r['clusterScope'] === true)}, Namespaces:${goStringsOf(r['namespaces'])}`;
  const nonResourceRule = (r: Rec) => `Verbs:${goStringsOf(r['verbs'])}, NonResourceURLs:${goStringsOf(r['nonResourceURLs'])}`;
  const rule = (r: Rec) =>
    `Subjects:${goSlice('Subject', r['subjects'], subject)}, ResourceRules:${goSlice('ResourcePolicyRule', r['resourceRules'], resourceRule)}, NonResourceRules:${goSlice('NonResourcePolicyRule', r['nonResourceRules'], nonResourceRule)}`;
  return (
    `flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:${goQuote(str(rec(spec['priorityLevelConfiguration'])?.['name']))}}, ` +
    `MatchingPrecedence:${goInt(spec['matchingPrecedence'])}, DistinguisherMethod:${ptrAddr('FlowDistinguisherMethod', spec['distinguisherMethod'])}, Rules:${goSlice('PolicyRulesWithSubjects', spec['rules'], rule)}}`
  );
}

/** kube's `%#v` of a PriorityLevelConfigurationSpec. */
export function goPriorityLevelSpec(spec: Rec): string {
  return `flowcontrol.PriorityLevelConfigurationSpec{Type:${goQuote(str(spec['type']))}, Limited:${ptrAddr('LimitedPriorityLevelConfiguration', spec['limited'])}, Exempt:${ptrAddr('ExemptPriorityLevelConfiguration', spec['exempt'])}}`;
}

const ptrAddr = (type: string, value: unknown) => (rec(value) === undefined ? `(*flowcontrol.${type})(nil)` : `(*flowcontrol.${type})(0xc000000000)`);
const goStringsOf = (value: unknown) => (Array.isArray(value) ? goStrings(strings(value)) : '[]string(nil)');

// ---------------------------------------------------------------- entry points

/** kube's ValidateFlowSchema (create and update alike): spec, the fixed mandatory spec, status. */
export function validateFlowSchema(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  const spec = rec(obj['spec']) ?? {};
  validateFlowSchemaSpec(name, spec, errs);
  const fixed = mandatory('flowSchemas', name);
  if (fixed !== undefined && !sameSpec(spec, fixed)) errs.push(invalidGo('spec', goFlowSchemaSpec(spec), `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(obj));
  return errs;
}

function validateQueuing(queuing: Rec, path: string, errs: FieldError[]): void {
  const limit = num(queuing['queueLengthLimit']);
  if (limit <= 0) errs.push(fieldInvalid(`${path}.queueLengthLimit`, limit, 'must be positive'));
  const queues = num(queuing['queues']);
  if (queues <= 0) errs.push(fieldInvalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(fieldInvalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  const hand = num(queuing['handSize']);
  if (hand <= 0) errs.push(fieldInvalid(`${path}.handSize`, hand, 'must be positive'));
  else if (hand > queues) errs.push(fieldInvalid(`${path}.handSize`, hand, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * hand) > MAX_HASH_BITS) {
    errs.push(fieldInvalid(`${path}.handSize`, hand, `required entropy bits of deckSize ${queues} and handSize ${hand} should not be greater than ${MAX_HASH_BITS}`));
  }
}

function validateLimited(limited: Rec, errs: FieldError[]): void {
  const shares = num(limited['nominalConcurrencyShares']);
  if (shares < 0) errs.push(fieldInvalid('spec.limited.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
  const response = rec(limited['limitResponse']) ?? {};
  const responseType = str(response['type']);
  const queuing = rec(response['queuing']);
  if (responseType === 'Reject') {
    if (present(response['queuing'])) errs.push(fieldForbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (responseType === 'Queue') {
    if (queuing === undefined) errs.push(fieldRequired('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'));
    else validateQueuing(queuing, 'spec.limited.limitResponse.queuing', errs);
  } else errs.push(fieldNotSupported('spec.limited.limitResponse.type', responseType, LIMIT_RESPONSE_TYPES));
  const lendable = limited['lendablePercent'];
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) errs.push(fieldInvalid('spec.limited.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = limited['borrowingLimitPercent'];
  if (typeof borrowing === 'number' && borrowing < 0) errs.push(fieldInvalid('spec.limited.borrowingLimitPercent', borrowing, 'if specified, must be a non-negative integer'));
}

/**
 * kube's ValidatePriorityLevelConfiguration (create and update alike). `version` is the
 * request's: through v1beta3 kube's conversion takes the zero-shares annotation off, so only
 * the other versions see it forbidden.
 */
export function validatePriorityLevel(obj: KubeObject, version?: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (version !== 'v1beta3' && obj.metadata.annotations?.[PRESERVE_ZERO_SHARES] !== undefined) {
    errs.push(fieldForbidden('metadata.annotations', `annotation '${PRESERVE_ZERO_SHARES}' is forbidden`));
  }
  const spec = rec(obj['spec']) ?? {};
  const type = str(spec['type']);
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(fieldInvalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = rec(spec['limited']);
  const exempt = rec(spec['exempt']);
  if (type === 'Exempt') {
    if (present(spec['limited'])) errs.push(fieldForbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (exempt !== undefined) {
      const shares = exempt['nominalConcurrencyShares'];
      if (typeof shares === 'number' && shares < 0) errs.push(fieldInvalid('spec.exempt.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
      const lendable = exempt['lendablePercent'];
      if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) errs.push(fieldInvalid('spec.exempt.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
    }
  } else if (type === 'Limited') {
    if (present(spec['exempt'])) errs.push(fieldForbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (limited === undefined) errs.push(fieldRequired('spec.limited', 'must not be empty when type is Limited'));
    else validateLimited(limited, errs);
  } else errs.push(fieldNotSupported('spec.type', type, PRIORITY_TYPES));
  const fixed = mandatory('priorityLevels', name);
  if (fixed !== undefined) {
    if (name === 'exempt') {
      if (!sameSpec({ ...spec, exempt: fixed['exempt'] }, fixed)) errs.push(invalidGo('spec', goPriorityLevelSpec(spec), `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`));
    } else if (!sameSpec(spec, fixed)) errs.push(invalidGo('spec', goPriorityLevelSpec(spec), `spec of '${name}' must equal the fixed value`));
  }
  errs.push(...validateConditions(obj));
  return errs;
}

/** A status write: kube checks only the conditions' types. */
export function validateStatusUpdate(subresource: string, obj: KubeObject): FieldError[] {
  return subresource === 'status' ? validateConditions(obj) : [];
}
