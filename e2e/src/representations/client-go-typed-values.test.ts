/**
 * Issue 17's poison reproduction with client-go's typed decoders: a battery of writes that
 * carry values the Go types cannot hold (1e29 and 1.5 in int64s, 2^31 in int32s, unparsable
 * Times and MicroTimes, wrong JSON types), through every write path, is refused — with the
 * Go decoder's own error text for POST and PUT — and afterwards a typed list of every kind in
 * the namespace decodes, over protobuf and over JSON. Also: kapi's ports of Go's time
 * parsing and resource.ParseQuantity agree with Go's on a random corpus.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goTimeParseError, quantityParseError } from '@kapi/machinery';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { LineProcess } from '../harness/go-program.js';
import { ensureNamespace, RestClient } from '../harness/rest.js';
import { buildKapiTyped } from './go-typed.js';

const NS = 'e2e-typed-values';
const CORE = `/api/v1/namespaces/${NS}`;
const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
const EVENTS_V1 = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;
const MICRO = '2024-01-02T03:04:05.000006Z';

let cluster: TestCluster;
let binary: string;
let client: RestClient;
const processes: LineProcess[] = [];

before(async () => {
  const [built, started] = await Promise.all([buildKapiTyped(), startCluster()]);
  binary = built.binary;
  cluster = started;
  client = new RestClient(cluster.servers[0]!.url, { maxSockets: 8 });
  await ensureNamespace(client, NS);
});
after(async () => {
  for (const p of processes) await p.kill();
  client?.close();
  await cluster?.stop();
});

function start(args: string[]): LineProcess {
  const p = new LineProcess(binary, args);
  processes.push(p);
  return p;
}

/** A write carrying a value the Go types cannot hold; `body` is sent as written. */
interface Poison {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly contentType?: string;
  /** For POST/PUT: the object as Go decodes it (apiVersion, kind and body), whose error kapi must quote. */
  readonly decodeAs?: { apiVersion: string; kind: string };
}

const obj = (apiVersion: string, kind: string, rest: string) => `{"apiVersion":"${apiVersion}","kind":"${kind}",${rest}}`;

const poisons: Poison[] = [
  // Literals as JavaScript writes their doubles (kapi quotes the parsed number; the literal itself is gone).
  ...['1e+29', '1.5', '9223372036854776000', '"1"'].map((n) => ({
    name: `ConfigMap generation ${n}`,
    method: 'POST',
    path: `${CORE}/configmaps`,
    body: obj('v1', 'ConfigMap', `"metadata":{"name":"poison","generation":${n}}`),
    decodeAs: { apiVersion: 'v1', kind: 'ConfigMap' },
  })),
  ...['"creationTimestamp":"yesterday"', '"deletionGracePeriodSeconds":1.5', '"labels":{"a":1}', '"managedFields":[{"manager":"m","time":"now"}]', '"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":"yes"}]'].map(
    (meta) => ({
      name: `ConfigMap metadata ${meta}`,
      method: 'POST',
      path: `${CORE}/configmaps`,
      body: obj('v1', 'ConfigMap', `"metadata":{"name":"poison",${meta}}`),
      decodeAs: { apiVersion: 'v1', kind: 'ConfigMap' },
    }),
  ),
  ...['"renewTime":"yesterday"', '"acquireTime":"2024-01-02T03:04:05Z"', '"leaseDurationSeconds":2147483648', '"leaseTransitions":1.5'].map((spec) => ({
    name: `Lease spec ${spec}`,
    method: 'POST',
    path: LEASES,
    body: obj('coordination.k8s.io/v1', 'Lease', `"metadata":{"name":"poison"},"spec":{${spec}}`),
    decodeAs: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
  })),
  ...['"eventTime":"2024-01-02T03:04:05Z"', '"firstTimestamp":"x"', '"count":2147483648', '"series":{"count":1,"lastObservedTime":"x"}'].map((field) => ({
    name: `core Event ${field}`,
    method: 'POST',
    path: `${CORE}/events`,
    body: obj('v1', 'Event', `"metadata":{"name":"poison"},"involvedObject":{"name":"x","namespace":"${NS}"},${field}`),
    decodeAs: { apiVersion: 'v1', kind: 'Event' },
  })),
  ...['"deprecatedCount":2147483648', '"eventTime":"now"', '"deprecatedLastTimestamp":"x"'].map((field) => ({
    name: `events.k8s.io Event ${field}`,
    method: 'POST',
    path: EVENTS_V1,
    body: obj('events.k8s.io/v1', 'Event', `"metadata":{"name":"poison"},${field}`),
    decodeAs: { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
  })),
  {
    name: 'Secret data not base64',
    method: 'POST',
    path: `${CORE}/secrets`,
    body: obj('v1', 'Secret', '"metadata":{"name":"poison"},"data":{"a":"YWJj!"}'),
    decodeAs: { apiVersion: 'v1', kind: 'Secret' },
  },
  {
    name: 'ServiceAccount secrets[].name a number',
    method: 'POST',
    path: `${CORE}/serviceaccounts`,
    body: obj('v1', 'ServiceAccount', '"metadata":{"name":"poison"},"secrets":[{"name":5}]'),
    decodeAs: { apiVersion: 'v1', kind: 'ServiceAccount' },
  },
  {
    name: 'PUT ConfigMap generation',
    method: 'PUT',
    path: `${CORE}/configmaps/fine`,
    body: obj('v1', 'ConfigMap', '"metadata":{"name":"fine","generation":1e+29}'),
    decodeAs: { apiVersion: 'v1', kind: 'ConfigMap' },
  },
  {
    name: 'PUT Lease renewTime (create on update)',
    method: 'PUT',
    path: `${LEASES}/poison`,
    body: obj('coordination.k8s.io/v1', 'Lease', '"metadata":{"name":"poison"},"spec":{"renewTime":"yesterday"}'),
    decodeAs: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
  },
  { name: 'merge patch generation', method: 'PATCH', path: `${CORE}/configmaps/fine`, body: '{"metadata":{"generation":1e+29}}', contentType: 'application/merge-patch+json' },
  { name: 'merge patch creationTimestamp', method: 'PATCH', path: `${CORE}/configmaps/fine`, body: '{"metadata":{"creationTimestamp":"yesterday"}}', contentType: 'application/merge-patch+json' },
  { name: 'JSON patch renewTime', method: 'PATCH', path: `${LEASES}/fine`, body: '[{"op":"replace","path":"/spec/renewTime","value":"yesterday"}]', contentType: 'application/json-patch+json' },
  { name: 'JSON patch leaseDurationSeconds', method: 'PATCH', path: `${LEASES}/fine`, body: '[{"op":"replace","path":"/spec/leaseDurationSeconds","value":2147483648}]', contentType: 'application/json-patch+json' },
  { name: 'strategic merge patch count', method: 'PATCH', path: `${CORE}/events/fine`, body: '{"count":1.5}', contentType: 'application/strategic-merge-patch+json' },
  { name: 'strategic merge patch lastTimestamp', method: 'PATCH', path: `${CORE}/events/fine`, body: '{"lastTimestamp":"x"}', contentType: 'application/strategic-merge-patch+json' },
  {
    name: 'apply renewTime',
    method: 'PATCH',
    path: `${LEASES}/fine?fieldManager=e2e&force=true`,
    body: obj('coordination.k8s.io/v1', 'Lease', '"metadata":{"name":"fine"},"spec":{"renewTime":"yesterday"}'),
    contentType: 'application/apply-patch+yaml',
  },
  {
    name: 'apply a new ConfigMap with generation',
    method: 'PATCH',
    path: `${CORE}/configmaps/applied?fieldManager=e2e`,
    body: obj('v1', 'ConfigMap', '"metadata":{"name":"applied","generation":1.5}'),
    contentType: 'application/apply-patch+yaml',
  },
  {
    name: 'namespace status condition time',
    method: 'PUT',
    path: `/api/v1/namespaces/${NS}/status`,
    body: obj('v1', 'Namespace', `"metadata":{"name":"${NS}"},"status":{"phase":"Active","conditions":[{"type":"T","status":"True","lastTransitionTime":"soon"}]}`),
    decodeAs: { apiVersion: 'v1', kind: 'Namespace' },
  },
];

/** Valid objects of every kind, with values at the edges of their types. */
const fine: [string, string][] = [
  [`${CORE}/configmaps`, obj('v1', 'ConfigMap', '"metadata":{"name":"fine","generation":9007199254740991,"creationTimestamp":"2024-01-02T03:04:05.5+01:00"},"data":{"a":"1"}')],
  [`${CORE}/secrets`, obj('v1', 'Secret', '"metadata":{"name":"fine"},"data":{"a":"YWJj"},"stringData":{"b":"plain"}')],
  [`${CORE}/serviceaccounts`, obj('v1', 'ServiceAccount', '"metadata":{"name":"fine"},"secrets":[{"name":"s"}]')],
  [`${CORE}/events`, obj('v1', 'Event', `"metadata":{"name":"fine"},"involvedObject":{"name":"x","namespace":"${NS}"},"count":2147483647,"firstTimestamp":"2024-01-02T03:04:05Z","lastTimestamp":"2024-01-02T03:04:06Z"`)],
  [
    EVENTS_V1,
    obj(
      'events.k8s.io/v1',
      'Event',
      `"metadata":{"name":"fine-v1"},"eventTime":"${MICRO}","series":{"count":2,"lastObservedTime":"${MICRO}"},"reportingController":"example.com/c","reportingInstance":"i","action":"A","reason":"R","type":"Normal","regarding":{"name":"x","namespace":"${NS}"}`,
    ),
  ],
  [LEASES, obj('coordination.k8s.io/v1', 'Lease', `"metadata":{"name":"fine"},"spec":{"holderIdentity":"h","leaseDurationSeconds":2147483647,"acquireTime":"${MICRO}","renewTime":"${MICRO}","leaseTransitions":0}`)],
];

void describe('typed values: poisoning attempts are refused and typed lists keep decoding', () => {
  let golden: LineProcess;
  let sequence = 0;

  before(async () => {
    golden = start(['golden']);
    for (const [path, body] of fine) {
      const res = await client.request('POST', path, body);
      assert.equal(res.status, 201, `${path}: ${res.text}`);
    }
  });

  /** Go's typed decoder error for `body` (raw JSON), via the golden command. */
  const goDecodeError = async (body: string): Promise<string | undefined> => {
    const id = `decode-${sequence++}`;
    golden.send(`{"id":"${id}","op":"encode","object":${body}}`);
    const line = await golden.next('converted', 30_000);
    assert.equal(line.id, id);
    return typeof line.error === 'string' ? line.error : undefined;
  };

  void it('refuses every poisoning attempt (4xx, never stored); POST/PUT quote Go\'s decoder error', async () => {
    const accepted: string[] = [];
    for (const poison of poisons) {
      const res = await client.request(poison.method, poison.path, poison.body, poison.contentType);
      if (res.status < 400 || res.status >= 500) {
        accepted.push(`${poison.name}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
        continue;
      }
      if (poison.decodeAs === undefined) {
        assert.equal(res.status, poison.contentType === 'application/apply-patch+yaml' ? 400 : 422, `${poison.name}: ${res.text}`);
        continue;
      }
      const goError = await goDecodeError(poison.body);
      assert.ok(goError !== undefined, `${poison.name}: Go decodes this body`);
      const kind = poison.decodeAs.kind;
      const version = poison.decodeAs.apiVersion.slice(poison.decodeAs.apiVersion.indexOf('/') + 1);
      const message = (res.body as { message?: string }).message;
      assert.equal(message, `${kind} in version "${version}" cannot be handled as a ${kind}: ${goError}`, poison.name);
      assert.equal(res.status, 400, poison.name);
    }
    assert.deepEqual(accepted, []);
  });

  for (const contentType of ['', 'application/json']) {
    void it(`after the battery, a typed list of every kind decodes (${contentType || 'protobuf'})`, async () => {
      const args = ['typed-list', '--kubeconfig', cluster.kubeconfig(), '--namespace', NS, ...(contentType ? ['--content-type', contentType] : [])];
      const lister = start(args);
      await lister.next('done', 60_000);
      const listed: Record<string, unknown>[] = [];
      for (;;) {
        try {
          listed.push(await lister.next('listed', 1));
        } catch {
          break;
        }
      }
      assert.deepEqual(listed.filter((l) => l.error !== undefined), [], lister.stderr());
      assert.equal(listed.length, 7);
      for (const l of listed) assert.ok(Number(l.count) >= 1, `${String(l.resource)}: ${String(l.count)}`);
    });
  }

  void it("kapi's Time, MicroTime and Quantity parsers agree with Go's on a random corpus", async () => {
    let seed = 17;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = (text: string) => text[Math.floor(random() * text.length)]!;
    const mutate = (base: string, alphabet: string) => {
      const chars = [...base];
      for (let e = Math.floor(random() * 4); e > 0; e--) {
        const at = Math.floor(random() * (chars.length + 1));
        const op = random();
        if (op < 0.4) chars[at] = pick(alphabet);
        else if (op < 0.7) chars.splice(at, 0, pick(alphabet));
        else chars.splice(at, 1);
      }
      return chars.join('');
    };
    const times = ['2024-01-02T03:04:05Z', '2024-02-29T23:59:59.123456+01:00', '0000-12-31T24:00:00-24:00', '2024-01-02T3:04:05,5Z'];
    // Short bases only: a long run of digits after an inserted 'e-' makes Go's arbitrary-precision path take minutes.
    const quantities = ['1', '1.5', '100m', '1Gi', '1e3', '.5', '+', 'Ei', '0Pi', '8Ei', '12345', '.e-10', '+k'];
    const cases: { type: 'time' | 'microtime' | 'quantity'; value: string }[] = [];
    for (let i = 0; i < 1500; i++) {
      const t = mutate(times[i % times.length]!, '0123456789-:T.,Z+ z');
      cases.push({ type: 'time', value: t }, { type: 'microtime', value: t });
      cases.push({ type: 'quantity', value: mutate(quantities[i % quantities.length]!, '0123456789.+-eEinumkKMGTP x') });
    }
    const mismatches: string[] = [];
    for (const [i, c] of cases.entries()) golden.send(JSON.stringify({ id: `parse-${i}`, op: 'parse', ...c }));
    for (const [i, c] of cases.entries()) {
      const line = await golden.next('parsed', 30_000);
      assert.equal(line.id, `parse-${i}`);
      const go = typeof line.error === 'string' ? line.error : undefined;
      const kapi = c.type === 'quantity' ? quantityParseError(c.value) : goTimeParseError(c.value, c.type === 'time' ? 'RFC3339' : 'RFC3339Micro');
      if (go !== kapi) mismatches.push(`${c.type} ${JSON.stringify(c.value)}: Go ${String(go)}, kapi ${String(kapi)}`);
    }
    assert.deepEqual(mismatches.slice(0, 10), []);
  });
});
