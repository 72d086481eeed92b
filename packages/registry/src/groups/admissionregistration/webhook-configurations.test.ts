/** Webhook configurations: kube's v1 defaults and validation texts (taken from kube-apiserver 1.32.13). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Registry } from '../../registry.js';
import { rejectsWithStatus, resource, startFixture, type Fixture } from '../../testing/index.js';

const configuration = (kind: string, webhook: Record<string, unknown>) => ({
  apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: `c${Math.random().toString(36).slice(2, 8)}` }, webhooks: [webhook],
});
const valid = {
  name: 'a.b.c', clientConfig: { service: { namespace: 'n', name: 's' } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
};

void describe('webhook configurations', () => {
  let fixture: Fixture;
  let registry: Registry;
  before(async () => {
    fixture = await startFixture();
    registry = await fixture.newRegistry();
  });
  after(async () => {
    await fixture.close();
  });

  void it('stores kube\'s defaults', async () => {
    const mutating = resource(registry, 'mutatingwebhookconfigurations', 'admissionregistration.k8s.io');
    const created = await mutating.creater.create({ namespace: '' }, configuration('MutatingWebhookConfiguration', valid), {});
    assert.deepEqual((created as unknown as { webhooks: unknown[] }).webhooks, [{
      ...valid,
      clientConfig: { service: { namespace: 'n', name: 's', port: 443 } },
      rules: [{ ...valid.rules[0], scope: '*' }],
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never',
    }]);
  });

  void it('refuses what kube refuses, with its texts', async () => {
    const validating = resource(registry, 'validatingwebhookconfigurations', 'admissionregistration.k8s.io');
    const refused = async (change: Record<string, unknown>, message: string) => {
      const body = configuration('ValidatingWebhookConfiguration', { ...valid, ...change });
      const status = await rejectsWithStatus(validating.creater.create({ namespace: '' }, body, {}), { code: 422, reason: 'Invalid' });
      assert.equal(status.message, `ValidatingWebhookConfiguration.admissionregistration.k8s.io "${body.metadata.name}" is invalid: ${message}`);
    };
    await refused({ name: 'nodot' }, 'webhooks[0].name: Invalid value: "nodot": should be a domain with at least three segments separated by dots');
    await refused({ sideEffects: 'Some' }, 'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"');
    await refused({ timeoutSeconds: 31 }, 'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds');
    await refused({ clientConfig: { url: 'http://x/y' } }, "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]");
    await refused({ admissionReviewVersions: ['v2'] }, 'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1');
    await refused({ rules: [{ operations: ['GET', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      '[webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"GET", "*"}: if \'*\' is present, must not specify other operations, webhooks[0].rules[0].operations[0]: Unsupported value: "GET": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"]');
  });
});
