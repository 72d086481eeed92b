/** admissionregistration.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { validatingAdmissionPolicyBindingOverride, validatingAdmissionPolicyOverride } from './validating-admission-policies.js';

export const admissionregistrationOverrides: GroupOverrides = {
  validatingadmissionpolicies: validatingAdmissionPolicyOverride,
  validatingadmissionpolicybindings: validatingAdmissionPolicyBindingOverride,
};
