/**
 * kapi's discovery is kube-apiserver 1.32's, as recorded in the catalogue
 * (packages/catalog/generated/discovery.json, `make discovery`): the aggregated documents of
 * `/api` and `/apis` and every legacy resource list compare equal — order, verbs, short
 * names, categories, scope, response kinds, storage version hashes — once the declared
 * differences are taken out: what kapi does not serve yet (NOT_SERVED,
 * SUBRESOURCES_NOT_SERVED, each with its reason) and the deprecated versions kapi serves
 * beyond kube (coordination.k8s.io/v1beta1, events.k8s.io/v1beta1). One more is declared
 * below: kube keeps CustomResourceDefinitions in etcd as apiextensions.k8s.io/v1beta1, kapi
 * as v1 (reading kube's etcd is issue 26), so their storage version hashes differ.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { NOT_SERVED, SUBRESOURCES_NOT_SERVED, builtinDefinitions, builtinSubresourceFactories, customResourceDefinitions } from '@kapi/registry';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { writeServiceAccountKeys } from './testing/service-account-keys.js';
import { alwaysAllow } from './auth/authorizer.js';
import { componentStatusResource } from './component-statuses.js';
import { reviewResources } from './auth/reviews.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface Resource {
  resource: string;
  subresources?: { subresource: string }[];
  [field: string]: unknown;
}
interface GroupItem {
  metadata: { name?: string };
  versions: { version: string; resources: Resource[] }[];
}
interface AggregatedDoc {
  items: GroupItem[];
}
interface ResourceList {
  groupVersion: string;
  resources: { name: string }[];
}
interface Recorded {
  api: AggregatedDoc;
  apis: AggregatedDoc;
  resourceLists: Record<string, ResourceList>;
}

const recorded = JSON.parse(readFileSync(new URL('../../catalog/generated/discovery.json', import.meta.url), 'utf8')) as Recorded;

const hash = (gvk: string) => createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');

/** Declared: the storage version hash of CRDs (kube stores v1beta1, kapi v1). */
function declaredDifferences(gv: string, resources: { name: string; storageVersionHash?: string }[]) {
  return resources.map((r) => {
    if (gv !== 'apiextensions.k8s.io/v1' || r.name !== 'customresourcedefinitions') return r;
    assert.equal(r.storageVersionHash, hash('apiextensions.k8s.io/v1beta1/CustomResourceDefinition'));
    return { ...r, storageVersionHash: hash('apiextensions.k8s.io/v1/CustomResourceDefinition') };
  });
}

const served = (group: string, version: string, plural: string) =>
  NOT_SERVED[`${group}/${plural}`] === undefined && NOT_SERVED[`${group}/${version}/${plural}`] === undefined;
const subresourceServed = (group: string, plural: string, sub: string) => SUBRESOURCES_NOT_SERVED[`${group}/${plural}/${sub}`] === undefined;

/** kube's aggregated document without what kapi declares it does not serve. */
function expectedAggregated(doc: AggregatedDoc): GroupItem[] {
  return doc.items
    .map((g) => {
      const group = g.metadata.name ?? '';
      const versions = g.versions
        .map((v) => ({
          ...v,
          resources: v.resources
            .filter((r) => served(group, v.version, r.resource))
            .map((r) => {
              if (r.subresources === undefined) return r;
              const subresources = r.subresources.filter((s) => subresourceServed(group, r.resource, s.subresource));
              const { subresources: _all, ...rest } = r;
              return subresources.length > 0 ? { ...rest, subresources } : rest;
            }),
        }))
        .filter((v) => v.resources.length > 0);
      return { ...g, versions };
    })
    .filter((g) => g.versions.length > 0);
}

/** The group versions kube has (kapi's extra deprecated versions are the others). */
const kubeVersions = new Set([...recorded.api.items, ...recorded.apis.items].flatMap((g) => g.versions.map((v) => `${g.metadata.name ?? ''}/${v.version}`)));

function withoutKapiExtras(items: GroupItem[]): GroupItem[] {
  return items.map((g) => ({ ...g, versions: g.versions.filter((v) => kubeVersions.has(`${g.metadata.name ?? ''}/${v.version}`)) })).filter((g) => g.versions.length > 0);
}

void describe('discovery matches kube-apiserver 1.32 (the recorded catalogue)', () => {
  let t: TestServer;
  before(async () => {
    // kube always serves serviceaccounts/token (it requires an issuer); kapi with one.
    const keys = writeServiceAccountKeys();
    t = await startTestServer({ serviceAccountTokens: { issuers: ['https://kubernetes.default.svc'], keyFiles: [keys.keyFile], signingKeyFile: keys.signingKeyFile } });
  });
  after(async () => {
    await t.close();
  });

  void it('declares every catalogue resource and subresource it does not serve, and serves only kube\'s versions besides two deprecated betas', () => {
    const definitions = [
      ...builtinDefinitions,
      customResourceDefinitions,
      ...new Set(reviewResources({ authorizer: alwaysAllow }).map((r) => r.definition)),
      componentStatusResource({ checkEtcd: () => Promise.resolve() }).definition,
    ];
    for (const g of [...recorded.api.items, ...recorded.apis.items]) {
      const group = g.metadata.name ?? '';
      for (const v of g.versions) {
        for (const r of v.resources) {
          const definition = definitions.find((d) => d.group === group && d.plural === r.resource);
          const servesVersion = definition?.versions.some((dv) => dv.name === v.version && dv.served) === true;
          assert.equal(servesVersion, served(group, v.version, r.resource), `${group}/${v.version}/${r.resource}`);
          for (const sub of r.subresources ?? []) {
            if (!servesVersion) continue;
            // serviceaccounts/token is the apiserver's (it holds the signing key), not the definition's.
            const apiserverAdded = group === '' && r.resource === 'serviceaccounts' && sub.subresource === 'token';
            const servesSub = apiserverAdded ||
              (definition!.subresources ?? []).some((s) => s.name === sub.subresource) || builtinSubresourceFactories(group, r.resource)?.[sub.subresource] !== undefined;
            assert.equal(servesSub, subresourceServed(group, r.resource, sub.subresource), `${group}/${r.resource}/${sub.subresource}`);
          }
        }
      }
    }
    const extras = definitions.flatMap((d) => d.versions.filter((v) => !kubeVersions.has(`${d.group}/${v.name}`)).map((v) => `${d.group}/${v.name}/${d.plural}`));
    assert.deepEqual(extras.sort(), ['coordination.k8s.io/v1beta1/leases', 'events.k8s.io/v1beta1/events']);
  });

  for (const [path, name] of [['/api', 'api'], ['/apis', 'apis']] as const) {
    void it(`aggregated ${path} equals kube's`, async () => {
      const res = await t.request('GET', path, { headers: { accept: AGGREGATED } });
      assert.equal(res.status, 200);
      const actual = withoutKapiExtras((res.json as unknown as AggregatedDoc).items);
      assert.deepEqual(actual, expectedAggregated(recorded[name]));
    });
  }

  void it('every legacy resource list equals kube\'s (storage version hashes included)', async () => {
    for (const [gv, list] of Object.entries(recorded.resourceLists)) {
      const slash = gv.indexOf('/');
      const [group, version] = slash < 0 ? ['', gv] : [gv.slice(0, slash), gv.slice(slash + 1)];
      const resources = list.resources.filter((r) => {
        const [plural, sub] = r.name.split('/') as [string, string | undefined];
        return served(group, version, plural) && (sub === undefined || subresourceServed(group, plural, sub));
      });
      const res = await t.request('GET', group === '' ? `/api/${version}` : `/apis/${gv}`);
      if (resources.length === 0) {
        assert.equal(res.status, 404, gv);
        continue;
      }
      assert.equal(res.status, 200, gv);
      assert.deepEqual(res.json, { ...list, resources: declaredDifferences(gv, resources) }, gv);
    }
  });
});
