import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '@kapi/machinery';
import { refName } from '@kapi/machinery';
import { builtinDefinitions, definitions } from './index.js';

function refs(schema: JSONSchemaProps, out: string[] = []): string[] {
  if (schema.$ref !== undefined) out.push(schema.$ref);
  for (const child of [...Object.values(schema.properties ?? {}), ...(schema.allOf ?? []), ...(schema.items ? [schema.items] : [])]) refs(child, out);
  if (typeof schema.additionalProperties === 'object') refs(schema.additionalProperties, out);
  return out;
}

void describe('built-in definitions', () => {
  void it('every $ref points at a component in the definitions map', () => {
    for (const [name, schema] of Object.entries(definitions)) {
      for (const ref of refs(schema)) {
        assert.ok(ref.startsWith('#/components/schemas/'), `${name}: ${ref}`);
        assert.ok(definitions[refName(ref)], `${name} refers to missing ${ref}`);
      }
    }
  });

  void it('each resource schema is published under kube\'s name with its GVK', () => {
    const expected: Record<string, string> = {
      '/namespaces/v1': 'io.k8s.api.core.v1.Namespace',
      '/configmaps/v1': 'io.k8s.api.core.v1.ConfigMap',
      '/secrets/v1': 'io.k8s.api.core.v1.Secret',
      '/serviceaccounts/v1': 'io.k8s.api.core.v1.ServiceAccount',
      '/events/v1': 'io.k8s.api.core.v1.Event',
      '/pods/v1': 'io.k8s.api.core.v1.Pod',
      'apps/deployments/v1': 'io.k8s.api.apps.v1.Deployment',
      'events.k8s.io/events/v1': 'io.k8s.api.events.v1.Event',
      'events.k8s.io/events/v1beta1': 'io.k8s.api.events.v1beta1.Event',
      'coordination.k8s.io/leases/v1': 'io.k8s.api.coordination.v1.Lease',
      'coordination.k8s.io/leases/v1beta1': 'io.k8s.api.coordination.v1beta1.Lease',
      'apiregistration.k8s.io/apiservices/v1': 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService',
    };
    const seen = new Set<string>();
    for (const def of builtinDefinitions) {
      for (const version of def.versions) {
        const key = `${def.group}/${def.plural}/${version.name}`;
        seen.add(key);
        const gvk = { group: def.group, kind: def.kind, version: version.name };
        assert.ok(version.schema['x-kubernetes-group-version-kind']?.some((g) => JSON.stringify(g) === JSON.stringify(gvk)), `${key}: ${JSON.stringify(gvk)}`);
        if (expected[key] !== undefined) {
          assert.equal(definitions[expected[key]], version.schema, key);
          assert.ok(definitions[`${expected[key]}List`], `${key} ${def.kind}List`);
        }
      }
    }
    assert.deepEqual(Object.keys(expected).filter((key) => !seen.has(key)), []);
    assert.ok(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.properties?.['managedFields']);
  });
});
