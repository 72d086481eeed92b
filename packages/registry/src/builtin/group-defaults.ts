/** Each API group's defaulting (groups/<group>/defaults.ts), by group name; served.ts composes them into the definitions. */
import type { GroupDefaults } from './defaults.js';
import { apiregistrationDefaults } from '../groups/apiregistration/defaults.js';
import { coreDefaults } from '../groups/core/defaults.js';
import { flowcontrolDefaults } from '../groups/flowcontrol/defaults.js';
import { networkingDefaults } from '../groups/networking/defaults.js';
import { rbacDefaults } from '../groups/rbac/defaults.js';
import { schedulingDefaults } from '../groups/scheduling/defaults.js';
import { storageDefaults } from '../groups/storage/defaults.js';

export const GROUP_DEFAULTS: Readonly<Record<string, GroupDefaults>> = {
  '': coreDefaults,
  'apiregistration.k8s.io': apiregistrationDefaults,
  'flowcontrol.apiserver.k8s.io': flowcontrolDefaults,
  'networking.k8s.io': networkingDefaults,
  'rbac.authorization.k8s.io': rbacDefaults,
  'scheduling.k8s.io': schedulingDefaults,
  'storage.k8s.io': storageDefaults,
};
