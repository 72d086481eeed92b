/**
 * CertificateApproval and CertificateSigning ask the authorizer for the `approve`/`sign` verb
 * on the signer by name, then on `<domain>/*` (the authorizer is the one input here: it is
 * what RBAC answers in a running server).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError, type KubeObject } from '@kapi/machinery';
import type { AdmissionAttributes } from '@kapi/registry';
import type { Attributes } from '../auth/authorizer.js';
import { certificateApproval, certificateSigning } from './certificates.js';
import { csrSubjectOrganizations } from './csr-subject.js';

const csr = (status: Record<string, unknown> = {}) => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr' }, spec: { signerName: 'example.com/something' }, status }) as unknown as KubeObject;
const attributes = (subresource: string, object: KubeObject, oldObject: KubeObject) => ({
  operation: 'UPDATE', subresource, name: 'csr', namespace: '', object, oldObject,
  resource: { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' },
  userInfo: { name: 'alice', uid: '', groups: ['system:authenticated'], extra: {} },
}) as unknown as AdmissionAttributes;

function authorizerAllowing(allowed: string) {
  const asked: string[] = [];
  return {
    asked,
    authorize: (a: Attributes) => {
      asked.push(`${a.verb} ${a.apiGroup}/${a.resource} ${a.name}`);
      return { decision: a.name === allowed ? 'Allow' as const : 'NoOpinion' as const, reason: '' };
    },
  };
}

async function refusal(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (err) {
    assert.ok(isStatusError(err));
    assert.equal(err.status.code, 403);
    return err.status.message;
  }
}

void describe('certificates admission', () => {
  void it('CertificateApproval: the exact signer, then the domain wildcard', async () => {
    for (const allowed of ['example.com/something', 'example.com/*']) {
      const { authorize } = authorizerAllowing(allowed);
      assert.equal(await refusal(() => certificateApproval(authorize).validate!(attributes('approval', csr(), csr()))), undefined);
    }
    const { authorize, asked } = authorizerAllowing('example.com/not-something');
    assert.equal(await refusal(() => certificateApproval(authorize).validate!(attributes('approval', csr(), csr()))),
      'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "example.com/something"');
    assert.deepEqual(asked, ['approve certificates.k8s.io/signers example.com/something', 'approve certificates.k8s.io/signers example.com/*']);
  });

  void it('CertificateSigning: only when the certificate or the conditions change', async () => {
    const { authorize } = authorizerAllowing('nobody');
    const plugin = certificateSigning(authorize);
    assert.equal(await refusal(() => plugin.validate!(attributes('status', csr(), csr()))), undefined);
    assert.equal(await refusal(() => plugin.validate!(attributes('status', csr({ certificate: 'Zm9v' }), csr()))),
      'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to sign requests with signerName "example.com/something"');
    assert.ok(await refusal(() => plugin.validate!(attributes('status', csr({ conditions: [{ type: 'Failed', status: 'True' }] }), csr()))));
  });

  void it('reads the subject organizations of a certificate request', () => {
    const pem = Buffer.from('LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIek1JR2FBZ0VBTURneEZ6QVZCZ05WQkFvTURuTjVjM1JsYlRwdFlYTjBaWEp6TVE0d0RBWURWUVFLREFWdgpkR2hsY2pFTk1Bc0dBMVVFQXd3RVpYWnBiREJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCRXhWCk1mRzF1QmdWS20weTJyajRrWnhiSHpzTjFvWDZOZEZlM2JuNDJrR1lTWTJDSVlMRTNhUmczT0tKMnpEWTRqNnIKTXYrYjZuNXAzVmJlRzFDT3RQQ2dBREFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUVBMERBbWdwL09Dc3piR3l3Vgo0OVA3VWVsTmw2OEp4Q3FiV0lpL1ljVEFPVThDSUI4NEdDeVB2aE12TDU2M0dTVVRkRU53RDEwQTRQWXNBSlo5CmRxV1NqdzhyCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=', 'base64');
    assert.deepEqual(csrSubjectOrganizations(pem), ['system:masters', 'other']);
    assert.throws(() => csrSubjectOrganizations(Buffer.from('not pem')), /CERTIFICATE REQUEST/);
  });
});
