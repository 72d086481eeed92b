/** storage.k8s.io: hand-written behaviour by resource. */
import type { GroupOverrides } from '../../builtin/override.js';
import { withBehaviour } from '../../builtin/override.js';
import { csiDriverColumns, csiNodeColumns, storageClassColumns, volumeAttachmentColumns, volumeAttributesClassColumns } from './columns.js';

export const storageOverrides: GroupOverrides = {
  // kube's CSIDriver strategy sets no generation on create and counts spec changes from there.
  csidrivers: (generated) => ({ ...generated, managesGeneration: 'onUpdate', printerColumns: csiDriverColumns }),
  storageclasses: withBehaviour({ printerColumns: storageClassColumns }),
  csinodes: withBehaviour({ printerColumns: csiNodeColumns }),
  volumeattachments: withBehaviour({ printerColumns: volumeAttachmentColumns }),
  volumeattributesclasses: withBehaviour({ printerColumns: volumeAttributesClassColumns }),
};
