// @ts-check
/**
 * The encoder's fallback: objects it has no rule for (Date, Set, typed
 * arrays other than Uint8Array, class instances, ...) are encoded by
 * cbor-x, the one place this package uses it for encoding.
 *
 * Invariant: the options make cbor-x write plain CBOR (no record
 * extension, no typed-array tags, no packing), so the core can validate
 * and canonicalise what it produces; a value cbor-x cannot encode throws
 * EncodeError naming its type.
 */
import { Encoder } from 'cbor-x';
import { EncodeError } from './errors.js';

const fallback = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false, pack: false });

/**
 * The CBOR bytes cbor-x writes for v.
 * @param {object} v
 * @returns {Uint8Array}
 */
export function fallbackEncode(v) {
  try {
    return fallback.encode(v);
  } catch (e) {
    throw new EncodeError(`cannot encode ${Object.prototype.toString.call(v)} as CBOR: ${/** @type {Error} */ (e).message}`);
  }
}
