/**
 * Every resource of the catalogue through kapi's own server on real etcd, table-driven over
 * the minimal objects (testing/minimal-objects.ts, each valid for kube-apiserver 1.32): create
 * as JSON and as protobuf, the etcd key (kube's prefix: minions, services/specs, ingress...),
 * get and list as JSON and protobuf (the same object), a protobuf watch seeing a strategic
 * merge patch, a merge patch of the spec (generation bumped where kube bumps it), a
 * server-side apply, the status subresource (status reset on the main resource, spec kept
 * through /status), and delete. Kinds with behaviour of their own have their own tests too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeList, decodeObject, decodeWatchFrames, encodeObjectRaw, envelopeObject } from '@kapi/machinery';
import { KUBE_CONTROLLER_MANAGER_CONTROLLERS } from '@kapi/controllers';
import { builtinDefinitions, JSON_STORED_KINDS, type ResourceDefinition } from '@kapi/registry';
import { uniquePrefix } from '@kapi/storage/testing';
import { MINIMAL_OBJECTS, type MinimalObject } from './testing/minimal-objects.js';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { decodeStoredObject } from '@kapi/storage';

const PB = 'application/vnd.kubernetes.protobuf';
const NAMESPACE = 'default';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

/**
 * The definitions the table covers: every built-in but namespaces (whose deletion is a
 * lifecycle of its own) and bindings (create only, stores nothing: pods.test.ts).
 */
const covered = builtinDefinitions.filter((d) => !(d.group === '' && (d.plural === 'namespaces' || d.plural === 'bindings')));

/** Every field of `expected` is in `actual` with the same value (kinds with defaults add fields). */
function assertContains(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${path}: ${JSON.stringify(actual)}`);
    for (const [k, v] of Object.entries(expected)) assertContains((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path}: ${JSON.stringify(actual)}`);
    expected.forEach((v, i) => assertContains(actual[i], v, `${path}[${i}]`));
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

function preferred(d: ResourceDefinition): string {
  return d.versions.find((v) => v.served && v.storage)?.name ?? d.versions.find((v) => v.served)!.name;
}

function collectionPath(d: ResourceDefinition, version: string): string {
  const base = d.group === '' ? `/api/${version}` : `/apis/${d.group}/${version}`;
  return `${base}${d.namespaced ? `/namespaces/${NAMESPACE}` : ''}/${d.plural}`;
}

const meta = (obj: Obj) => obj.metadata;
/** `obj` without what the server assigns (see MinimalObject.assigned), which differs between two creates. */
function withoutAssigned(sample: MinimalObject, obj: Record<string, unknown>): Record<string, unknown> {
  const out = { ...obj };
  for (const [field, keys] of Object.entries(sample.assigned ?? {})) {
    const value = obj[field];
    if (typeof value === 'object' && value !== null) out[field] = Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
  }
  return out;
}
const withoutMeta = (obj: Record<string, unknown>) => Object.fromEntries(Object.entries(obj).filter(([k]) => k !== 'metadata' && k !== 'status'));

void describe('catalogue round trips', () => {
  let t: TestServer;
  const prefix = uniquePrefix('catalog');
  const raw = async (method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string) => {
    const res = await fetch(t.url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };
  const json = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await raw(method, path, { 'content-type': contentType, accept: 'application/json' }, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
    return { status: res.status, object: JSON.parse(res.body.toString('utf8')) as Obj };
  };
  /** The value etcd holds for `key` (the etcd v3 JSON gateway), or undefined. */
  const etcdBytes = async (key: string): Promise<Buffer | undefined> => {
    const res = await fetch(`${t.etcd.endpoints[0]}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from(key).toString('base64') }) });
    const kvs = ((await res.json()) as { kvs?: { value: string }[] }).kvs;
    return kvs === undefined ? undefined : Buffer.from(kvs[0]!.value, 'base64');
  };
  const etcdValue = async (key: string): Promise<Record<string, unknown> | undefined> => {
    const bytes = await etcdBytes(key);
    return bytes === undefined ? undefined : (decodeStoredObject(bytes, key) as Record<string, unknown>);
  };

  before(async () => {
    // Storage round trips only: the ServiceAccount admission plugin (pods need their service account, and get a token volume) is off,
    // and so are the policy status, resource quota and APIService controllers and the priority-and-fairness config consumer
    // (they would write a status to the sample policy, quota, APIService or FlowSchema between two reads).
    const writingStatus = new Set(['validatingadmissionpolicy-status-controller', 'resourcequota-controller']);
    t = await startTestServer({
      etcdPrefix: prefix,
      apiServiceControllers: false,
      enablePriorityAndFairness: false,
      admissionPlugins: ['NamespaceLifecycle'],
      enabledControllers: new Set(KUBE_CONTROLLER_MANAGER_CONTROLLERS.filter((name) => !writingStatus.has(name))),
    });
  });
  after(async () => {
    await t.close();
  });

  void it('has a minimal object for every resource it serves, and none for others', () => {
    const keys = covered.map((d) => `${d.group}/${d.plural}`).sort();
    assert.deepEqual(Object.keys(MINIMAL_OBJECTS).sort(), keys);
  });

  for (const d of covered) {
    const sample: MinimalObject | undefined = MINIMAL_OBJECTS[`${d.group}/${d.plural}`];
    if (sample === undefined) continue;
    void it(`${d.plural}.${d.group === '' ? 'core' : d.group}`, async () => {
      const version = preferred(d);
      const apiVersion = d.group === '' ? version : `${d.group}/${version}`;
      const collection = collectionPath(d, version);
      const name = String(sample.object['metadata'] && (sample.object['metadata'] as Record<string, unknown>)['name']);
      const body: Obj = { apiVersion, kind: d.kind, ...(sample.object as Obj), ...(sample.status !== undefined ? { status: sample.status } : {}) };

      // Create (JSON): status is the server's, generation 1 where kube owns it.
      const created = await json('POST', collection, body);
      assert.equal(created.status, 201, JSON.stringify(created.object));
      const obj = created.object;
      assert.equal(obj['kind'], d.kind);
      assert.equal(obj['apiVersion'], apiVersion);
      assert.ok(typeof meta(obj)['uid'] === 'string');
      // (kube prints a CSR's reset status as {}; nodes keep the status they register with)
      if (d.statusOnCreate === true) assert.deepEqual(obj['status'], sample.status, 'status is kept on create');
      else if (d.hasStatus === true) assert.deepEqual(withoutAssigned(sample, { status: obj['status'] ?? {} })['status'], sample.createdStatus ?? {}, 'status is reset on create');
      if (d.managesGeneration === true || d.managesGeneration === 'onCreate') assert.equal(meta(obj)['generation'], 1);
      // kube's CSIDriver strategy sets none on create (issue 23).
      if (d.managesGeneration === 'onUpdate') assert.equal(meta(obj)['generation'], undefined);
      for (const [field, value] of Object.entries(withoutMeta(sample.object))) assertContains(withoutAssigned(sample, obj)[field], value, field);

      // Stored under kube's key, in the storage version.
      const key = `${prefix}/${d.storagePrefix ?? d.plural}/${d.namespaced ? `${NAMESPACE}/` : ''}${name}`;
      const stored = await etcdValue(key);
      assert.ok(stored, `nothing at ${key}`);
      assert.equal(stored['apiVersion'], d.storageApiVersion ?? apiVersion);
      // As kube-apiserver stores built-ins: protobuf (`k8s\0` + runtime.Unknown); JSON for the kinds kube writes as JSON (APIServices).
      const storedAsJson = JSON_STORED_KINDS.has(`${String(stored['apiVersion'])}/${d.kind}`);
      assert.equal((await etcdBytes(key))!.subarray(0, 4).toString('latin1'), storedAsJson ? '{"ki' : 'k8s\0');

      // Get and list: JSON and protobuf carry the same object.
      const path = `${collection}/${name}`;
      assert.deepEqual((await json('GET', path)).object, obj);
      const pbGet = await raw('GET', path, { accept: PB });
      assert.equal(pbGet.headers.get('content-type'), PB);
      assert.deepEqual(decodeObject(pbGet.body, { apiVersion, kind: d.kind }).object, obj);
      const pbList = await raw('GET', collection, { accept: PB });
      assert.equal(pbList.status, 200);
      // Only this resource's objects: kube's prefixes (pods, podtemplates; services/specs, services/endpoints) do not mix.
      // (The `default` ServiceAccount is the serviceaccount controller's; FlowSchemas and priority levels annotated autoupdate-spec are the server's bootstrap configuration;
      // so are the system-* PriorityClasses.)
      const controllerMade = (item: { metadata?: { name?: string; annotations?: Record<string, string> } }) =>
        (d.plural === 'serviceaccounts' && item.metadata?.name === 'default') || (d.group === 'flowcontrol.apiserver.k8s.io' && item.metadata?.annotations?.['apf.kubernetes.io/autoupdate-spec'] !== undefined)
        || (d.plural === 'priorityclasses' && item.metadata?.name?.startsWith('system-') === true);
      assert.deepEqual(decodeList(pbList.body).items.filter((item) => !controllerMade(item as { metadata?: { name?: string; annotations?: Record<string, string> } })), [obj]);

      // A protobuf watch sees a strategic merge patch.
      const abort = new AbortController();
      const watch = await fetch(`${t.url}${collection}?watch=true&resourceVersion=${String(meta(obj)['resourceVersion'])}&timeoutSeconds=20`, {
        headers: { accept: PB },
        signal: abort.signal,
      });
      assert.equal(watch.status, 200);
      try {
        const patched = await json('PATCH', path, { metadata: { labels: { patched: 'yes' } } }, 'application/strategic-merge-patch+json');
        assert.equal(patched.status, 200, JSON.stringify(patched.object));
        assert.equal((meta(patched.object)['labels'] as Record<string, string>)['patched'], 'yes');
        const reader = watch.body!.getReader();
        let buffered = Buffer.alloc(0);
        let event: { type: string; object: Record<string, unknown> } | undefined;
        while (event === undefined) {
          const { value, done } = await reader.read();
          if (done) throw new Error('watch ended');
          buffered = Buffer.concat([buffered, value]);
          const frames = decodeWatchFrames(buffered);
          buffered = Buffer.from(frames.rest);
          const found = frames.events.find((e) => e.type === 'MODIFIED');
          if (found !== undefined) event = { type: found.type, object: found.object.object };
        }
        assert.deepEqual(event.object, patched.object);
      } finally {
        abort.abort();
      }

      // A spec change bumps the generation where kube's strategy does.
      if (sample.change !== undefined) {
        const changed = await json('PATCH', path, sample.change, 'application/merge-patch+json');
        assert.equal(changed.status, 200, JSON.stringify(changed.object));
        const expected = d.managesGeneration === true ? 2 : d.managesGeneration === 'onUpdate' ? 1 : meta(obj)['generation'];
        assert.equal(meta(changed.object)['generation'], expected);
      }

      // Server-side apply with a field manager of its own.
      const apply = JSON.stringify({ apiVersion, kind: d.kind, metadata: { name, labels: { applied: 'yes' } } });
      const applied = await json('PATCH', `${path}?fieldManager=round-trip`, apply, 'application/apply-patch+yaml');
      assert.equal(applied.status, 200, JSON.stringify(applied.object));
      const entries = meta(applied.object)['managedFields'] as { manager: string; operation: string }[];
      assert.ok(entries.some((e) => e.manager === 'round-trip' && e.operation === 'Apply'));

      // The status subresource writes status only; the main resource keeps it.
      if (d.hasStatus === true && sample.status !== undefined) {
        const current = (await json('GET', path)).object;
        const spec = withoutMeta(current);
        const withStatus = await json('PUT', `${path}/status`, { ...current, ...Object.fromEntries(Object.keys(spec).map((k) => [k, null])), status: sample.status });
        assert.equal(withStatus.status, 200, JSON.stringify(withStatus.object));
        assert.deepEqual(withStatus.object['status'], sample.status);
        assert.deepEqual(withoutMeta(withStatus.object), spec, 'everything but metadata and status is kept through /status');
        assert.equal(meta(withStatus.object)['generation'], meta(current)['generation']);
        const mainUpdate = await json('PUT', path, { ...withStatus.object, status: {} });
        assert.equal(mainUpdate.status, 200, JSON.stringify(mainUpdate.object));
        assert.deepEqual(mainUpdate.object['status'], sample.status, 'status is kept on a main-resource update');
      }

      // Create with a protobuf body; the JSON answer carries the same fields.
      const pbBody: Obj = sample.secondObject !== undefined
        ? { apiVersion, kind: d.kind, ...sample.secondObject, ...(sample.status !== undefined ? { status: sample.status } : {}) } as unknown as Obj
        : { ...body, metadata: { ...(body.metadata as Record<string, unknown>), name: `${name}-pb` } };
      const pbName = String(meta(pbBody)['name']);
      const pbCreated = await raw('POST', collection, { 'content-type': PB, accept: 'application/json' }, envelopeObject(pbBody as Record<string, unknown>, encodeObjectRaw(pbBody as Record<string, unknown>)));
      assert.equal(pbCreated.status, 201, pbCreated.body.toString());
      const fromPb = JSON.parse(pbCreated.body.toString('utf8')) as Obj;
      // (A Job's generated selector and labels name its own uid and name.)
      const own = (o: Record<string, unknown>, n: string, uid: unknown) => JSON.parse(JSON.stringify(o).replaceAll(String(uid), 'UID').replaceAll(`"${n}"`, '"NAME"')) as unknown;
      if (sample.secondObject === undefined) assert.deepEqual(own(withoutAssigned(sample, withoutMeta(fromPb)), pbName, meta(fromPb)['uid']), own(withoutAssigned(sample, withoutMeta(obj)), name, meta(obj)['uid']));
      else for (const [field, value] of Object.entries(withoutMeta(sample.secondObject))) assertContains(fromPb[field], value, field);

      // Delete both.
      for (const n of [name, pbName]) {
        const deleted = await raw('DELETE', `${collection}/${n}`);
        assert.equal(deleted.status, 200, deleted.body.toString());
        // Kinds that orphan their dependents by default (ReplicationControllers) go once the
        // garbage collector has taken the orphan finalizer off.
        let read = await raw('GET', `${collection}/${n}`);
        for (let i = 0; read.status === 200 && i < 100; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          read = await raw('GET', `${collection}/${n}`);
        }
        assert.equal(read.status, 404);
      }
      assert.equal(await etcdValue(key), undefined);
    });
  }
});
