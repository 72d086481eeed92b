/**
 * Service accounts end to end over HTTPS with RBAC, real etcd and kubectl: the default
 * ServiceAccount and kube-root-ca.crt in every namespace (and their restoration), TokenRequest
 * (`kubectl create token`, bound objects, expiration bounds), the token authenticator (a Role
 * allows exactly what it grants; wrong audience, expired, foreign-key, deleted-account and
 * deleted-pod tokens are 401), TokenReview, issuer discovery, the ServiceAccount admission
 * plugin's pod mutation, and legacy token Secrets.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, createVerify, generateKeyPairSync, randomUUID, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { eventuallyValue as eventually, startSecureServer, type Identity, type SecureServer } from './testing/secure-server.js';
import { writeServiceAccountKeys } from './testing/service-account-keys.js';
import { signJwt } from './serviceaccount/jwt.js';
import { keyId } from './serviceaccount/keys.js';

const ISSUER = 'https://kubernetes.default.svc';
const NS = 'sa-test';

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

function claimsOf(token: string): Obj {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Obj;
}

void describe('service accounts (tokens, controllers, admission, discovery)', () => {
  let s: SecureServer;
  let keys: ReturnType<typeof writeServiceAccountKeys>;
  const admin = (): Identity => ({ cert: s.admin });

  const tokenFor = async (name: string, body: Obj = {}, namespace = NS): Promise<{ status: number; json: Obj }> =>
    s.request(admin(), 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {}, ...body } });
  const tokenOf = async (name: string, body: Obj = {}): Promise<string> => {
    const res = await tokenFor(name, body);
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return String(rec(res.json['status'])['token']);
  };

  before(async () => {
    keys = writeServiceAccountKeys();
    s = await startSecureServer({
      authorizationModes: ['RBAC'],
      serviceAccountTokens: { issuers: [ISSUER, 'https://old.example'], keyFiles: [keys.keyFile], signingKeyFile: keys.signingKeyFile, maxExpirationSeconds: 7200 },
      controllers: { leaderElection: false },
    });
    assert.equal((await s.request(admin(), 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    await eventually('default service account', async () => ((await s.request(admin(), 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200 ? true : undefined));
  });
  after(async () => {
    await s.close();
  });

  void it('publishes kube-root-ca.crt (the serving certificate) in every namespace and restores it', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps/kube-root-ca.crt`;
    const cm = await eventually('kube-root-ca.crt', async () => {
      const res = await s.request(admin(), 'GET', path);
      return res.status === 200 ? res.json : undefined;
    });
    assert.equal(rec(cm['data'])['ca.crt'], s.server.certificate);
    assert.match(String(rec(rec(cm['metadata'])['annotations'])['kubernetes.io/description']), /^Contains a CA bundle/);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await eventually(`kube-root-ca.crt in ${ns}`, async () => ((await s.request(admin(), 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status === 200 ? true : undefined));
    }
    // Changed: put back.
    assert.equal((await s.request(admin(), 'PATCH', path, { body: { data: { 'ca.crt': 'nope', extra: 'x' } }, headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    await eventually('kube-root-ca.crt restored', async () => {
      const data = rec((await s.request(admin(), 'GET', path)).json['data']);
      return data['ca.crt'] === s.server.certificate && data['extra'] === undefined ? true : undefined;
    });
    // Deleted: recreated.
    const uid = rec((await s.request(admin(), 'GET', path)).json['metadata'])['uid'];
    assert.equal((await s.request(admin(), 'DELETE', path)).status, 200);
    await eventually('kube-root-ca.crt recreated', async () => {
      const res = await s.request(admin(), 'GET', path);
      return res.status === 200 && rec(res.json['metadata'])['uid'] !== uid ? true : undefined;
    });
  });

  void it('recreates a deleted default ServiceAccount', async () => {
    const path = `/api/v1/namespaces/${NS}/serviceaccounts/default`;
    const uid = rec((await s.request(admin(), 'GET', path)).json['metadata'])['uid'];
    assert.equal((await s.request(admin(), 'DELETE', path)).status, 200);
    await eventually('default recreated', async () => {
      const res = await s.request(admin(), 'GET', path);
      return res.status === 200 && rec(res.json['metadata'])['uid'] !== uid ? true : undefined;
    });
  });

  void it('kubectl create token issues kube\'s claims; a Role bound to the account allows exactly what it grants', async () => {
    assert.equal((await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'reader' } } })).status, 201);
    const sa = (await s.request(admin(), 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/reader`)).json;
    const created = await s.kubectl(admin(), ['create', 'token', 'reader', '-n', NS, '--duration=20m']);
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Obj;
    assert.deepEqual(header, { alg: 'RS256', kid: keyId(createPublicKey(readFileSync(keys.keyFile, 'utf8'))) });
    const claims = claimsOf(token);
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(claims['aud'], [ISSUER, 'https://old.example']);
    assert.equal(claims['iss'], ISSUER);
    assert.equal(claims['sub'], `system:serviceaccount:${NS}:reader`);
    assert.equal(Number(claims['exp']) - Number(claims['iat']), 1200);
    assert.equal(claims['nbf'], claims['iat']);
    assert.deepEqual(claims['kubernetes.io'], { namespace: NS, serviceaccount: { name: 'reader', uid: rec(sa['metadata'])['uid'] } });

    const as: Identity = { token };
    const whoami = await s.kubectl(as, ['auth', 'whoami', '-o', 'json']);
    assert.equal(whoami.code, 0, whoami.stderr);
    const info = rec(rec(JSON.parse(whoami.stdout) as Obj)['status'])['userInfo'] as Obj;
    assert.equal(info['username'], `system:serviceaccount:${NS}:reader`);
    assert.equal(info['uid'], rec(sa['metadata'])['uid']);
    assert.deepEqual(info['groups'], ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated']);
    assert.deepEqual(info['extra'], { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims['jti'])}`] });

    assert.equal((await s.request(as, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).status, 403);
    await s.request(admin(), 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, { body: { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } });
    await s.request(admin(), 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      body: { metadata: { name: 'cm-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }] },
    });
    await eventually('role in effect', async () => ((await s.request(as, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).status === 200 ? true : undefined));
    assert.equal((await s.request(as, 'GET', `/api/v1/namespaces/${NS}/configmaps/kube-root-ca.crt`)).status, 200);
    const denied = await s.request(as, 'GET', `/api/v1/namespaces/${NS}/secrets`);
    assert.equal(denied.status, 403);
    assert.equal(denied.json['message'], `secrets is forbidden: User "system:serviceaccount:${NS}:reader" cannot list resource "secrets" in API group "" in the namespace "${NS}"`);
    assert.equal((await s.request(as, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'x' } } })).status, 403);
    assert.equal((await s.request(as, 'GET', '/api/v1/namespaces/default/configmaps')).status, 403);

    // TokenReview of the token.
    const review = await s.request(admin(), 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } });
    assert.equal(review.status, 201);
    assert.deepEqual(review.json['status'], {
      audiences: [ISSUER, 'https://old.example'],
      authenticated: true,
      user: { username: `system:serviceaccount:${NS}:reader`, uid: rec(sa['metadata'])['uid'], groups: ['system:serviceaccounts', `system:serviceaccounts:${NS}`, 'system:authenticated'], extra: info['extra'] },
    });
    const wrongAudience = await s.request(admin(), 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: ['foo'] } } });
    assert.deepEqual(wrongAudience.json['status'], { user: {}, error: `[invalid bearer token, token audiences ["${ISSUER}" "https://old.example"] is invalid for the target audiences ["foo"]]` });
  });

  void it('refuses tokens for other audiences, expired, signed by another key, of an unknown issuer, and of deleted or recreated accounts (401)', async () => {
    await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'gone' } } });
    const sa = (await s.request(admin(), 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/gone`)).json;
    const uid = String(rec(sa['metadata'])['uid']);
    const good = await tokenOf('gone');
    assert.equal((await s.request({ token: good }, 'GET', '/apis/authentication.k8s.io/v1')).status, 200);
    const other = await s.kubectl(admin(), ['create', 'token', 'gone', '-n', NS, '--audience=https://elsewhere']);
    assert.equal(other.code, 0, other.stderr);
    const unauthorized = await s.request({ token: other.stdout.trim() }, 'GET', '/apis/authentication.k8s.io/v1');
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(unauthorized.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });

    const signingKey = createPrivateKey(readFileSync(keys.signingKeyFile, 'utf8'));
    const key = { privateKey: signingKey, key: createPublicKey(signingKey), kid: keyId(createPublicKey(signingKey)), algorithm: 'RS256' as const };
    const now = Math.floor(Date.now() / 1000);
    const claims = (over: Obj) => ({ aud: [ISSUER], iss: ISSUER, sub: `system:serviceaccount:${NS}:gone`, iat: now - 7200, nbf: now - 7200, exp: now + 600, jti: randomUUID(), 'kubernetes.io': { namespace: NS, serviceaccount: { name: 'gone', uid } }, ...over });
    assert.equal((await s.request({ token: signJwt(key, claims({})) }, 'GET', '/apis/authentication.k8s.io/v1')).status, 200, 'a token signed here by the test is good');
    assert.equal((await s.request({ token: signJwt(key, claims({ iss: 'https://old.example' })) }, 'GET', '/apis/authentication.k8s.io/v1')).status, 200, 'every issuer is accepted');
    assert.equal((await s.request({ token: signJwt(key, claims({ exp: now - 120 })) }, 'GET', '/apis/authentication.k8s.io/v1')).status, 401, 'expired');
    assert.equal((await s.request({ token: signJwt(key, claims({ nbf: now + 600 })) }, 'GET', '/apis/authentication.k8s.io/v1')).status, 401, 'not yet valid');
    assert.equal((await s.request({ token: signJwt(key, claims({ iss: 'https://stranger' })) }, 'GET', '/apis/authentication.k8s.io/v1')).status, 401, 'unknown issuer');
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const foreignKey = { privateKey: foreign.privateKey, key: foreign.publicKey, kid: key.kid, algorithm: 'RS256' as const };
    assert.equal((await s.request({ token: signJwt(foreignKey, claims({})) }, 'GET', '/apis/authentication.k8s.io/v1')).status, 401, 'another key');

    assert.equal((await s.request(admin(), 'DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/gone`)).status, 200);
    await eventually('deleted account refused', async () => ((await s.request({ token: good }, 'GET', '/apis/authentication.k8s.io/v1')).status === 401 ? true : undefined));
    await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'gone' } } });
    await eventually('a fresh account works', async () => ((await s.request({ token: await tokenOf('gone') }, 'GET', '/apis/authentication.k8s.io/v1')).status === 200 ? true : undefined));
    assert.equal((await s.request({ token: good }, 'GET', '/apis/authentication.k8s.io/v1')).status, 401, 'a token of the account before it was recreated');
  });

  void it('TokenRequest: kube\'s validation, defaults, max expiration and bound-object checks', async () => {
    const short = await tokenFor('default', { spec: { expirationSeconds: 60 } });
    assert.equal(short.status, 422);
    assert.equal(short.json['message'], 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    const missing = await tokenFor('nobody');
    assert.equal(missing.status, 404);
    assert.equal(missing.json['message'], 'serviceaccounts "nobody" not found');
    const mismatch = await tokenFor('default', { metadata: { name: 'other' } });
    assert.equal(mismatch.status, 422);
    assert.equal(mismatch.json['message'], 'TokenRequest.authentication.k8s.io "default" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified');

    const capped = await tokenFor('default', { spec: { expirationSeconds: 100_000 } });
    assert.equal(capped.status, 201);
    const spec = rec(capped.json['spec']);
    assert.equal(spec['expirationSeconds'], 7200, '--service-account-max-token-expiration');
    assert.deepEqual(spec['audiences'], [ISSUER, 'https://old.example']);
    const claims = claimsOf(String(rec(capped.json['status'])['token']));
    assert.equal(Number(claims['exp']) - Number(claims['iat']), 7200);
    assert.equal(rec(capped.json['status'])['expirationTimestamp'], new Date(Number(claims['exp']) * 1000).toISOString().replace('.000Z', 'Z'));
    const defaulted = await tokenFor('default');
    assert.equal(rec(defaulted.json['spec'])['expirationSeconds'], 3600);
    assert.deepEqual(rec(defaulted.json['metadata'])['name'], 'default');
    assert.deepEqual(rec(defaulted.json['metadata'])['namespace'], NS);

    const secret = await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/secrets`, { body: { metadata: { name: 'anchor' }, stringData: { a: 'b' } } });
    const secretUid = String(rec(secret.json['metadata'])['uid']);
    const bound = await tokenFor('default', { spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: secretUid } } });
    assert.equal(bound.status, 201, JSON.stringify(bound.json));
    const boundToken = String(rec(bound.json['status'])['token']);
    assert.deepEqual(rec(claimsOf(boundToken)['kubernetes.io'])['secret'], { name: 'anchor', uid: secretUid });
    assert.equal((await s.request({ token: boundToken }, 'GET', '/apis/authentication.k8s.io/v1')).status, 200);
    const wrongUid = await tokenFor('default', { spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: 'nope' } } });
    assert.equal(wrongUid.status, 409);
    assert.equal(wrongUid.json['message'], 'Operation cannot be fulfilled on Secret "anchor": the UID in the bound object reference (nope) does not match the UID in record. The object might have been deleted and then recreated');
    const badKind = await tokenFor('default', { spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } } });
    assert.equal(badKind.status, 400);
    assert.equal(badKind.json['message'], 'cannot bind token to object of type /v1, Kind=ConfigMap');
    const absent = await tokenFor('default', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'absent' } } });
    assert.equal(absent.status, 404);
    assert.equal(absent.json['message'], 'pods "absent" not found');
    // The secret goes: the token bound to it stops working.
    assert.equal((await s.request(admin(), 'DELETE', `/api/v1/namespaces/${NS}/secrets/anchor`)).status, 200);
    await eventually('secret-bound token refused', async () => ((await s.request({ token: boundToken }, 'GET', '/apis/authentication.k8s.io/v1')).status === 401 ? true : undefined));
  });

  void it('ServiceAccount admission: pods run as default with a kube-api-access volume mounted in every container; unknown accounts are refused', async () => {
    const pod = (name: string, spec: Obj = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'app', image: 'busybox' }, { name: 'side', image: 'busybox', volumeMounts: [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }], volumes: [{ name: 'own', emptyDir: {} }], ...spec } });
    const created = await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/pods`, { body: pod('p1') });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const spec = rec(created.json['spec']);
    assert.equal(spec['serviceAccountName'], 'default');
    assert.equal(spec['serviceAccount'], 'default', 'the deprecated field mirrors it, as kube\'s v1 conversion does');
    const volumes = spec['volumes'] as Obj[];
    assert.equal(volumes.length, 2);
    const volume = volumes[1]!;
    assert.match(String(volume['name']), /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume['projected'], {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    });
    const mount = { name: volume['name'], readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    assert.deepEqual(rec((spec['initContainers'] as Obj[])[0])['volumeMounts'], [mount]);
    assert.deepEqual(rec((spec['containers'] as Obj[])[0])['volumeMounts'], [mount]);
    assert.deepEqual(rec((spec['containers'] as Obj[])[1])['volumeMounts'], [{ name: 'own', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }], 'a container with its own mount there keeps it');

    const optOut = await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/pods`, { body: pod('p2', { automountServiceAccountToken: false }) });
    assert.equal(optOut.status, 201);
    assert.equal((rec(optOut.json['spec'])['volumes'] as Obj[]).length, 1);

    const refused = await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/pods`, { body: pod('p3', { serviceAccountName: 'ghost' }) });
    assert.equal(refused.status, 403);
    assert.equal(refused.json['message'], `pods "p3" is forbidden: error looking up service account ${NS}/ghost: serviceaccount "ghost" not found`);

    // A token bound to the pod (as the kubelet asks for it): pod claims and user extra; the pod goes, the token stops working.
    const podUid = String(rec(created.json['metadata'])['uid']);
    const bound = await s.kubectl(admin(), ['create', 'token', 'default', '-n', NS, '--bound-object-kind=Pod', '--bound-object-name=p1', `--bound-object-uid=${podUid}`]);
    assert.equal(bound.code, 0, bound.stderr);
    const token = bound.stdout.trim();
    assert.deepEqual(rec(claimsOf(token)['kubernetes.io'])['pod'], { name: 'p1', uid: podUid });
    const whoami = await s.kubectl({ token }, ['auth', 'whoami', '-o', 'json']);
    const extra = rec(rec(rec(rec(JSON.parse(whoami.stdout) as Obj)['status'])['userInfo'])['extra']);
    assert.deepEqual(extra['authentication.kubernetes.io/pod-name'], ['p1']);
    assert.deepEqual(extra['authentication.kubernetes.io/pod-uid'], [podUid]);
    const kubeletToken = await tokenFor('default', { spec: { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1' } } });
    const kubeletClaims = claimsOf(String(rec(kubeletToken.json['status'])['token']));
    assert.equal(Number(kubeletClaims['exp']) - Number(kubeletClaims['iat']), 365 * 24 * 3600, '--service-account-extend-token-expiration');
    assert.equal(rec(kubeletClaims['kubernetes.io'])['warnafter'], Number(kubeletClaims['iat']) + 3607);
    assert.equal((await s.request(admin(), 'DELETE', `/api/v1/namespaces/${NS}/pods/p1?gracePeriodSeconds=0`)).status, 200);
    await eventually('pod-bound token refused', async () => ((await s.request({ token }, 'GET', '/apis/authentication.k8s.io/v1')).status === 401 ? true : undefined));
  });

  void it('serves issuer discovery to service accounts (RBAC: system:service-account-issuer-discovery); the JWKS verifies issued tokens', async () => {
    assert.equal((await s.request('anonymous', 'GET', '/.well-known/openid-configuration')).status, 401, 'anonymous requests are off here');
    const token = await tokenOf('default');
    const config = await s.request({ token }, 'GET', '/.well-known/openid-configuration');
    assert.equal(config.status, 200);
    const port = new URL(s.server.url!).port;
    assert.deepEqual(Object.keys(config.json), ['issuer', 'jwks_uri', 'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']);
    assert.equal(config.json['issuer'], ISSUER);
    assert.match(String(config.json['jwks_uri']), new RegExp(`^https://[^/]+:${port}/openid/v1/jwks$`));
    assert.deepEqual(config.json['id_token_signing_alg_values_supported'], ['RS256']);
    const jwks = await s.request({ token }, 'GET', '/openid/v1/jwks');
    assert.equal(jwks.status, 200);
    const [jwk] = jwks.json['keys'] as Obj[];
    assert.deepEqual(Object.keys(jwk!), ['use', 'kty', 'kid', 'alg', 'n', 'e']);
    const publicKey = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    const [h, p, sig] = token.split('.') as [string, string, string];
    const verifier = createVerify('sha256');
    verifier.update(`${h}.${p}`);
    assert.ok(verifier.verify(publicKey, Buffer.from(sig, 'base64url')), 'the JWKS key verifies the token');
    assert.equal((await s.request({ token }, 'POST', '/openid/v1/jwks')).status, 403, 'the discovery role only reads');
    assert.equal((await s.request(admin(), 'POST', '/openid/v1/jwks')).status, 405);
    assert.equal((await s.request(admin(), 'HEAD', '/openid/v1/jwks')).status, 405);
    assert.equal((await s.request(admin(), 'GET', '/openid/v1/jwks/')).status, 200);
    assert.equal((await s.request(admin(), 'GET', '/.well-known/openid-configuration/x')).status, 404);
  });

  void it('fills legacy service account token Secrets, which then authenticate, and deletes them with their account', async () => {
    await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { body: { metadata: { name: 'legacy' } } });
    const created = await s.request(admin(), 'POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: { metadata: { name: 'legacy-token', annotations: { 'kubernetes.io/service-account.name': 'legacy' } }, type: 'kubernetes.io/service-account-token' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const secret = await eventually('token filled in', async () => {
      const res = await s.request(admin(), 'GET', `/api/v1/namespaces/${NS}/secrets/legacy-token`);
      return rec(res.json['data'])['token'] !== undefined ? res.json : undefined;
    });
    const data = rec(secret['data']);
    const text = (v: unknown) => Buffer.from(String(v), 'base64').toString('utf8');
    assert.equal(text(data['namespace']), NS);
    assert.equal(text(data['ca.crt']), s.server.certificate);
    const token = text(data['token']);
    const claims = claimsOf(token);
    assert.equal(claims['iss'], 'kubernetes/serviceaccount');
    assert.equal(claims['kubernetes.io/serviceaccount/secret.name'], 'legacy-token');
    const account = (await s.request(admin(), 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/legacy`)).json;
    assert.equal(rec(rec(secret['metadata'])['annotations'])['kubernetes.io/service-account.uid'], rec(account['metadata'])['uid']);
    const whoami = await s.kubectl({ token }, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(whoami.stdout, `system:serviceaccount:${NS}:legacy`);

    assert.equal((await s.request(admin(), 'DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/legacy`)).status, 200);
    await eventually('secret deleted with its account', async () => ((await s.request(admin(), 'GET', `/api/v1/namespaces/${NS}/secrets/legacy-token`)).status === 404 ? true : undefined));
    assert.equal((await s.request({ token }, 'GET', '/apis/authentication.k8s.io/v1')).status, 401);
  });
});
