/** The built-in resources kapi serves and the named schemas they reference. */
import { builtinDefinition } from './served.js';

export { builtinDefinitions, builtinDefinition, builtinGroupOrder, NOT_SERVED, SUBRESOURCES_NOT_SERVED } from './served.js';
export { definitions, OBJECT_META, META_V1 } from './schemas.js';

export const namespaces = builtinDefinition('', 'namespaces');
export const configMaps = builtinDefinition('', 'configmaps');
export const secrets = builtinDefinition('', 'secrets');
export const serviceAccounts = builtinDefinition('', 'serviceaccounts');
export const events = builtinDefinition('', 'events');
export const leases = builtinDefinition('coordination.k8s.io', 'leases');
export const eventsApi = builtinDefinition('events.k8s.io', 'events');
