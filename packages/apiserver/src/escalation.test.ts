/**
 * RBAC escalation prevention on a real etcd over HTTPS, with bodies compared word for word
 * with kube-apiserver v1.32's (taken from the reference server): a user who may write
 * bindings cannot bind a role holding more than they do (kubectl too) until granted `bind`
 * on it; a user cannot write a Role or ClusterRole granting what they do not hold (create,
 * update and patch) until they hold it or are granted `escalate`; an aggregationRule needs
 * everything; a missing referenced role is kube's 404; system:masters is never checked.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventuallyValue as eventually, startSecureServer, type SecureServer } from './testing/secure-server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const V1 = 'rbac.authorization.k8s.io/v1';
const SECRETS_GET = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
const NOT_HELD = 'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:';

function forbiddenBody(resource: string, name: string, reason: string): string {
  const message = `${resource}.rbac.authorization.k8s.io ${JSON.stringify(name)} is forbidden: ${reason}`;
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: { name, group: 'rbac.authorization.k8s.io', kind: resource }, code: 403 });
}

void describe('RBAC escalation prevention (kube\'s policy-based RBAC storages)', () => {
  let s: SecureServer;
  const alice = { token: 'alice-token' };
  const admin = () => ({ cert: s.admin });
  const role = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({ apiVersion: V1, kind: 'Role', metadata: { name }, rules, ...extra });
  const clusterRole = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({ apiVersion: V1, kind: 'ClusterRole', metadata: { name }, rules, ...extra });
  const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleKind: string, roleName: string, user: string) => ({
    apiVersion: V1,
    kind,
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  const asAdmin = async (path: string, body: unknown): Promise<void> => {
    const res = await s.request(admin(), 'POST', path, { body });
    assert.equal(res.status, 201, `${path}: ${res.text}`);
  };
  /** Retries while alice is still refused by the authorizer (the RBAC caches follow etcd through a watch). */
  const asAlice = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    eventually(`alice's ${method} ${path} to pass authorization`, async () => {
      const res = await s.request(alice, method, path, { body, headers });
      return res.status === 403 && /cannot (create|update|patch) resource/.test(String(res.json['message'])) ? undefined : res;
    });

  before(async () => {
    s = await startSecureServer({ authorizationModes: ['RBAC'], tokens: ['alice-token,alice,alice-uid'] });
    for (const name of ['other', 'third']) await asAdmin('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // alice may write roles and bindings of every kind, everywhere, and read roles.
    await asAdmin(`${RBAC}/clusterroles`, clusterRole('rbac-writer', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'], verbs: ['create', 'update', 'patch', 'get'] }]));
    await asAdmin(`${RBAC}/clusterrolebindings`, binding('ClusterRoleBinding', 'alice-rbac-writer', 'ClusterRole', 'rbac-writer', 'alice'));
  });
  after(async () => {
    await s.close();
  });

  void it('refuses binding cluster-admin to oneself (kubectl shows kube\'s error), until `bind` on that role is granted', async () => {
    const held = `\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`;
    const refused = await asAlice('POST', `${RBAC}/namespaces/default/rolebindings`, binding('RoleBinding', 'self-admin', 'ClusterRole', 'cluster-admin', 'alice'));
    assert.equal(refused.status, 403);
    assert.equal(refused.text, forbiddenBody('rolebindings', 'self-admin', `${NOT_HELD}${held}`));
    const crb = await s.request(alice, 'POST', `${RBAC}/clusterrolebindings`, { body: binding('ClusterRoleBinding', 'self-admin', 'ClusterRole', 'cluster-admin', 'alice') });
    assert.equal(crb.text, forbiddenBody('clusterrolebindings', 'self-admin', `${NOT_HELD}${held}`));

    const kubectl = await s.kubectl(alice, ['create', 'rolebinding', 'self-admin', '--clusterrole=cluster-admin', '--user=alice', '-n', 'default']);
    assert.equal(kubectl.code, 1);
    assert.equal(kubectl.stderr, `error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "self-admin" is forbidden: ${NOT_HELD}${held}\n`);

    // `bind` on clusterroles named cluster-admin, in default only.
    await asAdmin(`${RBAC}/namespaces/default/roles`, role('bind-admin', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['cluster-admin'], verbs: ['bind'] }]));
    await asAdmin(`${RBAC}/namespaces/default/rolebindings`, binding('RoleBinding', 'alice-bind-admin', 'Role', 'bind-admin', 'alice'));
    await eventually('kubectl create rolebinding to succeed', async () => {
      const ok = await s.kubectl(alice, ['create', 'rolebinding', 'self-admin', '--clusterrole=cluster-admin', '--user=alice', '-n', 'default']);
      return ok.code === 0 ? ok : undefined;
    });
    // Not in another namespace, nor another role.
    const elsewhere = await s.request(alice, 'POST', `${RBAC}/namespaces/other/rolebindings`, { body: binding('RoleBinding', 'self-admin', 'ClusterRole', 'cluster-admin', 'alice') });
    assert.equal(elsewhere.status, 403, elsewhere.text);
  });

  void it('refuses a Role granting what the user does not hold; allows it once held (in that namespace) or with `escalate`', async () => {
    const refused = await asAlice('POST', `${RBAC}/namespaces/other/roles`, role('secret-reader', [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list'] }]));
    assert.equal(refused.text, forbiddenBody('roles', 'secret-reader', `${NOT_HELD}\n{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`));
    // Checked before validation, as kube does: an invalid name is refused the same way.
    const invalid = await s.request(alice, 'POST', `${RBAC}/namespaces/other/roles`, { body: role('BAD_', [SECRETS_GET]) });
    assert.equal(invalid.status, 403, invalid.text);
    const named = await s.request(alice, 'POST', `${RBAC}/clusterroles`, { body: clusterRole('named', [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'], verbs: ['get'] }, { nonResourceURLs: ['/foo', '/bar'], verbs: ['get'] }]) });
    assert.equal(JSON.parse(named.text).message, `clusterroles.rbac.authorization.k8s.io "named" is forbidden: ${NOT_HELD}\n{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get"]}\n{APIGroups:[""], Resources:["secrets"], ResourceNames:["b"], Verbs:["get"]}\n{NonResourceURLs:["/bar"], Verbs:["get"]}\n{NonResourceURLs:["/foo"], Verbs:["get"]}`);

    // A PUT that creates is checked as a create; an update of the garbage collector's fields only is not checked.
    const putCreate = await s.request(alice, 'PUT', `${RBAC}/namespaces/other/roles/newone`, { body: role('newone', [SECRETS_GET]) });
    assert.equal(putCreate.text, forbiddenBody('roles', 'newone', `${NOT_HELD}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`));
    await asAdmin(`${RBAC}/namespaces/other/roles`, role('big', [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }]));
    const merge = { 'content-type': 'application/merge-patch+json' };
    const finalizers = await s.request(alice, 'PATCH', `${RBAC}/namespaces/other/roles/big`, { body: { metadata: { finalizers: ['example.com/keep'] } }, headers: merge });
    assert.equal(finalizers.status, 200, finalizers.text);
    const labels = await s.request(alice, 'PATCH', `${RBAC}/namespaces/other/roles/big`, { body: { metadata: { labels: { a: 'b' } } }, headers: merge });
    assert.equal(labels.text, forbiddenBody('roles', 'big', `${NOT_HELD}\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`));

    // alice reads secrets in third: she may grant that there, not in other, nor cluster-wide.
    await asAdmin(`${RBAC}/namespaces/third/roles`, role('secrets', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]));
    await asAdmin(`${RBAC}/namespaces/third/rolebindings`, binding('RoleBinding', 'alice-secrets', 'Role', 'secrets', 'alice'));
    await eventually('alice to create a Role granting secrets get in third', async () => {
      const res = await s.request(alice, 'POST', `${RBAC}/namespaces/third/roles`, { body: role('secret-getter', [SECRETS_GET]) });
      return res.status === 201 ? res : undefined;
    });
    const other = await s.request(alice, 'POST', `${RBAC}/namespaces/other/roles`, { body: role('secret-getter', [SECRETS_GET]) });
    assert.equal(other.text, forbiddenBody('roles', 'secret-getter', `${NOT_HELD}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`));
    const cluster = await s.request(alice, 'POST', `${RBAC}/clusterroles`, { body: clusterRole('secret-getter', [SECRETS_GET]) });
    assert.equal(cluster.status, 403, cluster.text);

    // Updates (PUT and PATCH) are checked on the new object.
    const current = await s.request(alice, 'GET', `${RBAC}/namespaces/third/roles/secret-getter`);
    const put = await s.request(alice, 'PUT', `${RBAC}/namespaces/third/roles/secret-getter`, { body: { ...current.json, rules: [SECRETS_GET, { apiGroups: [''], resources: ['pods'], verbs: ['delete'] }] } });
    assert.equal(put.text, forbiddenBody('roles', 'secret-getter', `${NOT_HELD}\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`));
    const patch = await s.request(alice, 'PATCH', `${RBAC}/namespaces/third/roles/secret-getter`, { body: { rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] }] }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patch.text, forbiddenBody('roles', 'secret-getter', `${NOT_HELD}\n{APIGroups:["apps"], Resources:["deployments"], Verbs:["create"]}`));
    const narrowing = await s.request(alice, 'PATCH', `${RBAC}/namespaces/third/roles/secret-getter`, { body: { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(narrowing.status, 200, narrowing.text);

    // `escalate` on roles in other: anything goes there.
    await asAdmin(`${RBAC}/namespaces/other/roles`, role('escalator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }]));
    await asAdmin(`${RBAC}/namespaces/other/rolebindings`, binding('RoleBinding', 'alice-escalator', 'Role', 'escalator', 'alice'));
    await eventually('alice to escalate in other', async () => {
      const res = await s.request(alice, 'POST', `${RBAC}/namespaces/other/roles`, { body: role('everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]) });
      return res.status === 201 ? res : undefined;
    });
  });

  void it('needs everything for an aggregationRule; a missing referenced role is kube\'s 404; resolution errors are reported', async () => {
    const agg = await asAlice('POST', `${RBAC}/clusterroles`, clusterRole('agg', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }));
    assert.equal(agg.text, forbiddenBody('clusterroles', 'agg', 'must have cluster-admin privileges to use the aggregationRule'));
    // Removing the rule of an aggregated role is checked too (against the old object).
    await asAdmin(`${RBAC}/clusterroles`, clusterRole('agg', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }));
    const current = await s.request(alice, 'GET', `${RBAC}/clusterroles/agg`);
    const { aggregationRule: _dropped, ...plain } = current.json;
    const put = await s.request(alice, 'PUT', `${RBAC}/clusterroles/agg`, { body: { ...plain, rules: [] } });
    assert.equal(put.text, forbiddenBody('clusterroles', 'agg', 'must have cluster-admin privileges to use the aggregationRule'));

    const missing = await s.request(alice, 'POST', `${RBAC}/namespaces/third/rolebindings`, { body: binding('RoleBinding', 'rb', 'ClusterRole', 'nope', 'bob') });
    assert.equal(missing.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"rolebindings.rbac.authorization.k8s.io \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","group":"rbac.authorization.k8s.io","kind":"rolebindings"},"code":404}');
    const kind = await s.request(alice, 'POST', `${RBAC}/namespaces/third/rolebindings`, { body: binding('RoleBinding', 'rb', 'Foo', 'nope', 'bob') });
    assert.equal(kind.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unsupported role reference kind: \\"Foo\\"","code":500}');

    // alice bound to roles that do not exist: the lookups that failed end the message.
    await asAdmin(`${RBAC}/clusterrolebindings`, binding('ClusterRoleBinding', 'ghost2', 'ClusterRole', 'ghost2', 'alice'));
    await asAdmin(`${RBAC}/namespaces/third/rolebindings`, binding('RoleBinding', 'ghost', 'ClusterRole', 'ghost', 'alice'));
    await eventually('the resolution errors', async () => {
      const res = await s.request(alice, 'POST', `${RBAC}/namespaces/third/roles`, { body: role('r5', [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['get'] }]) });
      return res.json['message'] === `roles.rbac.authorization.k8s.io "r5" is forbidden: ${NOT_HELD}\n{APIGroups:["batch"], Resources:["jobs"], Verbs:["get"]}; resolution errors: [[roles.rbac.authorization.k8s.io "ghost2" not found, roles.rbac.authorization.k8s.io "ghost" not found]]` ? res : undefined;
    });
  });

  void it('never checks system:masters', async () => {
    await asAdmin(`${RBAC}/clusterrolebindings`, binding('ClusterRoleBinding', 'anyone-admin', 'ClusterRole', 'cluster-admin', 'someone'));
    await asAdmin(`${RBAC}/clusterroles`, clusterRole('agg2', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } }));
    const masters = await s.kubectl(admin(), ['create', 'rolebinding', 'x', '--clusterrole=nope', '--user=bob', '-n', 'default']);
    assert.equal(masters.code, 0, masters.stderr);
  });
});
