import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Attributes } from '../auth/authorizer.js';
import { evaluatePolicy, loadPolicyFile, parsePolicy } from './policy.js';
import { createLogBackend } from './log-backend.js';

const user = { name: 'alice', uid: '', groups: ['dev', 'system:authenticated'], extra: {} };
const resource = (over: Partial<Attributes> = {}): Attributes => ({ user, verb: 'get', resourceRequest: true, namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: 'p', path: '', ...over });
const path = (p: string): Attributes => ({ user, verb: 'get', resourceRequest: false, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: p });
const policy = (rules: string, head = '') => parsePolicy(`apiVersion: audit.k8s.io/v1\nkind: Policy\n${head}rules:\n${rules}`, 'p.yaml');
const level = (p: ReturnType<typeof policy>, a: Attributes) => evaluatePolicy(p, a).level;

void describe('audit policy', () => {
  void it('matches resources as kube does: subresources, wildcards, resourceNames, groups, namespaces', () => {
    const p = policy(`- level: RequestResponse
  resources: [{group: "", resources: ["pods/log"]}]
- level: Request
  resources: [{group: "", resources: ["pods"], resourceNames: ["special"]}]
- level: Metadata
  resources: [{group: "apps", resources: ["*/scale"]}, {group: "", resources: ["secrets/*"]}]
- level: Request
  namespaces: ["kube-system"]
- level: None
`);
    assert.equal(level(p, resource({ subresource: 'log' })), 'RequestResponse');
    assert.equal(level(p, resource({ name: 'special' })), 'Request');
    assert.equal(level(p, resource({ name: 'special', subresource: 'status' })), 'None');
    assert.equal(level(p, resource({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' })), 'Metadata');
    assert.equal(level(p, resource({ apiGroup: 'apps', resource: 'deployments' })), 'None');
    assert.equal(level(p, resource({ resource: 'secrets' })), 'Metadata');
    assert.equal(level(p, resource({ namespace: 'kube-system' })), 'Request');
    // A namespaces rule never matches a non-resource request.
    assert.equal(level(p, path('/version')), 'None');
  });

  void it('matches users, groups, verbs and non-resource URLs; the first match wins; stages and managed fields merge', () => {
    const p = policy(`- level: None
  users: ["bob"]
- level: Metadata
  userGroups: ["ops"]
- level: Request
  verbs: ["watch"]
  omitStages: ["ResponseStarted"]
  omitManagedFields: false
- level: RequestResponse
  nonResourceURLs: ["/metrics", "/debug/*"]
- level: Metadata
`, 'omitStages: ["RequestReceived"]\nomitManagedFields: true\n');
    assert.equal(level(p, resource({ user: { ...user, name: 'bob', groups: ['ops'] } })), 'None');
    assert.equal(level(p, resource({ user: { ...user, groups: ['ops'] } })), 'Metadata');
    const watch = evaluatePolicy(p, resource({ verb: 'watch' }));
    assert.deepEqual([watch.level, [...watch.omitStages].sort(), watch.omitManagedFields], ['Request', ['RequestReceived', 'ResponseStarted'], false]);
    assert.equal(level(p, path('/metrics')), 'RequestResponse');
    assert.equal(level(p, path('/debug/pprof/heap')), 'RequestResponse');
    assert.equal(level(p, path('/metricsx')), 'Metadata');
    assert.equal(evaluatePolicy(p, path('/x')).omitManagedFields, true);
  });

  void it('refuses bad policies with field errors', () => {
    assert.throws(() => policy('- level: Loud\n'), /rules\[0\]\.level: Invalid value: "Loud": allowed levels are None,Metadata,Request,RequestResponse/);
    assert.throws(() => policy('- level: None\n  omitStages: ["Later"]\n'), /rules\[0\]\.omitStages\[0\]: Invalid value: "Later"/);
    assert.throws(() => policy('- level: None\n  nonResourceURLs: ["/x"]\n  namespaces: ["a"]\n'), /rules cannot apply to both regular resources and non-resource URLs/);
    assert.throws(() => policy('- level: None\n  nonResourceURLs: ["x"]\n'), /must begin with a '\/' character/);
    assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n', 'p.yaml'), /loaded illegal policy with 0 rules from file p.yaml/);
    assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n', 'p.yaml'), /failed decoding file "p.yaml"/);
    assert.throws(() => loadPolicyFile('/nonexistent/policy.yaml'), { message: 'loading audit policy file: failed to read file path "/nonexistent/policy.yaml": open /nonexistent/policy.yaml: no such file or directory' });
  });
});

void describe('audit log backend', () => {
  void it('drops and counts events beyond its buffer instead of waiting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-log-'));
    try {
      const errors: string[] = [];
      const log = createLogBackend({ path: join(dir, 'a.log'), maxSizeMb: 0, maxAgeDays: 0, maxBackups: 0, compress: false, bufferSize: 3, maxBatchSize: 0, maxBatchWaitMs: 0, onError: (reason, count) => errors.push(`${reason}:${count}`) });
      // The first event goes to the writer at once; three more may wait while it writes.
      const accepted = Array.from({ length: 6 }, (_, i) => log.write(`{"n":${i}}`));
      assert.deepEqual(accepted, [true, true, true, true, false, false]);
      assert.deepEqual(errors, ['dropped:1', 'dropped:1']);
      await log.close();
      assert.equal(readFileSync(join(dir, 'a.log'), 'utf8'), '{"n":0}\n{"n":1}\n{"n":2}\n{"n":3}\n');
      assert.equal(log.write('{}'), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('rotates at maxsize into timestamped backups, keeps maxbackup of them, removes those past maxage, and compresses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-log-'));
    try {
      // A backup from 10 days ago: past --audit-log-maxage=7.
      writeFileSync(join(dir, 'audit-2000-01-01T00-00-00.000.log'), 'old\n');
      let clock = Date.parse('2030-01-01T00:00:00.000Z');
      const line = 'x'.repeat(300 * 1024);
      const log = createLogBackend({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxAgeDays: 7, maxBackups: 2, compress: true, bufferSize: 100, maxBatchSize: 1, maxBatchWaitMs: 0, onError: () => assert.fail('no errors expected'), now: () => new Date((clock += 1000)) });
      // 4 lines of 300 KiB per MiB file: 13 lines make 4 files, 3 of them rotated.
      for (let i = 0; i < 13; i++) log.write(line);
      await log.close();
      const files = readdirSync(dir).sort();
      assert.equal(files.length, 3, files.join(' '));
      assert.match(files[0]!, /^audit-2030-01-01T00-00-\d\d\.000\.log\.gz$/);
      assert.match(files[1]!, /^audit-2030-01-01T00-00-\d\d\.000\.log\.gz$/);
      assert.equal(files[2], 'audit.log');
      assert.equal(readFileSync(join(dir, 'audit.log'), 'utf8'), `${line}\n`);
      assert.equal(gunzipSync(readFileSync(join(dir, files[0]!))).toString(), `${line}\n`.repeat(3));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
