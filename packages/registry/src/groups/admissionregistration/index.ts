/** admissionregistration.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { mutatingWebhookConfigurationOverride, validatingWebhookConfigurationOverride } from './webhook-configurations.js';

export const admissionregistrationOverrides: GroupOverrides = {
  mutatingwebhookconfigurations: mutatingWebhookConfigurationOverride,
  validatingwebhookconfigurations: validatingWebhookConfigurationOverride,
};
