/**
 * The RBAC matrix: subjects × verbs × resources × namespaces × names, asked through
 * SubjectAccessReview of a real server whose roles and bindings are in etcd, compared with an
 * expectation written from kube's RBAC rules by hand (not with kapi's matcher): bindings by
 * User, Group and ServiceAccount (namespace defaulted from the RoleBinding), RoleBindings to
 * Roles and to ClusterRoles, resourceNames, `*` verbs and resources, `*\/status`,
 * non-resource URLs with a trailing `*`, a binding to a missing role, and an aggregated
 * ClusterRole that picks up a new labelled role at once. A few rows are then checked with
 * real requests made under impersonation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { Agent, request as httpsRequest } from 'node:https';
import { startSecureServer, type SecureServer } from './testing/secure-server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

interface Subject {
  readonly label: string;
  readonly user: string;
  readonly groups: readonly string[];
}

interface Case {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

const SUBJECTS: readonly Subject[] = [
  { label: 'cluster reader', user: 'u-cluster', groups: [] },
  { label: 'namespace reader', user: 'u-ns', groups: [] },
  { label: 'aggregated group', user: 'u-x', groups: ['g-agg'] },
  { label: 'service account', user: 'system:serviceaccount:ns-a:sa1', groups: [] },
  { label: 'missing role', user: 'u-missing', groups: [] },
  { label: 'wildcard group', user: 'u-y', groups: ['g-wild'] },
  { label: 'nobody', user: 'nobody', groups: ['g-other'] },
];
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'delete'];
const RESOURCES: readonly [string, string, string][] = [
  ['', 'configmaps', ''],
  ['', 'configmaps', 'status'],
  ['', 'secrets', ''],
  ['coordination.k8s.io', 'leases', ''],
  ['apps', 'deployments', ''],
  ['apps', 'deployments', 'scale'],
];
const NAMESPACES = ['ns-a', 'ns-b', ''];
const NAMES = ['', 'allowed', 'other'];

/** kube's RBAC semantics for the policy created below, by hand. */
function expected(subject: Subject, c: Case, withLateChild: boolean): boolean {
  const read = ['get', 'list', 'watch'].includes(c.verb);
  const configmaps = c.group === '' && c.resource === 'configmaps' && c.subresource === '';
  switch (subject.label) {
    case 'cluster reader': // ClusterRoleBinding → cm-reader: everywhere, cluster scope included
      return configmaps && read;
    case 'namespace reader': // RoleBinding in ns-a → ClusterRole cm-reader
      return configmaps && read && c.namespace === 'ns-a';
    case 'aggregated group': // RoleBinding in ns-b → agg-parent = secrets get + leases create/delete (+ configmaps list later)
      if (c.namespace !== 'ns-b' || c.subresource !== '') return false;
      if (c.group === '' && c.resource === 'secrets') return c.verb === 'get';
      if (c.group === 'coordination.k8s.io' && c.resource === 'leases') return c.verb === 'create' || c.verb === 'delete';
      return withLateChild && configmaps && c.verb === 'list';
    case 'service account': // RoleBinding in ns-a (subject namespace defaulted) → Role named-cm: get/update configmaps "allowed", update */status
      if (c.namespace !== 'ns-a' || c.group !== '') return false;
      if (configmaps) return (c.verb === 'get' || c.verb === 'update') && c.name === 'allowed';
      return c.subresource === 'status' && c.verb === 'update';
    case 'wildcard group': // ClusterRoleBinding → verbs *, apiGroups apps, resources * (subresources too)
      return c.group === 'apps';
    default:
      return false;
  }
}

void describe('the RBAC matrix (SubjectAccessReview and real requests)', () => {
  let s: SecureServer;
  let agent: Agent;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = httpsRequest(s.server.url + path, { method: path.includes('?list') ? 'GET' : 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> }));
      });
      req.on('error', reject);
      req.end(path.includes('?list') ? undefined : data);
    });
  const create = async (path: string, body: Record<string, unknown>): Promise<void> => {
    const res = await post(path, body);
    assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.json)}`);
  };
  const review = async (subject: Subject, c: Case): Promise<{ allowed: boolean; reason?: string }> => {
    const res = await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: subject.user, groups: subject.groups, resourceAttributes: { verb: c.verb, group: c.group, resource: c.resource, subresource: c.subresource, namespace: c.namespace, name: c.name } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return res.json['status'] as { allowed: boolean; reason?: string };
  };
  const cases = (): Case[] =>
    RESOURCES.flatMap(([group, resource, subresource]) =>
      VERBS.flatMap((verb) => NAMESPACES.flatMap((namespace) => NAMES.filter((n) => n === '' || verb !== 'list').map((name) => ({ verb, group, resource, subresource, namespace, name })))),
    );
  const runMatrix = async (withLateChild: boolean): Promise<void> => {
    const all = SUBJECTS.flatMap((subject) => cases().map((c) => ({ subject, c })));
    const mismatches: string[] = [];
    for (let i = 0; i < all.length; i += 32) {
      await Promise.all(all.slice(i, i + 32).map(async ({ subject, c }) => {
        const got = (await review(subject, c)).allowed;
        const want = expected(subject, c, withLateChild);
        if (got !== want) mismatches.push(`${subject.label}: ${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ''}.${c.group} ns=${c.namespace || '-'} name=${c.name || '-'}: got ${got}, want ${want}`);
      }));
    }
    assert.deepEqual(mismatches, [], `${mismatches.length} of ${all.length} decisions differ`);
  };

  before(async () => {
    s = await startSecureServer({ authorizationModes: ['RBAC'], anonymousAuth: true });
    agent = new Agent({ keepAlive: true, maxSockets: 32, cert: s.admin.cert, key: s.admin.key, rejectUnauthorized: false });
    for (const ns of ['ns-a', 'ns-b']) await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const clusterRole = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => create(`${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, ...((extra['labels'] as object | undefined) ? { labels: extra['labels'] } : {}) }, rules, ...(extra['aggregationRule'] ? { aggregationRule: extra['aggregationRule'] } : {}) });
    await clusterRole('cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]);
    await clusterRole('agg-parent', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'matrix/aggregate-to-parent': 'true' } }] } });
    await clusterRole('agg-child-secrets', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }], { labels: { 'matrix/aggregate-to-parent': 'true' } });
    await clusterRole('agg-child-leases', [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete'] }], { labels: { 'matrix/aggregate-to-parent': 'true' } });
    await clusterRole('wild', [{ apiGroups: ['apps'], resources: ['*'], verbs: ['*'] }]);
    await create(`${RBAC}/namespaces/ns-a/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'named-cm' }, rules: [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['*/status'], verbs: ['update'] },
    ] });
    const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', namespace: string, name: string, roleKind: string, role: string, subjects: unknown[]) =>
      create(kind === 'ClusterRoleBinding' ? `${RBAC}/clusterrolebindings` : `${RBAC}/namespaces/${namespace}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role }, subjects,
      });
    await binding('ClusterRoleBinding', '', 'm-cluster', 'ClusterRole', 'cm-reader', [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u-cluster' }]);
    await binding('RoleBinding', 'ns-a', 'm-ns', 'ClusterRole', 'cm-reader', [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u-ns' }]);
    await binding('RoleBinding', 'ns-b', 'm-agg', 'ClusterRole', 'agg-parent', [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g-agg' }]);
    await binding('RoleBinding', 'ns-a', 'm-sa', 'Role', 'named-cm', [{ kind: 'ServiceAccount', name: 'sa1' }]);
    await binding('RoleBinding', 'ns-a', 'm-missing', 'ClusterRole', 'does-not-exist', [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u-missing' }]);
    await binding('ClusterRoleBinding', '', 'm-wild', 'ClusterRole', 'wild', [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g-wild' }]);
    // The informers feed the authorizer from the watch caches: wait until the last binding counts.
    for (const deadline = Date.now() + 20_000; ; ) {
      const decision = await review({ label: '', user: 'u-y', groups: ['g-wild'] }, { verb: 'get', group: 'apps', resource: 'deployments', subresource: '', namespace: 'x', name: '' });
      if (decision.allowed) break;
      if (Date.now() > deadline) assert.fail('the RBAC objects never took effect');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  after(async () => {
    agent.destroy();
    await s.close();
  });

  void it('decides every combination as kube\'s RBAC rules say', async () => {
    await runMatrix(false);
  });

  void it('gives the reason kube gives for a binding to a missing role', async () => {
    const decision = await review(SUBJECTS[4]!, { verb: 'get', group: '', resource: 'configmaps', subresource: '', namespace: 'ns-a', name: '' });
    assert.deepEqual(decision, { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found' });
    const elsewhere = await review(SUBJECTS[4]!, { verb: 'get', group: '', resource: 'configmaps', subresource: '', namespace: 'ns-b', name: '' });
    assert.deepEqual(elsewhere, { allowed: false });
  });

  void it('aggregates a ClusterRole labelled later into its aggregating role', async () => {
    await create(`${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'agg-child-late', labels: { 'matrix/aggregate-to-parent': 'true' } }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
    for (const deadline = Date.now() + 20_000; !(await review(SUBJECTS[2]!, { verb: 'list', group: '', resource: 'configmaps', subresource: '', namespace: 'ns-b', name: '' })).allowed; ) {
      if (Date.now() > deadline) assert.fail('the late child was never aggregated');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await runMatrix(true);
    // The aggregation controller writes the union into the stored role, in name order (as kube-controller-manager's does).
    const want = [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ];
    for (const deadline = Date.now() + 20_000; ; ) {
      const stored = await post(`${RBAC}/clusterroles/agg-parent?list`, undefined);
      // (key order is the Go struct's, as kube writes it: compare values, not text)
      if (isDeepStrictEqual(stored.json['rules'], want)) break;
      if (Date.now() > deadline) assert.fail(`aggregated rules: ${JSON.stringify(stored.json['rules'])}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  void it('answers real requests as the matrix says (under impersonation)', async () => {
    const asSubject = (subject: Subject): Record<string, string> => ({ 'Impersonate-User': subject.user, ...(subject.groups.length > 0 ? { 'Impersonate-Group': subject.groups.join(',') } : {}) });
    const list = async (subject: Subject, path: string) => (await post(`${path}?list`, undefined, asSubject(subject))).status;
    assert.equal(await list(SUBJECTS[0]!, '/api/v1/configmaps'), 200);
    assert.equal(await list(SUBJECTS[1]!, '/api/v1/namespaces/ns-a/configmaps'), 200);
    assert.equal(await list(SUBJECTS[1]!, '/api/v1/namespaces/ns-b/configmaps'), 403);
    assert.equal(await list(SUBJECTS[2]!, '/api/v1/namespaces/ns-b/secrets'), 403);
    assert.equal(await list(SUBJECTS[5]!, '/apis/apps/v1/namespaces/ns-b/deployments'), 200);
    const denied = await post('/api/v1/namespaces/ns-b/configmaps?list', undefined, asSubject(SUBJECTS[6]!));
    assert.equal(denied.json['message'], 'configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group "" in the namespace "ns-b"');
    const sa = await post('/api/v1/namespaces/ns-a/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'allowed' } }, asSubject(SUBJECTS[3]!));
    assert.equal(sa.json['message'], 'configmaps is forbidden: User "system:serviceaccount:ns-a:sa1" cannot create resource "configmaps" in API group "" in the namespace "ns-a"');
  });
});
