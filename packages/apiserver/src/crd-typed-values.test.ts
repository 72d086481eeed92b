/**
 * Custom resources decode unstructured, as in kube: their metadata must decode as ObjectMeta
 * (400), a number beyond the double range fails anywhere (400), integers are checked by
 * schema validation (422; `format: int32` sets no range, as in kube), and the replicas a
 * scale subresource reads must be int64s in [0, 2^31-1] on every write (422). The Scale
 * body decodes as autoscaling/v1 Scale. Texts checked against kube-apiserver 1.32.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEstablished, CRD_PATH, widgetCrd } from './crd-testing.js';
import { startTestServer, type TestServer } from './testing/fixture.js';

const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const widgetDecode = (detail: string) => `Widget in version "v1" cannot be handled as a Widget: ${detail}`;
const widget = (name: string, extra = '') => `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"${extra}}`;

void describe('typed values: custom resources and their scale subresource', () => {
  let t: TestServer;
  const send = async (method: string, path: string, raw: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await t.request(method, path, { raw, headers });
    return { status: res.status, message: res.json['message'] as string | undefined, json: res.json, text: res.text };
  };
  const expect = async (method: string, path: string, raw: string, status: number, message: string, headers?: Record<string, string>) => {
    const res = await send(method, path, raw, headers);
    assert.deepEqual({ status: res.status, message: res.message }, { status, message }, raw);
  };

  before(async () => {
    t = await startTestServer({ controllers: { garbageCollector: false } });
    await createEstablished(t, widgetCrd());
  });
  after(async () => t.close());

  void it('metadata decodes as ObjectMeta: paths below metadata, numbers as Go re-encodes them, sorted keys', async () => {
    await expect('POST', WIDGETS, `${widget('m', ',"generation":1e29')}}`, 400, widgetDecode('json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.generation of type int64'));
    // kube decodes metadata from a Go map: "generation" sorts before "labels".
    await expect('POST', WIDGETS, `${widget('m', ',"labels":{"a":1},"generation":1.5')}}`, 400, widgetDecode('json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64'));
    await expect('POST', WIDGETS, `${widget('m', ',"labels":{"a":1}')}}`, 400, widgetDecode('json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string'));
    await expect(
      'POST',
      WIDGETS,
      `${widget('m', ',"creationTimestamp":"yesterday"')}}`,
      400,
      widgetDecode('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
    );
    await expect(
      'POST',
      WIDGETS,
      `${widget('m', ',"ownerReferences":[{"controller":"x"}]')}}`,
      400,
      widgetDecode('json: cannot unmarshal string into Go struct field OwnerReference.ownerReferences.controller of type bool'),
    );
    assert.equal((await t.request('GET', `${WIDGETS}/m`)).status, 404);
  });

  void it('a number beyond the double range fails anywhere; integers no int64 holds are numbers for the schema', async () => {
    await expect('POST', WIDGETS, `${widget('n')},"spec":{"extra":{"deep":[1e400]}}}`, 400, widgetDecode('json: cannot unmarshal number Infinity into Go value of type float64'));
    await expect(
      'POST',
      WIDGETS,
      `${widget('n')},"spec":{"size":1e29}}`,
      422,
      'Widget.example.com "n" is invalid: spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"',
    );
    await expect(
      'POST',
      WIDGETS,
      `${widget('n')},"spec":{"size":9223372036854775808}}`,
      422,
      'Widget.example.com "n" is invalid: spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"',
    );
    const big = await send('POST', WIDGETS, `${widget('n')},"spec":{"size":9007199254740993}}`);
    assert.equal(big.status, 201, big.text);
    assert.match(big.text, /"size":9007199254740992\b/);
  });

  void it('format int32 sets no range on a custom resource (as in kube)', async () => {
    const crd = widgetCrd();
    const spec = crd['spec'] as Record<string, unknown>;
    const gauges = {
      ...crd,
      metadata: { name: 'gauges.example.com' },
      spec: {
        ...spec,
        names: { plural: 'gauges', singular: 'gauge', kind: 'Gauge' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { count: { type: 'integer', format: 'int32' } } } } } },
          },
        ],
      },
    };
    await createEstablished(t, gauges);
    const res = await send('POST', '/apis/example.com/v1/namespaces/default/gauges', '{"apiVersion":"example.com/v1","kind":"Gauge","metadata":{"name":"g"},"spec":{"count":2147483648}}');
    assert.equal(res.status, 201, res.text);
    assert.equal((await t.request('DELETE', `${CRD_PATH}/gauges.example.com`)).status, 200);
  });

  void it('scale paths: replicas must be int64s in [0, 2^31-1] on every write, through the main resource and /status', async () => {
    await expect('POST', WIDGETS, `${widget('r')},"spec":{"replicas":2147483648}}`, 422, 'Widget.example.com "r" is invalid: .spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647');
    await expect('POST', WIDGETS, `${widget('r')},"spec":{"replicas":-1}}`, 422, 'Widget.example.com "r" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer');
    await expect(
      'POST',
      WIDGETS,
      `${widget('r')},"spec":{"replicas":"x"}}`,
      422,
      'Widget.example.com "r" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", .spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64]',
    );
    assert.equal((await send('POST', WIDGETS, `${widget('r')},"spec":{"replicas":1}}`)).status, 201);
    await expect('PATCH', `${WIDGETS}/r/status`, '{"status":{"replicas":2147483648}}', 422, 'Widget.example.com "r" is invalid: .status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647', MERGE);
    const meta = await send('PATCH', `${WIDGETS}/r`, '{"metadata":{"generation":1e29}}', MERGE);
    assert.equal(meta.status, 422, meta.text);
    assert.match(meta.message!, /^ "" is invalid: patch: Invalid value: ".*\\"generation\\":1e\+29.*": json: cannot unmarshal number 1e\+29 into Go struct field ObjectMeta.generation of type int64$/s);
    const time = await send('PATCH', `${WIDGETS}/r`, '[{"op":"replace","path":"/metadata/creationTimestamp","value":"x"}]', JSON_PATCH);
    assert.equal(time.status, 422, time.text);
    assert.match(time.message!, /: parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"$/);
  });

  void it('CRDs themselves decode as kube\'s apiextensions types: openAPIV3Schema as JSONSchemaProps, conditions\' times, int32 columns', async () => {
    const crdDecode = (detail: string) => `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: ${detail}`;
    const variant = (mutate: (crd: Record<string, unknown>, version: Record<string, unknown>, spec: Record<string, unknown>) => void) => {
      const crd = widgetCrd({ metadata: { name: 'things.example.com' } });
      const spec = crd['spec'] as Record<string, unknown>;
      spec['names'] = { plural: 'things', singular: 'thing', kind: 'Thing' };
      const version = (spec['versions'] as Record<string, unknown>[])[0]!;
      spec['versions'] = [version];
      mutate(crd, version, ((version['schema'] as Record<string, unknown>)['openAPIV3Schema'] as Record<string, Record<string, Record<string, unknown>>>)['properties']!['spec']!);
      return JSON.stringify(crd);
    };
    const props = (spec: Record<string, unknown>) => spec['properties'] as Record<string, Record<string, unknown>>;
    await expect(
      'POST',
      CRD_PATH,
      variant((_c, _v, spec) => (props(spec)['color']!['maxLength'] = 1.5)),
      400,
      crdDecode('json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.properties.maxLength of type int64'),
    );
    await expect(
      'POST',
      CRD_PATH,
      variant((_c, _v, spec) => (props(spec)['size']!['minimum'] = 'x')),
      400,
      crdDecode('json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.properties.minimum of type float64'),
    );
    await expect('POST', CRD_PATH, variant((_c, _v, spec) => (props(spec)['extra']!['additionalProperties'] = 5)), 400, crdDecode('boolean or JSON schema expected'));
    await expect(
      'POST',
      CRD_PATH,
      variant((_c, version) => ((version['additionalPrinterColumns'] as Record<string, unknown>[])[0]!['priority'] = 2147483648)),
      400,
      crdDecode('json: cannot unmarshal number 2147483648 into Go struct field CustomResourceColumnDefinition.spec.versions.additionalPrinterColumns.priority of type int32'),
    );
    await expect(
      'POST',
      CRD_PATH,
      variant((_c, version) => (version['served'] = 'yes')),
      400,
      crdDecode('json: cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool'),
    );
    await expect(
      'POST',
      CRD_PATH,
      variant((crd) => (crd['status'] = { conditions: [{ type: 'Established', status: 'True', lastTransitionTime: 'x' }] })),
      400,
      crdDecode('parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'),
    );
    // kube's JSONSchemaPropsOrArray ignores anything but schemas: an array then has no items.
    const items = await send('POST', CRD_PATH, variant((_c, _v, spec) => (props(spec)['tags']!['items'] = 5)));
    assert.equal(items.status, 422, items.text);
    assert.match(items.message!, /openAPIV3Schema\.properties\[spec\]\.properties\[tags\]\.items: Required value: must be specified$/);
    assert.equal((await t.request('GET', `${CRD_PATH}/things.example.com`)).status, 404);
  });

  void it('the scale subresource: its body decodes as autoscaling/v1 Scale; the count is checked as the object', async () => {
    assert.equal((await send('POST', WIDGETS, `${widget('s')},"spec":{"replicas":1}}`)).status, 201);
    const scaleBody = (spec: string, meta = '') => `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s"${meta}},"spec":{${spec}}}`;
    const scaleDecode = (detail: string) => `Scale in version "v1" cannot be handled as a Scale: ${detail}`;
    await expect('PUT', `${WIDGETS}/s/scale`, scaleBody('"replicas":2147483648'), 400, scaleDecode('json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32'));
    await expect('PUT', `${WIDGETS}/s/scale`, scaleBody('"replicas":1.5'), 400, scaleDecode('json: cannot unmarshal number 1.5 into Go struct field ScaleSpec.spec.replicas of type int32'));
    await expect('PUT', `${WIDGETS}/s/scale`, scaleBody('"replicas":2', ',"generation":1e29'), 400, scaleDecode('json: cannot unmarshal number 1e+29 into Go struct field ObjectMeta.metadata.generation of type int64'));
    await expect('PUT', `${WIDGETS}/s/scale`, scaleBody('"replicas":-1'), 422, 'Widget.example.com "s" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer');
    const patched = await send('PATCH', `${WIDGETS}/s/scale`, '{"spec":{"replicas":2147483648}}', MERGE);
    assert.equal(patched.status, 422, patched.text);
    assert.match(patched.message!, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"autoscaling\/v1\\",\\"kind\\":\\"Scale\\",.*": json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32$/s);
    const ok = await send('PUT', `${WIDGETS}/s/scale`, scaleBody('"replicas":2147483647'));
    assert.equal(ok.status, 200, ok.text);
    const stored = await t.request('GET', `${WIDGETS}/s`);
    assert.equal((stored.json['spec'] as Record<string, unknown>)['replicas'], 2147483647);
  });
});
