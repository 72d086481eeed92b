/**
 * CertificateApproval and CertificateSigning with RBAC: a user who may update a
 * CertificateSigningRequest's `/approval` or `/status` still needs `approve` / `sign` on the
 * request's signer (`certificates.k8s.io` `signers`, by name or `<domain>/*`), as in kube;
 * kubectl certificate approve shows kube's message.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventuallyValue as eventually, startSecureServer, type SecureServer } from './testing/secure-server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
// A PEM CSR (base64, as spec.request holds it): O=devs, CN=alice.
const REQUEST = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0JBZ0VBTUI4eERUQUxCZ05WQkFvTUJHUmxkbk14RGpBTUJnTlZCQU1NQldGc2FXTmxNRmt3RXdZSApLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFNk5RUys3a1hNS2tZc1BHSmVFVnZ5bFh2UjZqM1RacWtRc0JXCkJpL01YYWc3THJOeXoxOGdWSVlUR3R3RFkzQ1R1NDl2bFVzRFhEeDFnTjJuelRxdFRhQUFNQW9HQ0NxR1NNNDkKQkFNQ0EwZ0FNRVVDSURZTWxobWVLdnZIcktXMkxyZGJhUkVUQXF5RFdGZEQyOE83MEFzUHdHdkZBaUVBNktnQgptb2V5aE40ZDQrT3R6TG9rUVhzMk9WRCtYWmV0R1ZTNmxrMWpiNUE9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=';

void describe('CertificateApproval and CertificateSigning with RBAC', () => {
  let s: SecureServer;
  const alice = { token: 'alice-token' };
  const asAdmin = async (path: string, body: unknown): Promise<void> => {
    const res = await s.request({ cert: s.admin }, 'POST', path, { body });
    assert.equal(res.status, 201, `${path}: ${res.text}`);
  };
  const grant = async (name: string, rules: unknown[]) => {
    await asAdmin(`${RBAC}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules });
    await asAdmin(`${RBAC}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
  };

  before(async () => {
    s = await startSecureServer({ authorizationModes: ['RBAC'], tokens: ['alice-token,alice,alice-uid'] });
    await asAdmin(CSRS, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'req' }, spec: { request: REQUEST, signerName: 'example.com/team-a', usages: ['client auth'] } });
    await grant('csr-writer', [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'list', 'update', 'patch'] }]);
  });
  after(async () => {
    await s.close();
  });

  void it('approving needs `approve` on the signer; the domain wildcard grants it', async () => {
    const refused = await eventually('alice may update /approval', async () => {
      const res = await s.kubectl(alice, ['certificate', 'approve', 'req']);
      return /cannot (get|update|patch) resource/.test(res.stderr) ? undefined : res;
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /certificatesigningrequests\.certificates\.k8s\.io "req" is forbidden: user not permitted to approve requests with signerName "example\.com\/team-a"/);
    await grant('approve-example', [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }]);
    await eventually('alice approves', async () => ((await s.kubectl(alice, ['certificate', 'approve', 'req'])).code === 0 ? true : undefined));
  });

  void it('a signer\'s status update needs `sign` on the signer', async () => {
    const csr = await s.request(alice, 'GET', `${CSRS}/req`);
    const status = csr.json['status'] as { conditions?: unknown[] };
    // A signer's verdict: a Failed condition (the certificate itself would need a real CA here).
    const signed = { ...csr.json, status: { ...status, conditions: [...(status.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerFailed', message: 'no' }] } };
    const refused = await s.request(alice, 'PUT', `${CSRS}/req/status`, { body: signed });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json['message'], 'certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to sign requests with signerName "example.com/team-a"');
  });
});
