/**
 * kube's admission.NewForbidden: a 403 naming the request's resource and object — the
 * request's name, else the object's name, else its generateName (not generated yet at
 * admission), else `Unknown`.
 */
import { forbidden, type StatusError } from '@kapi/machinery';
import type { AdmissionAttributes } from '@kapi/registry';

export function admissionForbidden(a: Pick<AdmissionAttributes, 'name' | 'object' | 'resource'>, message: string): StatusError {
  const name = a.name || a.object?.metadata?.name || a.object?.metadata?.generateName || 'Unknown';
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, name, message);
}
