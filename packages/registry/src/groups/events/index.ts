/** events.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { eventsApiOverride } from './events.js';

export const eventsOverrides: GroupOverrides = { events: eventsApiOverride };
