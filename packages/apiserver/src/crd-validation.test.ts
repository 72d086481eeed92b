/**
 * Validation of CustomResourceDefinitions over HTTP against a real etcd, with kube's texts:
 * names, scope, versions, structural schemas, printer columns, selectable fields, scale
 * paths, deprecation warnings, protected groups.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CRD_PATH, widgetCrd } from './crd-testing.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

void describe('CustomResourceDefinition validation', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ controllers: false });
  });
  after(async () => t.close());

  void describe('validation of the CRD (kube texts)', () => {
    const invalidWith = async (crd: Record<string, unknown>) => {
      const res = await t.request('POST', CRD_PATH, { body: crd });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json['reason'], 'Invalid');
      return String(res.json['message']);
    };
    const spec = (patch: Record<string, unknown>) => {
      const crd = widgetCrd({ metadata: { name: 'gadgets.example.com' } });
      const s = crd['spec'] as Record<string, unknown>;
      Object.assign(s, { names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' } }, patch);
      return crd;
    };

    void it('finalizers that are not a list are refused, not a 500 (the cleanup finalizer is added only to a list)', async () => {
      const crd = widgetCrd({ metadata: { name: 'widgets.example.com', finalizers: { a: 1 } } });
      const res = await t.request('POST', CRD_PATH, { body: crd });
      assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text}`);
      assert.match(String(res.json['message']), /metadata\.finalizers/);
    });
    void it('metadata.name must be <plural>.<group>', async () => {
      const message = await invalidWith(widgetCrd({ metadata: { name: 'widget.example.com' } }));
      assert.match(message, /metadata\.name: Invalid value: "widget\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/);
    });
    void it('exactly one storage version', async () => {
      const crd = spec({});
      const versions = (crd['spec'] as { versions: { storage: boolean }[] }).versions;
      versions[1]!.storage = true;
      assert.match(await invalidWith(crd), /spec\.versions: Invalid value: .*: must have exactly one version marked as storage version/);
    });
    void it('scope', async () => {
      assert.match(await invalidWith(spec({ scope: 'Global' })), /spec\.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"/);
    });
    void it('group with a dot', async () => {
      const crd = spec({ group: 'example' });
      (crd['metadata'] as Record<string, unknown>)['name'] = 'gadgets.example';
      assert.match(await invalidWith(crd), /spec\.group: Invalid value: "example": should be a domain with at least one dot/);
    });
    void it('names: kind and listKind differ, DNS-1035 plural', async () => {
      const message = await invalidWith(spec({ names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'Gadget' } }));
      assert.match(message, /spec\.names\.listKind: Invalid value: "Gadget": kind and listKind may not be the same/);
    });
    void it('structural schema: type required at every level, no additionalProperties with properties, metadata restricted', async () => {
      const schema = {
        type: 'object',
        properties: {
          metadata: { type: 'object', properties: { labels: { type: 'object' } } },
          spec: { properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' }, type: 'object' },
          status: { 'x-kubernetes-preserve-unknown-fields': false, type: 'object' },
          list: { type: 'array' },
          untyped: { description: 'no type' },
        },
      };
      const crd = spec({});
      for (const v of (crd['spec'] as { versions: { schema: unknown }[] }).versions) v.schema = { openAPIV3Schema: schema };
      const message = await invalidWith(crd);
      for (const expected of [
        'spec.validation.openAPIV3Schema.properties[untyped].type: Required value: must not be empty for specified object fields',
        'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
        'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
        'spec.validation.openAPIV3Schema.properties[status].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
        'spec.validation.openAPIV3Schema.properties[list].items: Required value: must be specified',
      ]) {
        assert.ok(message.includes(expected), `missing ${expected} in ${message}`);
      }
    });
    void it('protected groups need the api-approved.kubernetes.io annotation', async () => {
      const crd = widgetCrd({ metadata: { name: 'gadgets.things.k8s.io' } });
      const s = crd['spec'] as Record<string, unknown>;
      s['group'] = 'things.k8s.io';
      s['names'] = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
      assert.match(
        await invalidWith(crd),
        /metadata\.annotations\[api-approved\.kubernetes\.io\]: Required value: protected groups must have approval annotation "api-approved\.kubernetes\.io", see https:\/\/github\.com\/kubernetes\/enhancements\/pull\/1111/,
      );
      (crd['metadata'] as Record<string, unknown>)['annotations'] = { 'api-approved.kubernetes.io': 'nope' };
      assert.match(await invalidWith(crd), /with either a URL or a reason starting with "unapproved"/);
    });
    void it('schema required for served versions, type at the root', async () => {
      const crd = spec({});
      const versions = (crd['spec'] as { versions: Record<string, unknown>[] }).versions;
      delete versions[0]!['schema'];
      versions[1]!['schema'] = { openAPIV3Schema: { properties: {} } };
      const message = await invalidWith(crd);
      assert.match(message, /spec\.versions\[0\]\.schema\.openAPIV3Schema: Required value: because otherwise all fields are pruned/);
      assert.match(message, /spec\.versions\[1\]\.schema\.openAPIV3Schema\.type: Required value: must not be empty at the root/);
    });
    void it('printer columns, selectable fields, scale paths, deprecation warning', async () => {
      const crd = spec({});
      const v = (crd['spec'] as { versions: Record<string, unknown>[] }).versions[0]!;
      v['additionalPrinterColumns'] = [{ name: 'X', type: 'text', jsonPath: 'spec.x' }];
      v['selectableFields'] = [{ jsonPath: '.spec.tags' }, { jsonPath: '.metadata.name' }];
      v['subresources'] = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '.status.replicas' } };
      v['deprecationWarning'] = 'not deprecated';
      const message = await invalidWith(crd);
      for (const expected of [
        'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
        'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.x": must be a simple json path starting with .',
        'spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
        'spec.versions[0].deprecationWarning: Invalid value: "not deprecated": can only be set for deprecated versions',
      ]) {
        assert.ok(message.includes(expected), `missing ${expected} in ${message}`);
      }
    });
  });

});
