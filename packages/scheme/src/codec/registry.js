// @ts-check
/**
 * What the value codec knows beyond its built-in types, node-wide: the codecs other
 * modules and packages register for their classes (pids, tags, nodes, spaces, ports,
 * parameters), by tag and by prototype; and the record types met on the wire, by uid.
 *
 * Invariants: a class has one codec and a tag names one class (registering again
 * replaces, so each package registers its classes once, at load); a codec is found by
 * its value's exact prototype (a subclass of a registered class has none of its own);
 * no codec is registered for Array or Uint8Array (vectors and bytevectors), so the
 * one-pass and two-pass encoders, which test for those in different orders, write the
 * same bytes. A record type uid names one record type per node: decoding the same uid
 * twice gives the same descriptor, so records of one type sent twice stay of one type.
 */
import { RecordType } from '../values.js';

/**
 * Codecs for types defined by other packages (pids, tags, nodes, ports, parameters).
 * @typedef {object} ExtensionCodec
 * @property {Function} cls
 * @property {number} tag
 * @property {boolean} [shareable] whether identity must be preserved
 * @property {boolean} [single] the tag wraps one value (encode returns [value]) instead of an array
 * @property {boolean} [leaf] encode never returns an object that the value's other parts
 *   could also reach (only atoms, or arrays made afresh), so sharing is not looked for below it
 * @property {(x: any) => any[]} encode   fields (Scheme values) of x
 * @property {(fields: any[], ctx: import('./decode.js').DecodeContext) => any} decode
 * @property {object} [proto] cls.prototype (set by registerValueCodec)
 * @property {(bytes: Uint8Array, d: {pos: number}) => any} [decodeKnown] a value decoded
 *   before, if the item at d.pos is one (d.pos is then moved past it), else undefined:
 *   for a codec whose values recur from message to message (pids)
 * @property {boolean} [keepsWire] the values are immutable and have a `wire` field,
 *   null when made: the one-pass encoder keeps a value's encoding there the first time
 *   and copies it from then on (a pid is encoded in nearly every message)
 */
/** @type {Map<number, ExtensionCodec>} */
export const extensionsByTag = new Map();

/**
 * Codecs by their class's prototype. The encoder used to find a codec under a symbol
 * on the prototype, one property load per object; but that load site sees every class
 * of value, so it is megamorphic, and a map lookup of the prototype costs less.
 * @type {Map<object, ExtensionCodec>}
 */
const extensionsByProto = new Map();

/** @param {ExtensionCodec} codec */
export function registerValueCodec(codec) {
  // the one-pass encoder tests for vectors and bytevectors before it looks for a codec,
  // the two-pass encoder after: with no codec for those classes both write the same bytes
  if (codec.cls === Array || codec.cls === Uint8Array || codec.cls.prototype instanceof Array || codec.cls.prototype instanceof Uint8Array) {
    throw new TypeError('a value codec cannot be registered for an Array or Uint8Array class');
  }
  codec.proto = codec.cls.prototype;
  extensionsByTag.set(codec.tag, codec);
  extensionsByProto.set(codec.cls.prototype, codec);
}

/**
 * The extension codec of an object's own class (a subclass of a registered class
 * has none of its own), or undefined.
 * @param {any} x @returns {ExtensionCodec | undefined}
 */
export function extensionOf(x) {
  // by the exact prototype, in a map: a property load (x.constructor, or a symbol on the
  // prototype) at a site that sees every class of value is megamorphic, and this is on
  // every message's path (a pid in a message cost ~2 µs on a busy daemon)
  return extensionsByProto.get(Object.getPrototypeOf(x));
}

/** @type {Map<string, RecordType>} */
const recordTypes = new Map();

/**
 * The node-wide record type with this uid (created on first sight).
 * @param {string} uid @param {string} name @param {string[]} fields
 */
export function internRecordType(uid, name, fields) {
  let rtd = recordTypes.get(uid);
  if (rtd === undefined) {
    rtd = new RecordType(name, fields, uid);
    recordTypes.set(uid, rtd);
  }
  return rtd;
}
