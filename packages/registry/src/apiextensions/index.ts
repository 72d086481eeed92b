// apiextensions.k8s.io: CustomResourceDefinitions and the custom resources they define.
export { customResourceDefinitions, defaultCrd } from './crd-resource.js';
export { crdSchema, apiextensionsDefinitions } from './crd-schema.js';
export { startCrdController, type CrdController, type CrdControllerOptions } from './crd-controller.js';
export { customResourceDefinition, wrapSchema, printerColumnsFor, defaultDeprecationWarning } from './custom-resource.js';
export { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER, type CustomResourceDefinition } from './crd-types.js';
export { compileJsonPath, evaluateJsonPath } from './jsonpath.js';
export { toScale } from './scale.js';
