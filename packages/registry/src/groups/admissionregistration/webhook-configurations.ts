/**
 * admissionregistration.k8s.io/v1 Mutating/ValidatingWebhookConfiguration: kube's defaults
 * (failurePolicy Fail, matchPolicy Equivalent, empty selectors, timeoutSeconds 10, rule scope
 * `*`, service port 443, reinvocationPolicy Never) applied as the object is decoded, and
 * kube's validation (webhook names, rules, enums, sideEffects, timeouts, clientConfig,
 * admissionReviewVersions, unique names) with its texts. Not checked yet: the label selectors
 * and matchConditions' CEL (a condition that does not compile fails at request time).
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, isDNS1035Label, isDNS1123Subdomain } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { webhookConfigurationColumns } from './columns.js';

type Json = Record<string, unknown>;
const rec = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const goStrings = (values: readonly unknown[], type = 'string') => `[]${type}{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
const invalidRaw = (field: string, shown: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${shown}: ${detail}` });

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** Sets kube's v1 defaults on every webhook of a configuration. */
function setDefaults(obj: KubeObject, mutating: boolean): void {
  for (const entry of list((obj as Json)['webhooks'])) {
    const hook = rec(entry);
    if (hook === undefined) continue;
    hook['failurePolicy'] ??= 'Fail';
    hook['matchPolicy'] ??= 'Equivalent';
    hook['namespaceSelector'] ??= {};
    hook['objectSelector'] ??= {};
    hook['timeoutSeconds'] ??= 10;
    if (mutating) hook['reinvocationPolicy'] ??= 'Never';
    for (const rule of list(hook['rules'])) {
      const r = rec(rule);
      if (r !== undefined) r['scope'] ??= '*';
    }
    const service = rec(rec(hook['clientConfig'])?.['service']);
    if (service !== undefined) service['port'] ??= 443;
  }
}

/** kube's IsFullyQualifiedName. */
function fullyQualifiedName(path: string, name: unknown): FieldError[] {
  const text = typeof name === 'string' ? name : '';
  if (text === '') return [fieldRequired(path, '')];
  const errs = isDNS1123Subdomain(text);
  if (errs.length > 0) return [fieldInvalid(path, text, errs.join(','))];
  if (text.split('.').length < 3) return [fieldInvalid(path, text, 'should be a domain with at least three segments separated by dots')];
  return [];
}

const hasWildcard = (values: readonly unknown[]) => values.includes('*');

function validateResources(resources: readonly unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldRequired(path, ''));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((value, i) => {
    const resSub = typeof value === 'string' ? value : '';
    if (resSub === '') {
      errs.push(fieldRequired(`${path}[${i}]`, ''));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(fieldInvalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (wildcardRes.has(sub)) errs.push(fieldInvalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalidRaw(path, goStrings(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource) errs.push(invalidRaw(path, goStrings(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = list(rule['operations']);
  if (ops.length === 0) errs.push(fieldRequired(`${path}.operations`, ''));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(invalidRaw(`${path}.operations`, goStrings(ops, 'admissionregistration.OperationType'), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(String(op))) errs.push(fieldNotSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = list(rule['apiGroups']);
  if (groups.length === 0) errs.push(fieldRequired(`${path}.apiGroups`, ''));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(invalidRaw(`${path}.apiGroups`, goStrings(groups), "if '*' is present, must not specify other API groups"));
  const versions = list(rule['apiVersions']);
  if (versions.length === 0) errs.push(fieldRequired(`${path}.apiVersions`, ''));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(invalidRaw(`${path}.apiVersions`, goStrings(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldRequired(`${path}.apiVersions[${i}]`, ''));
  });
  errs.push(...validateResources(list(rule['resources']), `${path}.resources`));
  if (rule['scope'] !== undefined && !SCOPES.includes(String(rule['scope']))) errs.push(fieldNotSupported(`${path}.scope`, rule['scope'], SCOPES));
  return errs;
}

const FORM = '; desired format: https://host[/path]';

function validateUrl(path: string, text: string): FieldError[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch (err) {
    return [fieldRequired(path, `url must be a valid URL: ${err instanceof Error ? err.message : String(err)}${FORM}`)];
  }
  const errs: FieldError[] = [];
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldInvalid(path, scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (url.host === '') errs.push(fieldInvalid(path, url.host, `host must be specified${FORM}`));
  if (url.username !== '' || url.password !== '') errs.push(fieldInvalid(path, url.password !== '' ? `${url.username}:${url.password}` : url.username, 'user information is not permitted in the URL'));
  if (url.hash !== '') errs.push(fieldInvalid(path, url.hash.slice(1), 'fragments are not permitted in the URL'));
  if (url.search !== '') errs.push(fieldInvalid(path, url.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function validateService(path: string, service: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof service['name'] !== 'string' || service['name'] === '') errs.push(fieldRequired(`${path}.name`, 'service name is required'));
  if (typeof service['namespace'] !== 'string' || service['namespace'] === '') errs.push(fieldRequired(`${path}.namespace`, 'service namespace is required'));
  const port = typeof service['port'] === 'number' ? service['port'] : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldInvalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = service['path'];
  if (typeof urlPath !== 'string' || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, fieldInvalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldInvalid(`${path}.path`, urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') {
      errs.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldInvalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

function validateReviewVersions(versions: readonly unknown[], path: string): FieldError[] {
  if (versions.length === 0) return [fieldRequired(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((value, i) => {
    const v = String(value);
    if (seen.has(v)) {
      errs.push(fieldInvalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldInvalid(`${path}[${i}]`, v, msg));
    if (REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (!accepted) errs.push(invalidRaw(path, goStrings(versions), `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function validateWebhook(hook: Json, path: string, mutating: boolean): FieldError[] {
  const errs = fullyQualifiedName(`${path}.name`, hook['name']);
  list(hook['rules']).forEach((rule, i) => errs.push(...validateRule(rec(rule) ?? {}, `${path}.rules[${i}]`)));
  if (hook['failurePolicy'] !== undefined && !FAILURE_POLICIES.includes(String(hook['failurePolicy']))) errs.push(fieldNotSupported(`${path}.failurePolicy`, hook['failurePolicy'], FAILURE_POLICIES));
  if (hook['matchPolicy'] !== undefined && !MATCH_POLICIES.includes(String(hook['matchPolicy']))) errs.push(fieldNotSupported(`${path}.matchPolicy`, hook['matchPolicy'], MATCH_POLICIES));
  if (hook['sideEffects'] === undefined || hook['sideEffects'] === null) errs.push(fieldRequired(`${path}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
  else if (!SIDE_EFFECTS.includes(String(hook['sideEffects']))) errs.push(fieldNotSupported(`${path}.sideEffects`, hook['sideEffects'], SIDE_EFFECTS));
  const timeout = hook['timeoutSeconds'];
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) errs.push(fieldInvalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  const clientConfig = rec(hook['clientConfig']) ?? {};
  const url = clientConfig['url'];
  const service = rec(clientConfig['service']);
  if ((url === undefined) === (service === undefined)) errs.push(fieldRequired(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (typeof url === 'string') errs.push(...validateUrl(`${path}.clientConfig.url`, url));
  else if (service !== undefined) errs.push(...validateService(`${path}.clientConfig.service`, service));
  if (mutating && hook['reinvocationPolicy'] !== undefined && !REINVOCATION_POLICIES.includes(String(hook['reinvocationPolicy']))) {
    errs.push(fieldNotSupported(`${path}.reinvocationPolicy`, hook['reinvocationPolicy'], REINVOCATION_POLICIES));
  }
  return errs;
}

function validateConfiguration(obj: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list((obj as Json)['webhooks']).forEach((entry, i) => {
    const hook = rec(entry) ?? {};
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, path, mutating));
    errs.push(...validateReviewVersions(list(hook['admissionReviewVersions']), `${path}.admissionReviewVersions`));
    const name = typeof hook['name'] === 'string' ? hook['name'] : '';
    if (name !== '') {
      if (names.has(name)) errs.push(fieldDuplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

function webhookConfigurationOverride(mutating: boolean): ResourceOverride {
  return (generated) => ({
    ...generated,
    printerColumns: webhookConfigurationColumns,
    strategy: {
      ...generated.strategy,
      decode(obj, typed) {
        generated.strategy?.decode?.(obj, typed);
        setDefaults(obj, mutating);
      },
      validate: (obj, version) => [...(generated.strategy?.validate?.(obj, version) ?? []), ...validateConfiguration(obj, mutating)],
    },
  });
}

export const mutatingWebhookConfigurationOverride = webhookConfigurationOverride(true);
export const validatingWebhookConfigurationOverride = webhookConfigurationOverride(false);
