import type { KubeObject } from '@kapi/machinery';
import { badRequest } from '@kapi/machinery';
import { recordAt } from './builtin-strategy.js';
import { base64ErrorOffset } from './go-base64.js';

/**
 * Checks that every value of the `[]byte` map `field` is valid base64. Throws kube's 400 for
 * a body its typed decoder cannot read:
 * `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4`.
 * Non-string values are left to schema validation.
 */
export function checkBase64Map(obj: KubeObject, field: string, kind: string, version: string): void {
  for (const value of Object.values(recordAt(obj, field) ?? {})) {
    if (typeof value !== 'string') continue;
    const offset = base64ErrorOffset(value);
    if (offset !== undefined) {
      throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: illegal base64 data at input byte ${offset}`);
    }
  }
}
