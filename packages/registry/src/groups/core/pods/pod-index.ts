/**
 * Pods as the watch cache indexes them: by `spec.nodeName`, which every kubelet (and KWOK
 * node) lists and watches its pods by. The selectable fields themselves are the pods'
 * (pods.ts in this folder); the index only names which of them it keeps.
 */
export const POD_INDEXED_FIELDS = ['spec.nodeName'] as const;
