/** Wire-visible messages storage errors carry (kube-apiserver's exact text). */

/** Expired: an Exact (or legacy exact) list at a compacted revision. */
export const listTooOldMessage = 'The resourceVersion for the provided list is too old.';

/** Expired: a continue token whose revision is compacted; comes with an rv -1 token. */
export const continueTooOldMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** Expired: as above when no rv -1 token could be made. */
export const continueTooOldShortMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

/** InvalidContinue: a resourceVersion sent together with a continue token. */
export const resourceVersionWithContinueMessage = 'specifying resource version is not allowed when using continue';

/** Expired: a watch whose start revision is compacted (sent in-band as an ERROR event). */
export const watchTooOldMessage = 'The resourceVersion for the provided watch is too old.';

/** The annotation on the BOOKMARK that ends a watch's initial events. */
export const initialEventsEndAnnotation = 'k8s.io/initial-events-end';
