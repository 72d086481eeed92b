/** admissionregistration.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { mutatingWebhookConfigurationOverride, validatingWebhookConfigurationOverride } from './webhook-configurations.js';
import { validatingAdmissionPolicyBindingOverride, validatingAdmissionPolicyOverride } from './validating-admission-policies.js';

export const admissionregistrationOverrides: GroupOverrides = {
  mutatingwebhookconfigurations: mutatingWebhookConfigurationOverride,
  validatingwebhookconfigurations: validatingWebhookConfigurationOverride,
  validatingadmissionpolicies: validatingAdmissionPolicyOverride,
  validatingadmissionpolicybindings: validatingAdmissionPolicyBindingOverride,
};
