/**
 * The cost bound (issue 17, bounded decoding): a large but legal request — a ConfigMap of
 * tens of thousands of keys, an object with as many labels — does its work in slices, so the
 * event loop keeps serving others. A heartbeat every 5 ms measures the longest stretch the
 * loop ran without it, as main-thread CPU time (testing/loop-block.ts; elsewhere than Linux,
 * wall time), so that a loaded machine does not count time the thread was not running.
 * Bodies are built and responses read as text outside the measured work.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './testing/fixture.js';
import { longestBlock } from './testing/loop-block.js';

/** The longest stretch a request may hold the loop here, in ms (kapi aims at ~50 on an idle machine). */
const BOUND_MS = 250;
/** Keys of the large ConfigMap and labels of the labelled object (stored objects stay under etcd's 1.5 MiB). */
const KEYS = 20_000;
/**
 * A body within the 3 MiB body limit whose object is too large for etcd (kube counts only
 * the values against its 1 MiB of ConfigMap data): refused with kube's 500 before it is sent.
 */
const TOO_MANY_KEYS = 250_000;

const configMaps = '/api/v1/namespaces/default/configmaps';

/** Distinct ConfigMap keys / label names: letters and digits, shortest first. */
function keyName(i: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let out = '';
  do {
    out += alphabet[i % alphabet.length];
    i = Math.floor(i / alphabet.length);
  } while (i > 0);
  return out;
}

function manyKeys(n: number, value: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[prefix + keyName(i)] = value;
  return out;
}

/** The longest block of the event loop while `work` runs (and 20 ms either side), in ms. */
async function blockDuring(work: () => Promise<void>): Promise<number> {
  await sleep(20);
  // Started in a microtask: after longestBlock has read its clock and set its heartbeat.
  const done = Promise.resolve().then(work).then(() => sleep(20));
  const block = await longestBlock(done);
  await done; // the work's own failure, if any
  return block;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function sendTo(url: string, method: string, path: string, body: string | undefined, contentType = 'application/json', accept = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await fetch(url + path, { method, headers: { 'content-type': contentType, accept }, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, text: accept.includes('protobuf') ? `${(await res.arrayBuffer()).byteLength} bytes` : await res.text() };
}

async function expectBounded(tc: TestContext, what: string, expected: number, request: () => Promise<{ status: number; text: string }>): Promise<void> {
  let status = 0;
  let text = '';
  const block = await blockDuring(async () => {
    ({ status, text } = await request());
  });
  tc.diagnostic(`${what}: longest block ${block} ms`);
  assert.equal(status, expected, text.slice(0, 400));
  assert.ok(block < BOUND_MS, `${what}: the loop was held ${block} ms at once (bound ${BOUND_MS} ms)`);
}

/** The first line of a watch from resourceVersion 0 (the first object's event). */
async function firstWatchLine(url: string, path: string): Promise<{ status: number; text: string }> {
  const controller = new AbortController();
  const res = await fetch(`${url}${path}?watch=true&resourceVersion=0`, { signal: AbortSignal.any([controller.signal, AbortSignal.timeout(60_000)]) });
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done || value.includes(0x0a)) break;
  }
  controller.abort();
  return { status: res.status, text: '' };
}

void describe(`the loop is never held long by one large request (bound ${BOUND_MS} ms)`, () => {
  let t: TestServer;
  const bodies = {
    create: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: manyKeys(KEYS, '') }),
    update: '',
    strategicMerge: JSON.stringify({ data: manyKeys(KEYS, 'y') }),
    apply: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: manyKeys(KEYS, 'z') }),
    labels: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labelled', labels: manyKeys(KEYS, 'v', 'l') } }),
    tooLarge: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'too-large' }, data: manyKeys(TOO_MANY_KEYS, '') }),
  };
  before(async () => {
    t = await startTestServer();
    // The same requests small, once: the first use of each code path compiles it, which is
    // not the cost of a large body.
    const small = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warm-up' }, data: manyKeys(100, '') });
    await send('POST', configMaps, small);
    await send('GET', `${configMaps}/warm-up`, undefined);
    await send('GET', `${configMaps}/warm-up`, undefined, 'application/json', 'application/vnd.kubernetes.protobuf');
    await send('PUT', `${configMaps}/warm-up`, small);
    await send('PATCH', `${configMaps}/warm-up`, JSON.stringify({ data: manyKeys(100, 'y') }), 'application/strategic-merge-patch+json');
    await send('PATCH', `${configMaps}/warm-up?fieldManager=cost&force=true`, small, 'application/apply-patch+yaml');
    await send('DELETE', `${configMaps}/warm-up`, undefined);
  });
  after(async () => {
    await t.close();
  });

  const send = (method: string, path: string, body: string | undefined, contentType?: string, accept?: string) => sendTo(t.url, method, path, body, contentType, accept);

  void it('the first /openapi/v3 index and /openapi/v2 (JSON and protobuf), each built from every schema', async (tc) => {
    await expectBounded(tc, 'openapi v3 index', 200, () => send('GET', '/openapi/v3', undefined));
    await expectBounded(tc, 'openapi v2', 200, () => send('GET', '/openapi/v2', undefined, undefined, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'));
    await expectBounded(tc, 'openapi v2 again (cached)', 200, () => send('GET', '/openapi/v2', undefined));
  });

  void it(`create of a ConfigMap with ${KEYS} keys`, async (tc) => {
    await expectBounded(tc, 'create', 201, () => send('POST', configMaps, bodies.create));
  });

  void it('get of it (quorum read from etcd; JSON and protobuf)', async (tc) => {
    await expectBounded(tc, 'get', 200, () => send('GET', `${configMaps}/big`, undefined));
    await expectBounded(tc, 'get protobuf', 200, () => send('GET', `${configMaps}/big`, undefined, 'application/json', 'application/vnd.kubernetes.protobuf'));
  });

  void it('update of it (one key more)', async (tc) => {
    const current = (await send('GET', `${configMaps}/big`, undefined)).text;
    const object = JSON.parse(current) as { data: Record<string, string> };
    object.data['extra'] = 'x';
    bodies.update = JSON.stringify(object);
    await expectBounded(tc, 'update', 200, () => send('PUT', `${configMaps}/big`, bodies.update));
  });

  void it('strategic-merge patch of every key', async (tc) => {
    await expectBounded(tc, 'strategic merge patch', 200, () => send('PATCH', `${configMaps}/big`, bodies.strategicMerge, 'application/strategic-merge-patch+json'));
  });

  void it('server-side apply of every key', async (tc) => {
    await expectBounded(tc, 'apply', 200, () => send('PATCH', `${configMaps}/big?fieldManager=cost&force=true`, bodies.apply, 'application/apply-patch+yaml'));
  });

  void it('list and watch that return it', async (tc) => {
    await expectBounded(tc, 'list', 200, () => send('GET', configMaps, undefined));
    // The first event (the ConfigMap) is one JSON line.
    await expectBounded(tc, 'watch', 200, () => firstWatchLine(t.url, configMaps));
  });

  void it('get and list of it as YAML (go-yaml\'s emitter, in slices)', async (tc) => {
    await send('GET', '/api/v1/namespaces/default', undefined, undefined, 'application/yaml');
    await expectBounded(tc, 'get as YAML', 200, () => send('GET', `${configMaps}/big`, undefined, undefined, 'application/yaml'));
    await expectBounded(tc, 'list as YAML', 200, () => send('GET', configMaps, undefined, undefined, 'application/yaml'));
  });

  void it('an Event whose repeated eventTime is a megabyte of emoji: a 400 quoting it byte by byte, as YAML and as JSON', async (tc) => {
    const events = '/apis/events.k8s.io/v1/namespaces/default/events';
    const event = (time: string) =>
      `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"},"eventTime":"2026-11-27T00:00:00.000000Z","reportingController":"a/b","reportingInstance":"i","action":"A","reason":"R","regarding":{"kind":"Pod","name":"p"},"type":"Normal","eventTime":"${time}"}`;
    for (const accept of ['application/yaml', 'application/json']) await send('POST', events, event('😀'.repeat(100)), 'application/json', accept);
    const body = event('😀'.repeat(250_000));
    const quoted = '\\xf0\\x9f\\x98\\x80'.repeat(250_000);
    for (const accept of ['application/yaml', 'application/json']) {
      let answer = { status: 0, text: '' };
      const block = await blockDuring(async () => {
        answer = await send('POST', events, body, 'application/json', accept);
      });
      tc.diagnostic(`${accept}: longest block ${block} ms`);
      assert.equal(answer.status, 400, answer.text.slice(0, 400));
      // kube's message, Go's time.quote of every byte (twice: the value, then what could not be
      // parsed); in YAML single quotes, folded at the spaces past column 80.
      const [head, layout, cannot, element] = ['Event in version "v1" cannot be handled as a Event: parsing time', 'as "2006-01-02T15:04:05.000000Z07:00":', 'cannot parse', 'as "2006"'];
      const expected = accept === 'application/yaml'
        ? `message: '${head} "${quoted}"\n  ${layout} ${cannot} "${quoted}"\n  ${element}'\n`
        : JSON.stringify(`${head} "${quoted}" ${layout} ${cannot} "${quoted}" ${element}`);
      assert.ok(answer.text.includes(expected), `${accept}: ${answer.text.slice(0, 200)}`);
      assert.ok(block < BOUND_MS, `${accept}: the loop was held ${block} ms at once (bound ${BOUND_MS} ms)`);
    }
  });

  void it(`create of an object with ${KEYS} labels`, async (tc) => {
    await expectBounded(tc, 'labels', 201, () => send('POST', configMaps, bodies.labels));
  });

  void it(`create of a ConfigMap with ${TOO_MANY_KEYS} keys (too large for etcd: 500)`, { todo: 'one JSON.parse or one pass over 250,000 keys alone can take longer than the bound on a loaded 2-core machine' }, async (tc) => {
    await expectBounded(tc, 'too large', 500, () => send('POST', configMaps, bodies.tooLarge));
  });
});

/** Just under ConfigMap's 1 MiB of data (kube counts keys and values). */
const NEAR_MIB = 1024 * 1024 - 1024;

/** The large objects of issue 17's /readyz stall, stored as protobuf (the default) and as JSON. */
const largeObjects: readonly {
  what: string;
  path: string;
  yaml?: boolean;
  /** The object; `small`: the same shape a thousand times smaller (warm-up). */
  object(name: string, small?: boolean): Record<string, unknown>;
}[] = [
  { what: 'a ConfigMap of one 1 MiB value', path: configMaps, object: (name, small) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { one: 'x'.repeat(small === true ? 1024 : NEAR_MIB) } }) },
  {
    what: 'a ConfigMap of 10,000 values (1 MiB)',
    path: configMaps,
    object: (name, small) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: Object.fromEntries(Array.from({ length: small === true ? 10 : 10_000 }, (_, i) => [`k${i}`, 'v'.repeat(95)])) }),
  },
  {
    what: 'an Event with a 1 MiB message, sent as YAML',
    path: '/api/v1/namespaces/default/events',
    yaml: true,
    object: (name, small) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Large', message: 'm'.repeat(small === true ? 1024 : NEAR_MIB) }),
  },
  {
    what: 'a Pod of 50 containers with 200 variables each and 500 labels',
    path: '/api/v1/namespaces/default/pods',
    object: (name, small) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: Object.fromEntries(Array.from({ length: small === true ? 5 : 500 }, (_, i) => [`l${i}`, `v${i}`])) },
      spec: {
        containers: Array.from({ length: 50 }, (_, c) => ({
          name: `c${c}`,
          image: 'busybox',
          env: Array.from({ length: small === true ? 2 : 200 }, (_, i) => ({ name: `E${i}`, value: `value-${i}-${'x'.repeat(40)}` })),
        })),
      },
    }),
  },
];

/** YAML for the plain objects above (maps, lists of maps, strings). */
function toYaml(value: unknown, indent = ''): string {
  let out = '';
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item === 'object' && item !== null) out += `${indent}${key}:\n${toYaml(item, `${indent}  `)}`;
    else out += `${indent}${key}: ${JSON.stringify(item)}\n`;
  }
  return out;
}

for (const storageMediaType of ['application/vnd.kubernetes.protobuf', 'application/json'] as const) {
  void describe(`large objects stored as ${storageMediaType} hold the loop less than ${BOUND_MS} ms per request`, () => {
    let t: TestServer;
    const protobuf = 'application/vnd.kubernetes.protobuf';
    let watcher: AbortController;
    before(async () => {
      t = await startTestServer({ storageMediaType });
      // Compile each path once with small objects (see above).
      for (const [i, large] of largeObjects.entries()) {
        const small = large.object(`warm-up-${i}`, true);
        await sendTo(t.url, 'POST', large.path, large.yaml === true ? toYaml(small) : JSON.stringify(small), large.yaml === true ? 'application/yaml' : 'application/json');
        await sendTo(t.url, 'GET', large.path, undefined, 'application/json', protobuf);
        await sendTo(t.url, 'GET', `${large.path}/warm-up-${i}`, undefined, 'application/json', protobuf);
        await sendTo(t.url, 'DELETE', `${large.path}/warm-up-${i}`, undefined);
      }
      // A watcher of every namespace's ConfigMaps, Events and Pods: the watch cache decodes
      // each large event from etcd and encodes it for this watcher while the requests run.
      watcher = new AbortController();
      for (const resource of ['configmaps', 'events', 'pods']) {
        const res = await fetch(`${t.url}/api/v1/${resource}?watch=true`, { signal: watcher.signal });
        void res.body!.pipeTo(new WritableStream()).catch(() => undefined);
      }
    });
    after(async () => {
      watcher.abort();
      await t.close();
    });

    for (const [i, large] of largeObjects.entries()) {
      void it(large.what, async (tc) => {
        const name = `large-${i}`;
        const item = `${large.path}/${name}`;
        const body = large.yaml === true ? toYaml(large.object(name)) : JSON.stringify(large.object(name));
        await expectBounded(tc, 'create', 201, () => sendTo(t.url, 'POST', large.path, body, large.yaml === true ? 'application/yaml' : 'application/json'));
        await expectBounded(tc, 'get', 200, () => sendTo(t.url, 'GET', item, undefined));
        await expectBounded(tc, 'get as protobuf', 200, () => sendTo(t.url, 'GET', item, undefined, 'application/json', protobuf));
        const current = JSON.parse((await sendTo(t.url, 'GET', item, undefined)).text) as { metadata: Record<string, unknown> };
        current.metadata['annotations'] = { changed: 'yes' };
        const update = JSON.stringify(current);
        await expectBounded(tc, 'update', 200, () => sendTo(t.url, 'PUT', item, update));
        await expectBounded(tc, 'list', 200, () => sendTo(t.url, 'GET', large.path, undefined));
        await expectBounded(tc, 'list as protobuf', 200, () => sendTo(t.url, 'GET', large.path, undefined, 'application/json', protobuf));
        await expectBounded(tc, 'watch', 200, () => firstWatchLine(t.url, large.path));
        await expectBounded(tc, 'delete', 200, () => sendTo(t.url, 'DELETE', item, undefined));
      });
    }

    void it('five creates of 1 MiB ConfigMaps at once (one etcd watch response may carry them all)', async (tc) => {
      const bodies = Array.from({ length: 5 }, (_, i) => JSON.stringify(largeObjects[0]!.object(`at-once-${i}`)));
      await expectBounded(tc, 'five creates', 201, async () => {
        const results = await Promise.all(bodies.map((body) => sendTo(t.url, 'POST', configMaps, body)));
        return results.find((r) => r.status !== 201) ?? results[0]!;
      });
    });
  });
}
