// @ts-check
/**
 * The value codec's one error: a value that cannot be encoded, or bytes that do not
 * decode to a value. Callers (a node receiving a frame, a snapshot being restored) catch
 * it to refuse the input; any other exception out of the codec is a bug.
 */

/** Raised for values that cannot be encoded or bytes that do not decode. */
export class CodecError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'CodecError';
  }
}
