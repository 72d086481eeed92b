// @kapi/catalog — the generated facts of kube 1.32's built-in API (packages/catalog/generated,
// `make schemas`): the served-resource table, schemas, protobuf descriptor and wire facts.
export type { GroupVersionKind, CatalogSubresource, CatalogStrategy, CatalogResource, CatalogVersion, CatalogGroup, CatalogKind } from './resources.js';
export { servedGroups, catalogKinds, catalogKubeVersion } from './resources.js';
export type { CatalogSchema } from './schemas.js';
export { schemaDefinitions } from './schemas.js';
export type { WireKind, WireField, WireMessage } from './wire.js';
export { wireMessage } from './wire.js';
export { protobufDescriptor } from './protobuf-descriptor.js';
export type { BootstrapPolicy } from './bootstrap-policy.js';
export { bootstrapPolicy } from './bootstrap-policy.js';
export type { FlowcontrolBootstrap } from './flowcontrol-bootstrap.js';
export { flowcontrolBootstrap } from './flowcontrol-bootstrap.js';
export type { FeatureGateSpec, FeatureGateTable } from './feature-gates.js';
export { featureGateTable } from './feature-gates.js';
