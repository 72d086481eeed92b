/**
 * Authentication, authorization and impersonation against a real etcd, over HTTPS with client
 * certificates and tokens, and with kubectl: kube's 401/403 bodies word for word, RBAC's
 * bootstrap roles (system:masters, system:public-info-viewer, system:basic-user), the review
 * APIs behind `kubectl auth whoami` and `kubectl auth can-i`, and `kubectl --as`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestCa } from './testing/client-certs.js';
import { eventuallyValue as eventually, startSecureServer, type SecureServer } from './testing/secure-server.js';

const UNAUTHORIZED = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';

void describe('RBAC with anonymous requests allowed (kube\'s defaults for --authorization-mode=RBAC)', () => {
  let s: SecureServer;
  const alice = { token: 'alice-token' };
  before(async () => {
    s = await startSecureServer({ authorizationModes: ['RBAC'], anonymousAuth: true, tokens: ['alice-token,alice,alice-uid,"dev,qa"'] });
  });
  after(async () => {
    await s.close();
  });

  void it('refuses anonymous reads of resources with kube\'s 403 bodies, and lets anonymous read the public info', async () => {
    const list = await s.request('anonymous', 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 403);
    assert.equal(list.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps is forbidden: User \\"system:anonymous\\" cannot list resource \\"configmaps\\" in API group \\"\\" in the namespace \\"default\\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":403}');
    const get = await s.request('anonymous', 'GET', '/apis/apps/v1/namespaces/kube-system/deployments/x');
    assert.equal(get.json['message'], 'deployments.apps "x" is forbidden: User "system:anonymous" cannot get resource "deployments" in API group "apps" in the namespace "kube-system"');
    assert.deepEqual(get.json['details'], { name: 'x', group: 'apps', kind: 'deployments' });
    const del = await s.request('anonymous', 'DELETE', '/api/v1/namespaces/default');
    assert.equal(del.json['message'], 'namespaces "default" is forbidden: User "system:anonymous" cannot delete resource "namespaces" in API group "" in the namespace "default"');
    const cluster = await s.request('anonymous', 'GET', '/api/v1/nodes');
    assert.equal(cluster.json['message'], 'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope');
    const status = await s.request('anonymous', 'PUT', '/api/v1/namespaces/default/configmaps/x/status');
    assert.equal(status.json['message'], 'configmaps "x" is forbidden: User "system:anonymous" cannot update resource "configmaps/status" in API group "" in the namespace "default"');
    const metrics = await s.request('anonymous', 'GET', '/metrics');
    assert.equal(metrics.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/metrics\\"","reason":"Forbidden","details":{},"code":403}');
    // An unknown path is authorized first, as in kube: 403, not 404.
    assert.equal((await s.request('anonymous', 'GET', '/apis/nope.example/v1/things')).status, 403);
    for (const path of ['/version', '/healthz', '/livez', '/readyz']) assert.equal((await s.request('anonymous', 'GET', path)).status, 200, path);
    // system:discovery is bound to system:authenticated only.
    assert.equal((await s.request('anonymous', 'GET', '/api')).status, 403);
    assert.equal((await s.request(alice, 'GET', '/api')).status, 200);
  });

  void it('answers a refused credential with 401 even though anonymous requests are allowed', async () => {
    const bad = await s.request({ token: 'not-a-token' }, 'GET', '/version');
    assert.equal(bad.status, 401);
    assert.equal(bad.text, UNAUTHORIZED);
    const stranger = createTestCa('another-ca');
    try {
      const foreign = await s.request({ cert: stranger.client('mallory', ['system:masters']) }, 'GET', '/api/v1/namespaces');
      assert.equal(foreign.status, 401);
      assert.equal(foreign.text, UNAUTHORIZED);
      // A certificate for servers only (no clientAuth usage) is refused too.
      const serverOnly = await s.request({ cert: s.ca.client('server', ['system:masters'], { usage: 'serverAuth' }) }, 'GET', '/api/v1/namespaces');
      assert.equal(serverOnly.status, 401);
    } finally {
      stranger.remove();
    }
  });

  void it('authenticates client certificates (CN user, O groups) and tokens; system:masters may do anything', async () => {
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces/default/secrets')).status, 200);
    const whoami = await s.request({ cert: s.admin }, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(whoami.status, 201);
    const userInfo = (whoami.json['status'] as { userInfo: { username: string; groups: string[]; extra: Record<string, string[]> } }).userInfo;
    assert.equal(userInfo.username, 'kapi-admin');
    assert.deepEqual(userInfo.groups, ['system:masters', 'system:authenticated']);
    assert.match(userInfo.extra['authentication.kubernetes.io/credential-id']![0]!, /^X509SHA256=[0-9a-f]{64}$/);
    const token = await s.request(alice, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.deepEqual((token.json['status'] as { userInfo: unknown }).userInfo, { username: 'alice', uid: 'alice-uid', groups: ['dev', 'qa', 'system:authenticated'] });
  });

  void it('kubectl: a client-certificate kubeconfig works, a token user is forbidden until bound, auth whoami and can-i --list', async () => {
    const ns = await s.kubectl({ cert: s.admin }, ['get', 'namespaces', '-o', 'name']);
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stdout, /namespace\/kube-system/);
    const whoami = await s.kubectl({ cert: s.admin }, ['auth', 'whoami', '-o', 'json']);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal((JSON.parse(whoami.stdout) as { status: { userInfo: { username: string } } }).status.userInfo.username, 'kapi-admin');

    const denied = await s.kubectl(alice, ['get', 'configmaps', '-n', 'default']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Error from server \(Forbidden\): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/);
    const cannot = await s.kubectl(alice, ['auth', 'can-i', 'list', 'configmaps', '-n', 'default']);
    assert.equal(cannot.stdout.trim(), 'no');

    const bind = await s.kubectl({ cert: s.admin }, ['create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'default']);
    assert.equal(bind.code, 0, bind.stderr);
    await eventually('alice to be allowed', async () => ((await s.kubectl(alice, ['get', 'configmaps', '-n', 'default'])).code === 0 ? true : undefined));
    assert.equal((await s.kubectl(alice, ['auth', 'can-i', 'list', 'configmaps', '-n', 'default'])).stdout.trim(), 'yes');
    // view is aggregated (system:aggregate-to-view): it reads configmaps but never secrets, and writes nothing.
    assert.equal((await s.kubectl(alice, ['auth', 'can-i', 'get', 'secrets', '-n', 'default'])).stdout.trim(), 'no');
    assert.equal((await s.kubectl(alice, ['auth', 'can-i', 'create', 'configmaps', '-n', 'default'])).stdout.trim(), 'no');
    assert.equal((await s.kubectl(alice, ['auth', 'can-i', 'list', 'configmaps', '-n', 'kube-system'])).stdout.trim(), 'no');

    // kube's bootstrap view role is aggregated: its stored rules are filled in from system:aggregate-to-view.
    const view = await s.kubectl({ cert: s.admin }, ['get', 'clusterrole', 'view', '-o', 'json']);
    const viewRules = (JSON.parse(view.stdout) as { rules?: { resources?: string[] }[] }).rules ?? [];
    assert.ok(viewRules.some((r) => r.resources?.includes('configmaps') === true), view.stdout);
    const list = await s.kubectl(alice, ['auth', 'can-i', '--list', '-n', 'default']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^configmaps +\[\] +\[\] +\[get list watch\]$/m);
    assert.match(list.stdout, /selfsubjectreviews\.authentication\.k8s\.io +\[\] +\[\] +\[create\]/);
    assert.match(list.stdout, /\[\/version\] +\[\] +\[get\]/);
  });

  void it('kubectl --as: the impersonated user is authorized, and impersonating needs the impersonate verb', async () => {
    const as = await s.kubectl({ cert: s.admin }, ['get', 'secrets', '-n', 'default', '--as=bob']);
    assert.notEqual(as.code, 0);
    assert.match(as.stderr, /secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default"/);
    const asGroup = await s.kubectl({ cert: s.admin }, ['get', 'secrets', '-n', 'default', '--as=bob', '--as-group=system:masters']);
    assert.equal(asGroup.code, 0, asGroup.stderr);
    const whoami = await s.kubectl({ cert: s.admin }, ['auth', 'whoami', '-o', 'json', '--as=system:serviceaccount:default:builder']);
    assert.deepEqual((JSON.parse(whoami.stdout) as { status: { userInfo: unknown } }).status.userInfo, {
      username: 'system:serviceaccount:default:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    const notAllowed = await s.request(alice, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'bob' } });
    assert.equal(notAllowed.status, 403);
    assert.equal(notAllowed.json['message'], 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    const groupOnly = await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-Group': 'x' } });
    assert.equal(groupOnly.status, 500);
    assert.equal(groupOnly.text, 'Internal Server Error: "/api/v1/namespaces": requested [{Group  x    }] without impersonating a user\n');
  });

  void it('answers TokenReview for the static tokens', async () => {
    const review = (token: string) => s.request({ cert: s.admin }, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    const known = await review('alice-token');
    assert.equal(known.status, 201);
    assert.deepEqual(known.json['status'], { authenticated: true, user: { username: 'alice', uid: 'alice-uid', groups: ['dev', 'qa', 'system:authenticated'] } });
    assert.deepEqual((await review('nope')).json['status'], { user: {}, error: 'invalid bearer token' });
    const empty = await review('');
    assert.equal(empty.status, 400);
    assert.equal(empty.json['message'], 'token is required for TokenReview in authentication');
  });

  void it('answers SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview as kube does', async () => {
    const sar = await s.request({ cert: s.admin }, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'carol', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } } },
    });
    assert.equal(sar.status, 201);
    assert.deepEqual(sar.json['status'], { allowed: true });
    const missing = await s.request({ cert: s.admin }, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get' } } },
    });
    assert.equal(missing.status, 422);
    assert.equal(missing.json['message'], 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
    const local = await s.request({ cert: s.admin }, 'POST', '/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: 'default' }, spec: { user: 'nobody', resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } } },
    });
    assert.equal(local.status, 201);
    assert.deepEqual(local.json['status'], { allowed: false });
    // system:basic-user (self reviews) is bound to system:authenticated: anonymous may not ask.
    const anonymousSelf = await s.request('anonymous', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: {} });
    assert.equal(anonymousSelf.json['message'], 'selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
    const self = await s.request(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { verb: 'get', path: '/healthz' } } },
    });
    assert.equal(self.status, 201);
    // kube names the binding that allowed it (the first that does: both of these grant /healthz).
    const status = self.json['status'] as { allowed: boolean; reason: string };
    assert.equal(status.allowed, true);
    assert.match(status.reason, /^RBAC: allowed by ClusterRoleBinding "system:(public-info-viewer|discovery)" of ClusterRole "system:(public-info-viewer|discovery)" to Group "system:authenticated"$/);
  });
});

void describe('a token file with kube\'s default authorization (AlwaysAllow turns anonymous requests off)', () => {
  let s: SecureServer;
  before(async () => {
    s = await startSecureServer({ anonymousAuth: false, tokens: ['t1,user1,u1'] });
  });
  after(async () => {
    await s.close();
  });

  void it('answers requests without credentials with 401 and lets any authenticated user do anything', async () => {
    const none = await s.request('anonymous', 'GET', '/api/v1/namespaces');
    assert.equal(none.status, 401);
    assert.equal(none.text, UNAUTHORIZED);
    assert.equal((await s.request('anonymous', 'GET', '/healthz')).status, 401);
    assert.equal((await s.request({ token: 't1' }, 'GET', '/api/v1/namespaces')).status, 200);
    assert.equal((await s.request({ cert: s.admin }, 'GET', '/api/v1/namespaces')).status, 200);
    const kubectl = await s.kubectl('anonymous', ['get', 'namespaces']);
    assert.notEqual(kubectl.code, 0);
    assert.match(kubectl.stdout + kubectl.stderr, /the server has asked for the client to provide credentials|Unauthorized/);
    const withToken = await s.kubectl({ token: 't1' }, ['get', 'namespaces', '-o', 'name']);
    assert.equal(withToken.code, 0, withToken.stderr);
  });
});
