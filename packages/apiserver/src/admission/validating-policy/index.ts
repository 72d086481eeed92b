export { createValidatingAdmissionPolicy, PLUGIN_NAME, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyOptions } from './plugin.js';
export { startPolicySource, type PolicySource, type PolicyHook } from './policy-source.js';
