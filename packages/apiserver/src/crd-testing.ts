/** Shared CRD fixtures for the apiserver's CRD tests (not a test file itself). */
import type { TestServer } from './testing/fixture.js';
import { eventually } from './testing/fixture.js';

export const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A namespaced `widgets.example.com` with v1 (storage) and v1beta1 (deprecated), status and scale, columns and a selectable field. */
export function widgetCrd(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          color: { type: 'string', default: 'blue' },
          size: { type: 'integer', minimum: 0 },
          replicas: { type: 'integer' },
          port: { 'x-kubernetes-int-or-string': true },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, phase: { type: 'string' } } },
    },
  };
  const version = (name: string, storage: boolean, extra: Record<string, unknown> = {}) => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: schema },
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    additionalPrinterColumns: [
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    selectableFields: [{ jsonPath: '.spec.color' }],
    ...extra,
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [version('v1', true), version('v1beta1', false, { deprecated: true })],
    },
    ...overrides,
  };
}

/** Creates `crd` and waits until its first served version answers a list. */
export async function createEstablished(t: TestServer, crd: Record<string, unknown>): Promise<void> {
  const res = await t.request('POST', CRD_PATH, { body: crd });
  if (res.status !== 201) throw new Error(`create CRD: ${res.status} ${res.text}`);
  const spec = crd['spec'] as { group: string; names: { plural: string }; versions: { name: string }[]; scope: string };
  const ns = spec.scope === 'Namespaced' ? '/namespaces/default' : '';
  await eventually('the CRD to be served', async () => (await t.request('GET', `/apis/${spec.group}/${spec.versions[0]!.name}${ns}/${spec.names.plural}`)).status === 200, 10_000);
}
