/** apiregistration.k8s.io defaulting: an APIService's Service is reached on port 443 unless given. */
import type { KubeObject } from '@kapi/machinery';
import type { GroupDefaults } from '../../builtin/defaults.js';
import { recordAt } from '../../builtin/builtin-strategy.js';

function defaultAPIService(obj: KubeObject): void {
  const service = recordAt(recordAt(obj, 'spec') ?? {}, 'service');
  if (service !== undefined && service['port'] === undefined) service['port'] = 443;
}

export const apiregistrationDefaults: GroupDefaults = {
  apiservices: { decode: defaultAPIService },
};
