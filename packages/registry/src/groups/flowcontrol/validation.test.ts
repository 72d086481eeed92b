/**
 * kube 1.32's FlowSchema and PriorityLevelConfiguration validation: every bootstrap object
 * passes, and each broken field gets kube's field path, type and message.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { flowcontrolBootstrap } from '@kapi/catalog';
import type { FieldError, KubeObject } from '@kapi/machinery';
import { validateFlowSchema, validatePriorityLevel, validateStatusUpdate } from './validation.js';

const obj = (name: string, spec: unknown, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name }, spec, ...extra }) as unknown as KubeObject;
const lines = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}: ${e.message}`);
const rule = { subjects: [{ kind: 'Group', group: { name: 'g' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] };
const fs = (name: string, spec: Record<string, unknown>) => obj(name, { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 500, rules: [rule], ...spec });
const limited = (limitedSpec: Record<string, unknown>) => ({ type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Reject' }, ...limitedSpec } });

void describe('flowcontrol validation', () => {
  void it('passes every bootstrap object kapi writes', () => {
    const config = flowcontrolBootstrap();
    for (const o of [...config.mandatoryFlowSchemas, ...config.suggestedFlowSchemas]) assert.deepEqual(validateFlowSchema(o as unknown as KubeObject), [], JSON.stringify(o['metadata']));
    for (const o of [...config.mandatoryPriorityLevelConfigurations, ...config.suggestedPriorityLevelConfigurations]) {
      assert.deepEqual(validatePriorityLevel(o as unknown as KubeObject, 'v1'), [], JSON.stringify(o['metadata']));
    }
  });

  void it('ties the Exempt type to the name exempt', () => {
    assert.deepEqual(lines(validatePriorityLevel(obj('mine', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }))), [
      `FieldValueInvalid spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`,
    ]);
  });

  void it('checks a limited level: shares, percents, response and queuing', () => {
    assert.deepEqual(lines(validatePriorityLevel(obj('a', limited({ nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -2, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: 0 } } })))), [
      'FieldValueInvalid spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
      'FieldValueInvalid spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: 0: must be positive',
      'FieldValueInvalid spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)',
      'FieldValueInvalid spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
      'FieldValueInvalid spec.limited.borrowingLimitPercent: Invalid value: -2: if specified, must be a non-negative integer',
    ]);
    assert.deepEqual(lines(validatePriorityLevel(obj('a', limited({ limitResponse: { type: 'Queue', queuing: { queues: 10_000_000, handSize: 3, queueLengthLimit: 5 } } })))), [
      'FieldValueInvalid spec.limited.limitResponse.queuing.handSize: Invalid value: 3: required entropy bits of deckSize 10000000 and handSize 3 should not be greater than 60',
    ]);
    assert.deepEqual(lines(validatePriorityLevel(obj('a', limited({ limitResponse: { type: 'Reject', queuing: { queues: 1 } } })))), [
      'FieldValueForbidden spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
    ]);
    assert.deepEqual(lines(validatePriorityLevel(obj('a', { type: 'Limited', exempt: {} }))), [
      'FieldValueForbidden spec.exempt: Forbidden: must be nil if the type is Limited',
      'FieldValueRequired spec.limited: Required value: must not be empty when type is Limited',
    ]);
    assert.deepEqual(lines(validatePriorityLevel(obj('a', { type: 'Other' }))), ['FieldValueNotSupported spec.type: Unsupported value: "Other": supported values: "Exempt", "Limited"']);
  });

  void it('fixes the mandatory levels (the exempt level but its spec.exempt)', () => {
    const catchAll = validatePriorityLevel(obj('catch-all', limited({ nominalConcurrencyShares: 6 })));
    assert.deepEqual(catchAll.map((e) => [e.field, e.message.replace(/^.*: /, '')]), [['spec', "spec of 'catch-all' must equal the fixed value"]]);
    assert.match(catchAll[0]!.message, /^Invalid value: flowcontrol\.PriorityLevelConfigurationSpec\{Type:"Limited", Limited:\(\*flowcontrol\.LimitedPriorityLevelConfiguration\)\(0x[0-9a-f]+\), Exempt:\(\*flowcontrol\.ExemptPriorityLevelConfiguration\)\(nil\)\}: /);
    assert.deepEqual(validatePriorityLevel(obj('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 7, lendablePercent: 10 } })), []);
  });

  void it('forbids the v1beta3 zero-shares annotation outside v1beta3', () => {
    const o = obj('a', limited({}), { metadata: { name: 'a', annotations: { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' } } });
    assert.deepEqual(lines(validatePriorityLevel(o, 'v1')), ["FieldValueForbidden metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"]);
    assert.deepEqual(validatePriorityLevel(o, 'v1beta3'), []);
  });

  void it('checks a FlowSchema: precedence, distinguisher, level name, rules and subjects', () => {
    assert.deepEqual(lines(validateFlowSchema(fs('a', { matchingPrecedence: 1, distinguisherMethod: { type: 'ByFoo' }, priorityLevelConfiguration: { name: 'Bad_Name' } }))), [
      "FieldValueInvalid spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
      'FieldValueNotSupported spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}: supported values: "ByNamespace", "ByUser"',
      `FieldValueInvalid spec.priorityLevelConfiguration.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(lines(validateFlowSchema(fs('a', { matchingPrecedence: 10001, priorityLevelConfiguration: {} }))), [
      'FieldValueInvalid spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
      'FieldValueRequired spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    ]);
    const rules = [
      { subjects: [] },
      {
        subjects: [{ kind: 'User', user: { name: '' }, group: { name: 'g' } }, { kind: 'ServiceAccount', serviceAccount: { name: '' } }, { kind: 'Robot' }],
        resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*', 'apps'], resources: [], namespaces: ['*', 'x'] }, { verbs: ['fly'], apiGroups: [''], resources: ['pods'], namespaces: ['Bad'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['healthz', '/a//b', '/a*', '/a b'] }],
      },
    ];
    assert.deepEqual(lines(validateFlowSchema(fs('a', { rules }))), [
      'FieldValueRequired spec.rules[0].subjects: Required value: subjects must contain at least one value',
      'FieldValueRequired spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
      'FieldValueRequired spec.rules[1].subjects[0].user.name: Required value',
      "FieldValueForbidden spec.rules[1].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
      'FieldValueRequired spec.rules[1].subjects[1].serviceAccount.name: Required value',
      'FieldValueRequired spec.rules[1].subjects[1].serviceAccount.namespace: Required value: must specify namespace for service account',
      'FieldValueNotSupported spec.rules[1].subjects[2].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
      `FieldValueInvalid spec.rules[1].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if '*' is present, must not specify other verbs`,
      `FieldValueInvalid spec.rules[1].resourceRules[0].apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other api groups`,
      'FieldValueRequired spec.rules[1].resourceRules[0].resources: Required value: resource rules must supply at least one resource',
      `FieldValueInvalid spec.rules[1].resourceRules[0].namespaces: Invalid value: []string{"*", "x"}: if '*' is present, must not specify other namespaces`,
      'FieldValueNotSupported spec.rules[1].resourceRules[1].verbs: Unsupported value: []string{"fly"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      `FieldValueInvalid spec.rules[1].resourceRules[1].namespaces[0]: Invalid value: "Bad": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'FieldValueInvalid spec.rules[1].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash',
      'FieldValueInvalid spec.rules[1].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a//b": must not contain double slash',
      'FieldValueInvalid spec.rules[1].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "/a*": wildcard can only do suffix matching',
      'FieldValueInvalid spec.rules[1].nonResourceRules[0].nonResourceURLs[3]: Invalid value: "/a b": must not contain white-space',
    ]);
  });

  void it('fixes the mandatory FlowSchemas', () => {
    const exempt = flowcontrolBootstrap().mandatoryFlowSchemas.find((o) => (o['metadata'] as { name: string }).name === 'exempt')!;
    const spec = { ...(exempt['spec'] as Record<string, unknown>), matchingPrecedence: 2 };
    const errs = validateFlowSchema(obj('exempt', spec));
    assert.deepEqual(errs.map((e) => [e.type, e.field]), [['FieldValueInvalid', 'spec']]);
    assert.match(errs[0]!.message, /^Invalid value: flowcontrol\.FlowSchemaSpec\{PriorityLevelConfiguration:flowcontrol\.PriorityLevelConfigurationReference\{Name:"exempt"\}, MatchingPrecedence:2, .*: spec of 'exempt' must equal the fixed value$/);
  });

  void it('checks the conditions of a status write only', () => {
    const o = obj('a', {}, { status: { conditions: [{ type: 'Dangling' }, { type: 'Dangling' }, { type: '' }] } });
    assert.deepEqual(lines(validateStatusUpdate('status', o)), [
      'FieldValueDuplicate status.conditions[1].type: Duplicate value: "Dangling"',
      'FieldValueRequired status.conditions[2].type: Required value: must not be empty',
    ]);
  });
});
