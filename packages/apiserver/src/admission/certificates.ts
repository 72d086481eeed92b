/**
 * kube's certificates admission plugins for CertificateSigningRequests:
 * - CertificateApproval: an update of `/approval` needs the `approve` verb on the request's
 *   signer (`certificates.k8s.io` `signers`, named `<signerName>` or `<domain>/*`).
 * - CertificateSigning: an update of `/status` that changes the certificate or the conditions
 *   needs the `sign` verb on the signer.
 * - CertificateSubjectRestriction: a request for the `kubernetes.io/kube-apiserver-client`
 *   signer may not ask for the `system:masters` group (a subject organization).
 * - ClusterTrustBundleAttest: kube 1.32 checks ClusterTrustBundle writes only with the
 *   ClusterTrustBundle feature gate, which is off by default and which kapi does not serve:
 *   enabled, it does nothing, as in kube.
 * Without authentication (no user on a request) nothing is authorized, so nothing is refused.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '@kapi/registry';
import type { Attributes, AuthorizerResult } from '../auth/authorizer.js';
import { admissionForbidden } from './forbidden.js';
import { csrSubjectOrganizations } from './csr-subject.js';

export type Authorize = (attributes: Attributes) => AuthorizerResult;

const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const isCsr = (a: AdmissionAttributes) => a.resource.group === 'certificates.k8s.io' && a.resource.resource === 'certificatesigningrequests';
const signerOf = (obj: unknown): string => {
  const name = rec(rec(obj)?.['spec'])?.['signerName'];
  return typeof name === 'string' ? name : '';
};

/** kube's IsAuthorizedForSignerName: the verb on the signer by name, else on `<domain>/*`. */
function authorizedForSigner(authorize: Authorize, a: AdmissionAttributes, verb: string, signerName: string): boolean {
  const user = a.userInfo;
  if (user === undefined) return true;
  const ask = (name: string) => authorize({
    user: { name: user.name, uid: user.uid, groups: [...user.groups], extra: user.extra },
    verb, resourceRequest: true, namespace: '', apiGroup: 'certificates.k8s.io', apiVersion: '*', resource: 'signers', subresource: '', name, path: '',
  }).decision === 'Allow';
  return ask(signerName) || ask(`${signerName.split('/')[0]!}/*`);
}

export function certificateApproval(authorize: Authorize): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    handles: (operation) => operation === 'UPDATE',
    validate(a) {
      if (!isCsr(a) || a.subresource !== 'approval' || a.object === undefined) return;
      const signer = signerOf(a.object);
      if (!authorizedForSigner(authorize, a, 'approve', signer)) throw admissionForbidden(a, `user not permitted to approve requests with signerName ${JSON.stringify(signer)}`);
    },
  };
}

export function certificateSigning(authorize: Authorize): AdmissionPlugin {
  return {
    name: 'CertificateSigning',
    handles: (operation) => operation === 'UPDATE',
    validate(a) {
      if (!isCsr(a) || a.subresource !== 'status' || a.object === undefined || a.oldObject === undefined) return;
      const status = rec((a.object as Json)['status']) ?? {};
      const oldStatus = rec((a.oldObject as Json)['status']) ?? {};
      const sameCertificate = (status['certificate'] ?? '') === (oldStatus['certificate'] ?? '');
      const sameConditions = JSON.stringify(status['conditions'] ?? []) === JSON.stringify(oldStatus['conditions'] ?? []);
      if (sameCertificate && sameConditions) return;
      const signer = signerOf(a.oldObject);
      if (!authorizedForSigner(authorize, a, 'sign', signer)) throw admissionForbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signer)}`);
    },
  };
}

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    handles: (operation) => operation === 'CREATE',
    validate(a) {
      if (!isCsr(a) || a.subresource !== '' || a.object === undefined) return;
      const signer = signerOf(a.object);
      if (signer !== KUBE_APISERVER_CLIENT_SIGNER) return;
      const request = rec((a.object as Json)['spec'])?.['request'];
      let organizations: string[];
      try {
        organizations = csrSubjectOrganizations(Buffer.from(typeof request === 'string' ? request : '', 'base64'));
      } catch (err) {
        throw admissionForbidden(a, `unable to parse csr: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (organizations.includes('system:masters')) throw admissionForbidden(a, `use of ${signer} signer with system:masters group is not allowed`);
    },
  };
}
