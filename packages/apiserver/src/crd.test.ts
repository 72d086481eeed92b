import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CRD_PATH, createEstablished, widgetCrd } from './crd-testing.js';
import { uniquePrefix } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { startApiServer } from './main.js';
import { eventually, startTestServer, type TestServer } from './testing/fixture.js';

const W = '/apis/example.com/v1/namespaces/default/widgets';
const W_BETA = '/apis/example.com/v1beta1/namespaces/default/widgets';

function widget(name: string, spec: Record<string, unknown> = {}, apiVersion = 'example.com/v1'): Record<string, unknown> {
  return { apiVersion, kind: 'Widget', metadata: { name }, spec };
}

void describe('CustomResourceDefinitions', () => {
  let t: TestServer;
  const prefix = uniquePrefix();
  before(async () => {
    t = await startTestServer({ controllers: false, etcdPrefix: prefix, etcdCountMetricPollPeriodMs: 200 });
    await createEstablished(t, widgetCrd());
  });
  after(async () => t.close());

  void describe('status and serving', () => {
    void it('sets NamesAccepted, Established, acceptedNames and storedVersions; no finalizer before a DELETE (issue 23)', async () => {
      const res = await t.request('GET', `${CRD_PATH}/widgets.example.com`);
      assert.equal(res.status, 200);
      const status = res.json['status'] as { conditions: { type: string; status: string; reason: string }[]; acceptedNames: Record<string, unknown>; storedVersions: string[] };
      const byType = Object.fromEntries(status.conditions.map((c) => [c.type, c]));
      assert.equal(byType['NamesAccepted']?.status, 'True');
      assert.equal(byType['NamesAccepted']?.reason, 'NoConflicts');
      assert.equal(byType['Established']?.status, 'True');
      assert.equal(byType['Established']?.reason, 'InitialNamesAccepted');
      assert.equal(status.acceptedNames['kind'], 'Widget');
      assert.equal(status.acceptedNames['listKind'], 'WidgetList');
      assert.deepEqual(status.storedVersions, ['v1']);
      // kube adds the cleanup finalizer on the first DELETE, not on create.
      assert.equal((res.json['metadata'] as Record<string, unknown>)['finalizers'], undefined);
    });
    void it('the create answer carries kube\'s initial status: conditions null, the storage version stored, no names accepted yet (issue 23)', async () => {
      const crd = (plural: string, kind: string) => widgetCrd({ metadata: { name: `${plural}.example.com` }, spec: { ...(widgetCrd()['spec'] as object), names: { plural, kind } } });
      const list = await t.request('GET', CRD_PATH);
      const watch = await fetch(`${t.url}${CRD_PATH}?watch=true&resourceVersion=${String((list.json['metadata'] as Record<string, unknown>)['resourceVersion'])}&timeoutSeconds=5`);
      const created = await t.request('POST', CRD_PATH, { body: crd('initials', 'Initial') });
      assert.equal(created.status, 201, created.text);
      // In Go's order: conditions is a nil list without omitempty.
      assert.equal(JSON.stringify(created.json['status']), JSON.stringify({ conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] }));
      assert.equal((created.json['metadata'] as Record<string, unknown>)['finalizers'], undefined);
      // The watch's ADDED event carries the same status (the CRD controller's write follows as MODIFIED).
      const events = (await watch.text()).trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string }; status: unknown } });
      const added = events.find((e) => e.type === 'ADDED' && e.object.metadata.name === 'initials.example.com');
      assert.deepEqual(added?.object.status, created.json['status']);
      const asYaml = await fetch(`${t.url}${CRD_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/yaml' }, body: JSON.stringify(crd('yamls', 'Yaml')) });
      const yaml = await asYaml.text();
      assert.equal(asYaml.status, 201, yaml);
      assert.equal(yaml.slice(yaml.indexOf('\nstatus:')), '\nstatus:\n  acceptedNames:\n    kind: ""\n    plural: ""\n  conditions: null\n  storedVersions:\n  - v1\n');
      for (const name of ['initials.example.com', 'yamls.example.com']) {
        const deleted = await t.request('DELETE', `${CRD_PATH}/${name}`);
        assert.equal(deleted.status, 200, deleted.text);
      }
    });
    void it('a server started later serves the stored CRDs as soon as it has started', async () => {
      const late = await startApiServer({ etcdServers: t.etcd.endpoints, etcdPrefix: prefix, securePort: null, insecurePort: 0, logger: silentLogger, controllers: false });
      try {
        const res = await fetch(`${late.insecureUrl!}${W}`);
        assert.equal(res.status, 200, await res.text());
      } finally {
        await late.close();
      }
    });
    void it('discovery lists the resource with short names, categories and subresources', async () => {
      const res = await t.request('GET', '/apis/example.com/v1');
      assert.equal(res.status, 200);
      const resources = res.json['resources'] as { name: string; shortNames?: string[]; categories?: string[]; kind: string }[];
      const main = resources.find((r) => r.name === 'widgets');
      assert.deepEqual(main?.shortNames, ['wd']);
      assert.deepEqual(main?.categories, ['all']);
      assert.ok(resources.some((r) => r.name === 'widgets/status'));
      assert.ok(resources.some((r) => r.name === 'widgets/scale'));
    });
    void it('readyz lists the CRD sync hook and a watch cache check per custom resource', async () => {
      const res = await t.request('GET', '/readyz?verbose');
      assert.equal(res.status, 200, res.text);
      assert.match(res.text, /\[\+\]poststarthook\/crd-informer-synced ok/);
      assert.match(res.text, /\[\+\]watch-cache\/customresourcedefinitions\.apiextensions\.k8s\.io ok/);
      assert.match(res.text, /\[\+\]watch-cache\/widgets\.example\.com ok/);
    });
    void it('aggregated discovery (apidiscovery.k8s.io/v2) lists the group with both versions', async () => {
      const res = await t.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
      assert.equal(res.status, 200, res.text);
      const group = (res.json['items'] as { metadata: { name: string }; versions: { version: string; resources: { resource: string; responseKind: { kind: string } }[] }[] }[]).find((g) => g.metadata.name === 'example.com');
      assert.deepEqual(group?.versions.map((v) => v.version), ['v1', 'v1beta1']);
      assert.equal(group?.versions[0]?.resources.find((r) => r.resource === 'widgets')?.responseKind.kind, 'Widget');
    });
    void it('a CRD whose kind another CRD of the group holds is not accepted and not served', async () => {
      const crd = widgetCrd({ metadata: { name: 'sprockets.example.com' } });
      (crd['spec'] as Record<string, unknown>)['names'] = { plural: 'sprockets', singular: 'sprocket', kind: 'Widget', listKind: 'SprocketList' };
      assert.equal((await t.request('POST', CRD_PATH, { body: crd })).status, 201);
      await eventually('NamesAccepted=False', async () => {
        const got = await t.request('GET', `${CRD_PATH}/sprockets.example.com`);
        const conditions = ((got.json['status'] as Record<string, unknown> | undefined)?.['conditions'] ?? []) as { type: string; status: string; reason: string; message: string }[];
        const names = conditions.find((c) => c.type === 'NamesAccepted');
        const established = conditions.find((c) => c.type === 'Established');
        return names?.status === 'False' && names.reason === 'KindConflict' && names.message === '"Widget" is already in use' && established?.status === 'False';
      });
      assert.equal((await t.request('GET', '/apis/example.com/v1/namespaces/default/sprockets')).status, 404);
      assert.equal((await t.request('DELETE', `${CRD_PATH}/sprockets.example.com`)).status, 200);
      await eventually('the refused CRD gone', async () => (await t.request('GET', `${CRD_PATH}/sprockets.example.com`)).status === 404);
    });
    void it('a CRD cannot take over a built-in resource: not accepted, the built-in keeps being served', async () => {
      const crd = widgetCrd({ metadata: { name: 'leases.coordination.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, test' } } });
      const s = crd['spec'] as Record<string, unknown>;
      s['group'] = 'coordination.k8s.io';
      s['names'] = { plural: 'leases', singular: 'lease', kind: 'Lease' };
      assert.equal((await t.request('POST', CRD_PATH, { body: crd })).status, 201);
      await eventually('NamesAccepted=False', async () => {
        const got = await t.request('GET', `${CRD_PATH}/leases.coordination.k8s.io`);
        const conditions = ((got.json['status'] as Record<string, unknown> | undefined)?.['conditions'] ?? []) as { type: string; status: string; reason: string }[];
        return conditions.some((c) => c.type === 'NamesAccepted' && c.status === 'False' && c.reason === 'PluralConflict');
      });
      const lease = await t.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { body: { metadata: { name: 'still-builtin' }, spec: { holderIdentity: 'x' } } });
      assert.equal(lease.status, 201, lease.text);
      assert.equal((await t.request('DELETE', `${CRD_PATH}/leases.coordination.k8s.io`)).status, 200);
      await eventually('the CRD gone', async () => (await t.request('GET', `${CRD_PATH}/leases.coordination.k8s.io`)).status === 404);
      assert.equal((await t.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/still-builtin')).status, 200);
    });
    void it('OpenAPI v3 has the group-version with the schema tagged by GVK', async () => {
      const index = await t.request('GET', '/openapi/v3');
      assert.ok(Object.keys(index.json['paths'] as object).includes('apis/example.com/v1'));
      const doc = await t.request('GET', '/openapi/v3/apis/example.com/v1');
      const schemas = (doc.json['components'] as { schemas: Record<string, Record<string, unknown>> }).schemas;
      const widgetSchema = schemas['com.example.v1.Widget'];
      assert.ok(widgetSchema !== undefined, Object.keys(schemas).join(','));
      assert.deepEqual(widgetSchema['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
      assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'] !== undefined);
      const crdDoc = await t.request('GET', '/openapi/v3/apis/apiextensions.k8s.io/v1');
      const crdSchemas = Object.keys((crdDoc.json['components'] as { schemas: Record<string, unknown> }).schemas);
      assert.ok(crdSchemas.includes('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'), crdSchemas.join(','));
      assert.ok(crdSchemas.includes('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList'));
    });
  });

  void describe('custom resources', () => {
    void it('create applies defaults, prunes unknown fields, keeps preserved ones, sets generation', async () => {
      const res = await t.request('POST', `${W}?fieldValidation=Ignore`, {
        body: widget('w1', { size: 3, unknown: 1, extra: { anything: { goes: true } }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } }),
      });
      assert.equal(res.status, 201, res.text);
      const spec = res.json['spec'] as Record<string, unknown>;
      assert.equal(spec['color'], 'blue');
      assert.equal(spec['unknown'], undefined);
      assert.deepEqual(spec['extra'], { anything: { goes: true } });
      assert.equal((res.json['metadata'] as Record<string, unknown>)['generation'], 1);
    });
    void it('nulls: dropped where not nullable, defaulted where a default exists', async () => {
      const res = await t.request('POST', W, { body: widget('nulls', { size: null, color: null, replicas: 2 }) });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.json['spec'], { color: 'blue', replicas: 2 });
    });
    void it('strict field validation reports unknown fields', async () => {
      const res = await t.request('POST', `${W}?fieldValidation=Strict`, { body: widget('w-strict', { nope: 1 }) });
      assert.equal(res.status, 400, res.text);
      assert.match(String(res.json['message']), /strict decoding error: unknown field "spec\.nope"/);
    });
    void it('schema validation: types, minimum, int-or-string, list-type set/map, embedded resource', async () => {
      const res = await t.request('POST', W, {
        body: widget('bad', { size: -1, color: 5, port: true, tags: ['a', 'a'], ports: [{ name: 'x', port: 1 }, { name: 'x', port: 2 }], template: { spec: {} } }),
      });
      assert.equal(res.status, 422, res.text);
      const message = String(res.json['message']);
      assert.match(message, /^Widget\.example\.com "bad" is invalid: /);
      for (const expected of [
        'spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0',
        'spec.color: Invalid value: "integer": spec.color in body must be of type string: "integer"',
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        'spec.tags[1]: Duplicate value: "a"',
        'spec.ports[1]: Duplicate value: {"name":"x"}',
        'spec.template.kind: Required value: must not be empty',
      ]) {
        assert.ok(message.includes(expected), `missing ${expected} in ${message}`);
      }
      const ok = await t.request('POST', W, { body: widget('port-string', { port: 'http' }) });
      assert.equal(ok.status, 201, ok.text);
    });
    void it('value validations: anyOf, oneOf, not and string formats (ajv) with kube-openapi texts', async () => {
      const crd = widgetCrd({ metadata: { name: 'checks.example.com' } });
      const spec = crd['spec'] as { names: unknown; versions: Record<string, unknown>[] };
      spec.names = { plural: 'checks', singular: 'check', kind: 'Check' };
      spec.versions = [spec.versions[0]!];
      spec.versions[0]!['additionalPrinterColumns'] = [];
      spec.versions[0]!['selectableFields'] = [];
      spec.versions[0]!['schema'] = {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                at: { type: 'string', format: 'date-time' },
                ip: { type: 'string', format: 'ipv4' },
                a: { type: 'string' },
                b: { type: 'string' },
                c: { type: 'integer', not: { enum: [13] } },
              },
              oneOf: [{ required: ['a'] }, { required: ['b'] }],
              anyOf: [{ required: ['at'] }, { required: ['ip'] }],
            },
          },
        },
      };
      await createEstablished(t, crd);
      const C = '/apis/example.com/v1/namespaces/default/checks';
      const ok = await t.request('POST', C, { body: { apiVersion: 'example.com/v1', kind: 'Check', metadata: { name: 'ok' }, spec: { at: '2024-05-01T10:00:00Z', a: 'x', c: 1 } } });
      assert.equal(ok.status, 201, ok.text);
      const bad = await t.request('POST', C, { body: { apiVersion: 'example.com/v1', kind: 'Check', metadata: { name: 'bad' }, spec: { ip: '999.1.1.1', a: 'x', b: 'y', c: 13 } } });
      assert.equal(bad.status, 422, bad.text);
      const message = String(bad.json['message']);
      for (const expected of [
        'spec.ip: Invalid value: "999.1.1.1": spec.ip in body must be of type ipv4: "999.1.1.1"',
        'spec: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives',
        'spec.c: Invalid value: "": "spec.c" must not validate the schema (not)',
      ]) {
        assert.ok(message.includes(expected), `missing ${expected} in ${message}`);
      }
      const none = await t.request('POST', C, { body: { apiVersion: 'example.com/v1', kind: 'Check', metadata: { name: 'none' }, spec: { a: 'x', at: 'yesterday' } } });
      assert.equal(none.status, 422, none.text);
      assert.match(String(none.json['message']), /spec\.at in body must be of type date-time: "yesterday"/);
      const neither = await t.request('POST', C, { body: { apiVersion: 'example.com/v1', kind: 'Check', metadata: { name: 'neither' }, spec: { a: 'x' } } });
      assert.match(String(neither.json['message']), /spec: Invalid value: "": "spec" must validate at least one schema \(anyOf\)/);
    });
    void it('names are DNS-1123 subdomains, as kube-apiserver 1.32 validates them (issue 23)', async () => {
      assert.equal((await t.request('POST', W, { body: widget('has.dots-1') })).status, 201);
      for (const name of ['W_10', 'Has.Caps', 'a%b']) {
        const res = await t.request('POST', W, { body: widget(name) });
        assert.equal(res.status, 422, name);
        assert.equal(
          res.json['message'],
          `Widget.example.com "${name}" is invalid: metadata.name: Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        );
      }
    });
    void it('another kind in the body is the validator\'s 422, as kube-apiserver 1.32 answers (issue 23)', async () => {
      const res = await t.request('POST', W, { body: { ...widget('gadget'), kind: 'Gadget' } });
      assert.equal(res.status, 422);
      assert.equal(res.json['message'], 'Gadget.example.com "gadget" is invalid: kind: Invalid value: "Gadget": must be Widget');
    });
    void it('reads in the other version (conversion None: only apiVersion changes)', async () => {
      await t.request('POST', W_BETA, { body: widget('from-beta', { size: 7 }, 'example.com/v1beta1') });
      const asV1 = await t.request('GET', `${W}/from-beta`);
      assert.equal(asV1.status, 200);
      assert.equal(asV1.json['apiVersion'], 'example.com/v1');
      assert.equal((asV1.json['spec'] as Record<string, unknown>)['size'], 7);
      const asBeta = await t.request('GET', `${W_BETA}/w1`);
      assert.equal(asBeta.json['apiVersion'], 'example.com/v1beta1');
    });
    void it('deprecated version: every response carries the CRD default warning', async () => {
      const res = await t.request('GET', `${W_BETA}/w1`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('warning'), '299 - "example.com/v1beta1 Widget is deprecated"');
      assert.equal((await t.request('GET', `${W}/w1`)).headers.get('warning'), null);
    });
    void it('update bumps generation only for spec changes; main resource ignores status', async () => {
      const current = (await t.request('GET', `${W}/w1`)).json;
      const changed = { ...current, spec: { ...(current['spec'] as object), size: 4 }, status: { phase: 'Ignored' } };
      const res = await t.request('PUT', `${W}/w1`, { body: changed });
      assert.equal(res.status, 200, res.text);
      assert.equal((res.json['metadata'] as Record<string, unknown>)['generation'], 2);
      assert.equal(res.json['status'], undefined);
      const unconditional = { ...res.json, metadata: { ...(res.json['metadata'] as object), resourceVersion: undefined } };
      const refused = await t.request('PUT', `${W}/w1`, { body: unconditional });
      assert.equal(refused.status, 422, refused.text);
    });
    void it('status subresource updates status only, without a generation bump', async () => {
      const current = (await t.request('GET', `${W}/w1`)).json;
      const res = await t.request('PUT', `${W}/w1/status`, { body: { ...current, spec: { size: 99 }, status: { phase: 'Running', replicas: 2, selector: 'app=w' } } });
      assert.equal(res.status, 200, res.text);
      assert.equal((res.json['status'] as Record<string, unknown>)['phase'], 'Running');
      assert.equal((res.json['spec'] as Record<string, unknown>)['size'], 4);
      assert.equal((res.json['metadata'] as Record<string, unknown>)['generation'], 2);
    });
    void it('scale subresource: GET, PUT and PATCH an autoscaling/v1 Scale', async () => {
      const scale = await t.request('GET', `${W}/w1/scale`);
      assert.equal(scale.status, 200, scale.text);
      assert.equal(scale.json['kind'], 'Scale');
      assert.equal(scale.json['apiVersion'], 'autoscaling/v1');
      assert.deepEqual(scale.json['status'], { replicas: 2, selector: 'app=w' });
      const put = await t.request('PUT', `${W}/w1/scale`, { body: { ...scale.json, spec: { replicas: 5 } } });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.json['spec'], { replicas: 5 });
      const patched = await t.request('PATCH', `${W}/w1/scale`, { body: { spec: { replicas: 6 } }, headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(patched.status, 200, patched.text);
      const obj = (await t.request('GET', `${W}/w1`)).json;
      assert.equal((obj['spec'] as Record<string, unknown>)['replicas'], 6);
      assert.equal((obj['metadata'] as Record<string, unknown>)['generation'], 4);
      const stale = await t.request('PUT', `${W}/w1/scale`, { body: { ...scale.json, spec: { replicas: 1 } } });
      assert.equal(stale.status, 409, stale.text);
      const negative = await t.request('PUT', `${W}/w1/scale`, { body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'w1' }, spec: { replicas: -1 } } });
      assert.equal(negative.status, 422, negative.text);
    });
    void it('patch types: json patch, merge patch and apply work; strategic merge is 415', async () => {
      const json = await t.request('PATCH', `${W}/w1`, { body: [{ op: 'replace', path: '/spec/color', value: 'red' }], headers: { 'content-type': 'application/json-patch+json' } });
      assert.equal(json.status, 200, json.text);
      const merge = await t.request('PATCH', `${W}/w1`, { body: { spec: { size: 8 } }, headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(merge.status, 200, merge.text);
      assert.equal((merge.json['spec'] as Record<string, unknown>)['color'], 'red');
      const apply = await t.request('PATCH', `${W}/applied?fieldManager=test`, {
        raw: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: applied\nspec:\n  color: green\n',
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
      assert.equal(apply.status, 201, apply.text);
      const smp = await t.request('PATCH', `${W}/w1`, { body: { spec: { size: 1 } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
      assert.equal(smp.status, 415, smp.text);
      assert.equal(
        smp.json['message'],
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    });
    void it('field selectors: metadata.name, metadata.namespace and selectable fields; others refused', async () => {
      const byColor = await t.request('GET', `${W}?fieldSelector=spec.color%3Dgreen`);
      assert.equal(byColor.status, 200, byColor.text);
      assert.deepEqual((byColor.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name), ['applied']);
      const byName = await t.request('GET', `${W}?fieldSelector=metadata.name%3Dw1,metadata.namespace%3Ddefault`);
      assert.equal((byName.json['items'] as unknown[]).length, 1);
      const refused = await t.request('GET', `${W}?fieldSelector=spec.size%3D1`);
      assert.equal(refused.status, 400);
      assert.equal(refused.json['message'], 'field label not supported: spec.size');
    });
    void it('Tables carry the printer columns', async () => {
      const res = await t.request('GET', W, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      assert.equal(res.status, 200, res.text);
      const columns = (res.json['columnDefinitions'] as { name: string; type: string; priority: number }[]).map((c) => `${c.name}:${c.type}:${c.priority}`);
      assert.deepEqual(columns, ['Name:string:0', 'Color:string:0', 'Size:integer:0', 'Phase:string:1', 'Age:date:0']);
      const row = (res.json['rows'] as { cells: unknown[] }[]).find((r) => r.cells[0] === 'w1');
      assert.deepEqual(row?.cells.slice(0, 4), ['w1', 'red', 8, 'Running']);
      assert.match(String(row?.cells[4]), /^\d+s$/);
    });
    void it('apiserver_storage_objects counts custom resources', async () => {
      await eventually('a count for widgets', async () => {
        const metrics = await t.request('GET', '/metrics');
        const line = metrics.text.split('\n').find((l) => l.startsWith('apiserver_storage_objects{resource="widgets.example.com"}'));
        return line !== undefined && Number(line.split(' ')[1]) > 0;
      }, 5000);
    });
    void it('watch sees custom resource events', async () => {
      const list = await t.request('GET', W);
      const rv = (list.json['metadata'] as Record<string, string>)['resourceVersion'];
      const controller = new AbortController();
      const res = await fetch(`${t.url}${W}?watch=1&resourceVersion=${rv}`, { signal: controller.signal });
      const reader = res.body!.getReader();
      await t.request('POST', W, { body: widget('watched') });
      let text = '';
      while (!text.includes('"watched"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      controller.abort();
      assert.match(text, /"type":"ADDED".*"name":"watched"/);
    });
  });

  void describe('CRD updates', () => {
    void it('are served live: a new version appears, a version keeps its own printer columns, storedVersions grows with the storage version', async () => {
      const current = (await t.request('GET', `${CRD_PATH}/widgets.example.com`)).json;
      const spec = structuredClone(current['spec']) as { versions: Record<string, unknown>[] };
      spec.versions[1]!['additionalPrinterColumns'] = [{ name: 'Colour', type: 'string', jsonPath: '.spec.color' }];
      spec.versions[1]!['subresources'] = { status: {} };
      spec.versions.push({ ...structuredClone(spec.versions[0]!), name: 'v2', storage: true, additionalPrinterColumns: [] });
      spec.versions[0]!['storage'] = false;
      const res = await t.request('PUT', `${CRD_PATH}/widgets.example.com`, { body: { ...current, spec } });
      assert.equal(res.status, 200, res.text);
      assert.equal((res.json['metadata'] as Record<string, unknown>)['generation'], 2);
      await eventually('v2 served', async () => (await t.request('GET', '/apis/example.com/v2/namespaces/default/widgets/w1')).status === 200);
      const table = await t.request('GET', W_BETA, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      assert.deepEqual((table.json['columnDefinitions'] as { name: string }[]).map((c) => c.name), ['Name', 'Colour']);
      assert.equal((await t.request('GET', `${W_BETA}/w1/scale`)).status, 404, 'v1beta1 has no scale subresource any more');
      assert.equal((await t.request('GET', '/apis/example.com/v2/namespaces/default/widgets/w1/scale')).status, 200);
      const betaDiscovery = await t.request('GET', '/apis/example.com/v1beta1');
      assert.deepEqual((betaDiscovery.json['resources'] as { name: string }[]).map((r) => r.name).sort(), ['widgets', 'widgets/status']);
      const v2Table = await t.request('GET', '/apis/example.com/v2/namespaces/default/widgets', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      assert.deepEqual((v2Table.json['columnDefinitions'] as { name: string }[]).map((c) => c.name), ['Name', 'Age']);
      await eventually('storedVersions [v1, v2]', async () => {
        const status = (await t.request('GET', `${CRD_PATH}/widgets.example.com`)).json['status'] as { storedVersions: string[] };
        return JSON.stringify(status.storedVersions) === '["v1","v2"]';
      });
      // A default added later shows on objects stored before it (kube defaults on read).
      const withDefault = (await t.request('GET', `${CRD_PATH}/widgets.example.com`)).json;
      const defaulted = structuredClone(withDefault['spec']) as { versions: { name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[] };
      for (const v of defaulted.versions) v.schema.openAPIV3Schema.properties.spec.properties['shape'] = { type: 'string', default: 'round' };
      assert.equal((await t.request('PUT', `${CRD_PATH}/widgets.example.com`, { body: { ...withDefault, spec: defaulted } })).status, 200);
      await eventually('the default on read', async () => ((await t.request('GET', `${W}/w1`)).json['spec'] as Record<string, unknown>)['shape'] === 'round');
      const listed = await t.request('GET', W_BETA);
      assert.ok((listed.json['items'] as { spec: Record<string, unknown> }[]).every((i) => i.spec['shape'] === 'round'));
      const dropV1 = (await t.request('GET', `${CRD_PATH}/widgets.example.com`)).json;
      const without = structuredClone(dropV1['spec']) as { versions: { name: string }[] };
      without.versions = without.versions.filter((v) => v.name !== 'v1');
      const refused = await t.request('PUT', `${CRD_PATH}/widgets.example.com`, { body: { ...dropV1, spec: without } });
      assert.equal(refused.status, 422, refused.text);
      assert.match(String(refused.json['message']), /status\.storedVersions\[0\]: Invalid value: "v1": missing from spec\.versions; v1 was previously a storage version/);
      const changedGroup = await t.request('PUT', `${CRD_PATH}/widgets.example.com`, { body: { ...dropV1, spec: { ...(dropV1['spec'] as object), scope: 'Cluster' } } });
      assert.equal(changedGroup.status, 422, changedGroup.text);
      assert.match(String(changedGroup.json['message']), /spec\.scope: Invalid value: "Cluster": field is immutable/);
    });
  });

  void describe('deletion', () => {
    void it('a cluster-scoped CRD: deleting it deletes its objects, then the CRD; creates meanwhile are refused', async () => {
      const crd = widgetCrd({ metadata: { name: 'gizmos.example.com' } });
      const spec = crd['spec'] as Record<string, unknown>;
      spec['scope'] = 'Cluster';
      spec['names'] = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' };
      await createEstablished(t, crd);
      const G = '/apis/example.com/v1/gizmos';
      for (const name of ['a', 'b', 'c']) assert.equal((await t.request('POST', G, { body: { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name } } })).status, 201);
      // A finalizer of its own keeps one object (and so the CRD) until it is removed.
      await t.request('PATCH', `${G}/a`, { body: { metadata: { finalizers: ['example.com/hold'] } }, headers: { 'content-type': 'application/merge-patch+json' } });
      const del = await t.request('DELETE', `${CRD_PATH}/gizmos.example.com`);
      assert.equal(del.status, 200, del.text);
      // kube's first DELETE of a CRD: the finalizer and the Terminating condition in the same
      // write, answered; no grace period, generation unchanged (issue 23).
      const meta = del.json['metadata'] as Record<string, unknown>;
      assert.deepEqual(meta['finalizers'], ['customresourcecleanup.apiextensions.k8s.io']);
      assert.ok(meta['deletionTimestamp']);
      assert.equal(meta['deletionGracePeriodSeconds'], undefined);
      assert.equal(meta['generation'], 1);
      const answered = ((del.json['status'] as Record<string, unknown>)['conditions'] as Record<string, unknown>[]).find((c) => c['type'] === 'Terminating');
      assert.equal(answered?.['reason'], 'InstanceDeletionPending');
      assert.equal(answered?.['message'], 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon');
      await eventually('the Terminating condition', async () => {
        const got = await t.request('GET', `${CRD_PATH}/gizmos.example.com`);
        const conditions = ((got.json['status'] as Record<string, unknown>)?.['conditions'] ?? []) as { type: string; status: string }[];
        return conditions.some((c) => c.type === 'Terminating' && c.status === 'True');
      });
      const refused = await t.request('POST', G, { body: { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'late' } } });
      assert.equal(refused.status, 405, refused.text);
      assert.equal(refused.json['message'], 'create not allowed while custom resource definition is terminating');
      await eventually('b and c deleted', async () => ((await t.request('GET', G)).json['items'] as unknown[]).length === 1);
      assert.equal((await t.request('GET', `${CRD_PATH}/gizmos.example.com`)).status, 200);
      await t.request('PATCH', `${G}/a`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
      await eventually('the CRD gone', async () => (await t.request('GET', `${CRD_PATH}/gizmos.example.com`)).status === 404);
      await eventually('the resource no longer served', async () => (await t.request('GET', G)).status === 404);
      const discovery = await t.request('GET', '/apis/example.com/v1');
      assert.ok(!(discovery.json['resources'] as { name: string }[]).some((r) => r.name === 'gizmos'));
    });
  });
});
