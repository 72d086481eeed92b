/** The one error a body decoder throws for a malformed body. */

/**
 * A body that does not decode. `detail` is the decoder's own text in Go's wording (`yaml:
 * line 3: ...`, `invalid character '[' exceeded max depth`); each caller wraps it in kube's
 * message for its verb (object bodies, patches, apply configurations).
 */
export class BodyDecodeError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'BodyDecodeError';
  }
}
