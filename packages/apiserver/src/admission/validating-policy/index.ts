export { createValidatingAdmissionPolicy, PLUGIN_NAME, type ValidatingAdmissionPolicy } from './plugin.js';
export { startPolicySource, type PolicySource, type PolicyHook } from './policy-source.js';
