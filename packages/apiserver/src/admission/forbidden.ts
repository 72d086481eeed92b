/**
 * kube's admission.NewForbidden: a 403 naming the request's resource and the object — the
 * request's name, else the object's name, else its generateName, else "Unknown" — with the
 * plugin's reason.
 */
import { forbidden, type StatusError } from '@kapi/machinery';
import type { AdmissionAttributes } from '@kapi/registry';

export function admissionForbidden(attributes: AdmissionAttributes, message: string): StatusError {
  const meta = attributes.object?.metadata;
  const name = attributes.name || meta?.name || meta?.generateName || 'Unknown';
  return forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, name, message);
}
