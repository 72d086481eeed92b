/**
 * kube's API Priority and Fairness bootstrap configuration at start: a fresh server serves
 * every mandatory and suggested FlowSchema and PriorityLevelConfiguration with kube's spec and
 * `autoupdate-spec: "true"` (each FlowSchema not Dangling, as the config consumer marks it), a restart writes nothing, and the next start puts back a deleted
 * mandatory FlowSchema and a changed suggested spec, keeps a suggested object annotated
 * "false" and the exempt level's shares, and deletes an auto-updated object kube no longer has.
 * Two replicas starting together on an empty etcd both come up; with the group off nothing is
 * written and readyz has no priority-and-fairness-config-producer hook.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { flowcontrolBootstrap } from '@kapi/catalog';
import { startEtcd, uniquePrefix, type TestEtcd } from '@kapi/storage/testing';
import { silentLogger } from './logger.js';
import { startApiServer, type RunningServer } from './main.js';

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const AUTOUPDATE = 'apf.kubernetes.io/autoupdate-spec';

interface Item {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string>; managedFields?: { manager: string; operation: string; subresource?: string }[] };
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason: string }[] };
}

void describe('the flowcontrol bootstrap configuration', () => {
  let etcd: TestEtcd;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd.stop();
  });
  const start = (etcdPrefix: string, runtimeConfig?: Record<string, string>, enablePriorityAndFairness?: boolean): Promise<RunningServer> =>
    startApiServer({
      etcdServers: etcd.endpoints, etcdPrefix, securePort: null, insecurePort: 0, logger: silentLogger, controllers: false,
      ...(runtimeConfig !== undefined ? { runtimeConfig } : {}), ...(enablePriorityAndFairness !== undefined ? { enablePriorityAndFairness } : {}),
    });
  const call = async (server: RunningServer, method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(server.insecureUrl! + path, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  const json = async <T>(server: RunningServer, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call(server, method, path, body);
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return (await res.json()) as T;
  };
  const served = async (server: RunningServer, plural: string): Promise<Map<string, Item>> =>
    new Map((await json<{ items: Item[] }>(server, 'GET', `${FC}/${plural}`)).items.map((item) => [item.metadata.name, item]));
  /** The FlowSchemas once the config consumer has marked each (Dangling), just after the start. */
  const marked = async (server: RunningServer): Promise<Map<string, Item>> => {
    const done = (items: Map<string, Item>) => [...items.values()].every((i) => i.status?.conditions?.some((c) => c.type === 'Dangling') === true);
    let schemas = await served(server, 'flowschemas');
    for (let i = 0; !done(schemas) && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      schemas = await served(server, 'flowschemas');
    }
    return schemas;
  };
  const config = flowcontrolBootstrap();
  const expected = (objs: readonly Record<string, unknown>[]) => new Map(objs.map((o) => [(o['metadata'] as { name: string }).name, o as unknown as Item]));
  const wantedSchemas = expected([...config.mandatoryFlowSchemas, ...config.suggestedFlowSchemas]);
  const wantedLevels = expected([...config.mandatoryPriorityLevelConfigurations, ...config.suggestedPriorityLevelConfigurations]);

  void it("serves every object with kube's spec and annotation, and a restart writes nothing", async () => {
    const prefix = uniquePrefix();
    const first = await start(prefix);
    let schemas: Map<string, Item>;
    let levels: Map<string, Item>;
    try {
      schemas = await marked(first);
      levels = await served(first, 'prioritylevelconfigurations');
    } finally {
      await first.close();
    }
    assert.equal(wantedSchemas.size, 13);
    assert.equal(wantedLevels.size, 8);
    const producer = ['api-priority-and-fairness-config-producer-v1', 'Update', ''];
    const consumer = ['api-priority-and-fairness-config-consumer-v1', 'Apply', 'status'];
    for (const [got, wanted, managers] of [[schemas, wantedSchemas, [consumer, producer]], [levels, wantedLevels, [producer]]] as const) {
      assert.deepEqual([...got.keys()].sort(), [...wanted.keys()].sort());
      for (const [name, want] of wanted) {
        assert.deepEqual(got.get(name)!.spec, want.spec, name);
        assert.deepEqual(got.get(name)!.metadata.annotations, { [AUTOUPDATE]: 'true' }, name);
        assert.deepEqual(got.get(name)!.metadata.managedFields?.map((f) => [f.manager, f.operation, f.subresource ?? '']), managers, name);
      }
    }
    for (const [name, schema] of schemas) {
      assert.deepEqual(schema.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['Dangling', 'False', 'Found']], name);
    }
    const second = await start(prefix);
    try {
      const rv = (m: Map<string, Item>) => [...m.values()].map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`).sort();
      assert.deepEqual(rv(await served(second, 'flowschemas')), rv(schemas));
      assert.deepEqual(rv(await served(second, 'prioritylevelconfigurations')), rv(levels));
    } finally {
      await second.close();
    }
  });

  void it('restores what kube restores at the next start and leaves the rest alone', async () => {
    const prefix = uniquePrefix();
    let server = await start(prefix);
    try {
      // Edits read and write whole objects: after the config consumer's status writes.
      await marked(server);
      assert.equal((await call(server, 'DELETE', `${FC}/flowschemas/catch-all`)).status, 200);
      const probes = await json<Item>(server, 'GET', `${FC}/flowschemas/probes`);
      await json(server, 'PUT', `${FC}/flowschemas/probes`, { ...probes, spec: { ...probes.spec, matchingPrecedence: 3 } });
      const global = await json<Item>(server, 'GET', `${FC}/flowschemas/global-default`);
      await json(server, 'PUT', `${FC}/flowschemas/global-default`, { ...global, metadata: { ...global.metadata, annotations: { [AUTOUPDATE]: 'false' } }, spec: { ...global.spec, matchingPrecedence: 9998 } });
      const exempt = await json<Item>(server, 'GET', `${FC}/prioritylevelconfigurations/exempt`);
      await json(server, 'PUT', `${FC}/prioritylevelconfigurations/exempt`, { ...exempt, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 7, lendablePercent: 0 } } });
      const leftover = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000 } };
      await json(server, 'POST', `${FC}/flowschemas`, { ...leftover, metadata: { name: 'retired', annotations: { [AUTOUPDATE]: 'true' } } });
      await json(server, 'POST', `${FC}/flowschemas`, { ...leftover, metadata: { name: 'mine' } });
    } finally {
      await server.close();
    }
    server = await start(prefix);
    try {
      const schemas = await served(server, 'flowschemas');
      assert.deepEqual(schemas.get('catch-all')?.spec, wantedSchemas.get('catch-all')!.spec, 'the deleted mandatory FlowSchema is back');
      assert.equal(schemas.get('probes')?.spec['matchingPrecedence'], wantedSchemas.get('probes')!.spec['matchingPrecedence'], 'an auto-updated suggested spec is put back');
      assert.equal(schemas.get('global-default')?.spec['matchingPrecedence'], 9998, 'autoupdate-spec "false" is left alone');
      assert.equal(schemas.get('global-default')?.metadata.annotations?.[AUTOUPDATE], 'false');
      assert.equal(schemas.has('retired'), false, 'an auto-updated object kube no longer has is deleted');
      assert.equal(schemas.has('mine'), true, 'an object without the annotation is the operator\'s');
      const exempt = await json<Item>(server, 'GET', `${FC}/prioritylevelconfigurations/exempt`);
      assert.deepEqual(exempt.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 7, lendablePercent: 0 } }, "the exempt level's shares are the operator's");
    } finally {
      await server.close();
    }
  });

  void it('lets two replicas ensure an empty etcd at once: one copy of each object, no error', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await Promise.all([start(prefix), start(prefix)]);
    try {
      for (const server of [a, b]) {
        assert.deepEqual([...(await served(server, 'flowschemas')).keys()].sort(), [...wantedSchemas.keys()].sort());
        assert.deepEqual([...(await served(server, 'prioritylevelconfigurations')).keys()].sort(), [...wantedLevels.keys()].sort());
        assert.equal((await call(server, 'GET', '/readyz/poststarthook/priority-and-fairness-config-producer')).status, 200);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  void it('marks a FlowSchema naming a missing level Dangling, unless --enable-priority-and-fairness=false', async () => {
    const schema = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', spec: { priorityLevelConfiguration: { name: 'nope' }, matchingPrecedence: 5000 } };
    for (const enabled of [true, false]) {
      const server = await start(uniquePrefix(), undefined, enabled);
      try {
        await json(server, 'POST', `${FC}/flowschemas`, { ...schema, metadata: { name: 'mine' } });
        let got = await json<Item>(server, 'GET', `${FC}/flowschemas/mine`);
        for (let i = 0; got.status?.conditions === undefined && i < (enabled ? 100 : 10); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          got = await json<Item>(server, 'GET', `${FC}/flowschemas/mine`);
        }
        assert.deepEqual(got.status?.conditions?.map((c) => [c.type, c.status, c.reason]), enabled ? [['Dangling', 'True', 'NotFound']] : undefined);
      } finally {
        await server.close();
      }
    }
  });

  void it('writes nothing and has no readyz hook when flowcontrol.apiserver.k8s.io/v1 is off', async () => {
    const server = await start(uniquePrefix(), { 'flowcontrol.apiserver.k8s.io/v1': 'false' });
    try {
      assert.equal((await call(server, 'GET', `${FC}/flowschemas`)).status, 404);
      assert.equal((await call(server, 'GET', '/readyz/poststarthook/priority-and-fairness-config-producer')).status, 404);
      // Ready once the other start-up work is done (the local APIServices' autoregistration).
      let ready = await call(server, 'GET', '/readyz');
      for (let i = 0; ready.status !== 200 && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        ready = await call(server, 'GET', '/readyz');
      }
      assert.equal(ready.status, 200);
    } finally {
      await server.close();
    }
  });
});
