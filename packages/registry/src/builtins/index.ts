/** The built-in resources and the named schemas they reference. */
import type { JSONSchemaProps } from '@kapi/machinery';
import type { ResourceDefinition } from '../definition.js';
import { crdDecodingDefinitions } from '../apiextensions/json-schema-props.js';
import { autoscalingDefinitions } from '../schemas/autoscaling.js';
import { coreReferenceDefinitions } from '../schemas/core-references.js';
import { metaDefinitions } from '../schemas/meta.js';
import { configMapDefinitions, configMaps } from './configmaps.js';
import { eventDefinitions, events } from './events.js';
import { eventsApi, eventsApiDefinitions } from './events-k8s-io.js';
import { leaseDefinitions, leases } from './leases.js';
import { namespaceDefinitions, namespaces } from './namespaces.js';
import { secretDefinitions, secrets } from './secrets.js';
import { serviceAccountDefinitions, serviceAccounts } from './serviceaccounts.js';

/** Every built-in resource kapi serves. */
export const builtinDefinitions: readonly ResourceDefinition[] = [namespaces, configMaps, secrets, serviceAccounts, events, leases, eventsApi];

/**
 * Named schemas (OpenAPI components) by kube's names, e.g.
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`, `io.k8s.api.core.v1.ConfigMap`.
 * `$ref`s in the built-in schemas point at `#/components/schemas/<name>`.
 */
export const definitions: Readonly<Record<string, JSONSchemaProps>> = {
  ...metaDefinitions,
  ...coreReferenceDefinitions,
  ...namespaceDefinitions,
  ...configMapDefinitions,
  ...secretDefinitions,
  ...serviceAccountDefinitions,
  ...eventDefinitions,
  ...eventsApiDefinitions,
  ...leaseDefinitions,
  // The scale subresource's view of custom resources.
  ...autoscalingDefinitions,
  // What CRDs decode as where their published schema stays open (never referenced by a published schema).
  ...crdDecodingDefinitions,
};

export { namespaces, configMaps, secrets, serviceAccounts, events, leases, eventsApi };
