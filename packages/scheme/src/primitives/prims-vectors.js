// @ts-check
/**
 * R7RS §6.8 vectors and §6.9 bytevectors (string->vector and vector->string are with the
 * strings). A vector is a JS Array, a bytevector a Uint8Array (values.js).
 *
 * Vector literals are frozen (values.js freezeLiteral): vector-set!, vector-fill! and
 * vector-copy! into one signal "cannot mutate a literal constant" (kind 'immutable').
 * make-vector, vector->list, list->vector, vector-copy, vector-fill!, vector-copy! and
 * vector-append are resumable builtins, in resumable-vectors.js.
 * A Uint8Array cannot be frozen, so bytevector literals are remembered in a weak set
 * (values.js isFrozenBytevector) and bytevector-u8-set! and bytevector-copy! check it.
 */
import { Pair, VOID, schemeErrorOf, isFrozenBytevector } from '../values.js';
import { definePrimitive } from '../engine/registry.js';
import { charge, walked, built } from '../engine/engine.js';
import { absent, typeError, immutableError, checkIndex, checkRange, checkLength, checkStringSize } from './prims-errors.js';
import { checkString, unitRange } from './prims-strings.js';
import './resumable-vectors.js';

// ---------------------------------------------------------------------------------------
// §6.8 Vectors

/** @param {string} who @param {any} v @returns {any[]} */
function checkVector(who, v) {
  if (Array.isArray(v)) return v;
  return typeError(who, 'a vector', v);
}

/** @param {string} who @param {any} v @returns {any[]} */
function checkMutableVector(who, v) {
  checkVector(who, v);
  if (Object.isFrozen(v)) immutableError(who, 'cannot mutate a literal constant', v);
  return v;
}

/** @param {any} v @param {any} k */
function vectorRef(v, k) {
  checkVector('vector-ref', v);
  return v[checkIndex('vector-ref', k, v.length)];
}

/** @param {any} v @param {any} k @param {any} x */
function vectorSet(v, k, x) {
  checkMutableVector('vector-set!', v);
  v[checkIndex('vector-set!', k, v.length)] = x;
  return VOID;
}

/**
 * Check the arguments of vector-copy! / bytevector-copy! and return [at, start, end].
 * @param {string} who @param {{length: number}} to @param {any} at
 * @param {{length: number}} from @param {any} start @param {any} end
 * @returns {[number, number, number]}
 */
function copyArgs(who, to, at, from, start, end) {
  const [a, b] = checkRange(who, start, end, from.length);
  const [t] = checkRange(who, at, undefined, to.length);
  if (to.length - t < b - a) schemeErrorOf('range', who, 'not enough room in the destination', at, b - a, to.length);
  return [t, a, b];
}

definePrimitive('vector?', 1, 1, (/** @type {any} */ x) => Array.isArray(x), { pure: true });
definePrimitive('vector', 0, -1, (/** @type {any[]} */ ...xs) => xs);
definePrimitive('vector-length', 1, 1, (/** @type {any} */ v) => checkVector('vector-length', v).length, { pure: true });
definePrimitive('vector-ref', 2, 2, vectorRef, { pure: true });
definePrimitive('vector-set!', 3, 3, vectorSet);

// ---------------------------------------------------------------------------------------
// §6.9 Bytevectors

/** @param {string} who @param {any} b @returns {Uint8Array} */
function checkBytevector(who, b) {
  if (b instanceof Uint8Array) return b;
  return typeError(who, 'a bytevector', b);
}

/** @param {string} who @param {any} b @returns {Uint8Array} */
export function checkMutableBytevector(who, b) {
  checkBytevector(who, b);
  if (isFrozenBytevector(b)) immutableError(who, 'cannot mutate a literal constant', b);
  return b;
}

/** @param {string} who @param {any} x @returns {number} */
export function checkByte(who, x) {
  if (typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 255) return x;
  return typeError(who, 'a byte (an exact integer from 0 to 255)', x);
}

/** @param {any} k @param {any} [fill] */
function makeBytevector(k, fill) {
  const n = checkLength('make-bytevector', k);
  charge(walked(n >>> 4)); // bytes are filled 16 at a time
  const bv = new Uint8Array(n);
  if (!absent(fill)) bv.fill(checkByte('make-bytevector', fill));
  return bv;
}

/** @param {any[]} xs */
function bytevector(...xs) {
  return Uint8Array.from(xs, (x) => checkByte('bytevector', x));
}

/** @param {any} b @param {any} k */
function bytevectorRef(b, k) {
  checkBytevector('bytevector-u8-ref', b);
  return b[checkIndex('bytevector-u8-ref', k, b.length)];
}

/** @param {any} b @param {any} k @param {any} x */
function bytevectorSet(b, k, x) {
  checkMutableBytevector('bytevector-u8-set!', b);
  b[checkIndex('bytevector-u8-set!', k, b.length)] = checkByte('bytevector-u8-set!', x);
  return VOID;
}

/** @param {any} b @param {any} start @param {any} end */
function bytevectorCopy(b, start, end) {
  checkBytevector('bytevector-copy', b);
  const [s, e] = checkRange('bytevector-copy', start, end, b.length);
  charge(walked((e - s) >>> 4));
  return b.slice(s, e);
}

/** @param {any} to @param {any} at @param {any} from @param {any} start @param {any} end */
function bytevectorCopyBang(to, at, from, start, end) {
  checkMutableBytevector('bytevector-copy!', to);
  checkBytevector('bytevector-copy!', from);
  const [t, a, b] = copyArgs('bytevector-copy!', to, at, from, start, end);
  // TypedArray.prototype.set copies correctly when source and target overlap.
  to.set(from.subarray(a, b), t);
  return VOID;
}

/** @param {any[]} bs */
function bytevectorAppend(...bs) {
  let n = 0;
  for (const b of bs) n += checkBytevector('bytevector-append', b).length;
  charge(walked(n >>> 4));
  const out = new Uint8Array(n);
  let i = 0;
  for (const b of bs) {
    out.set(b, i);
    i += b.length;
  }
  return out;
}

/** Keeps a leading U+FEFF: utf8->string is a plain conversion, not a file reader. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decode UTF-8; invalid sequences become U+FFFD (R7RS leaves invalid input unspecified).
 * @param {any} b @param {any} start @param {any} end
 */
function utf8ToString(b, start, end) {
  if (b instanceof Uint8Array) charge(walked(b.length >>> 3));
  checkBytevector('utf8->string', b);
  const [s, e] = checkRange('utf8->string', start, end, b.length);
  checkStringSize('utf8->string', e - s); // bytes: at least as many as the characters
  return decoder.decode(b.subarray(s, e));
}

/** @param {any} str @param {any} start @param {any} end */
function stringToUtf8(str, start, end) {
  str = checkString('string->utf8', str);
  charge(walked(str.length >>> 3));
  const [s, e] = unitRange('string->utf8', str, start, end);
  checkStringSize('string->utf8', e - s); // a longer string (from a message) goes in pieces
  return encoder.encode(str.slice(s, e));
}

definePrimitive('bytevector?', 1, 1, (/** @type {any} */ x) => x instanceof Uint8Array, { pure: true });
definePrimitive('make-bytevector', 1, 2, makeBytevector);
definePrimitive('bytevector', 0, -1, bytevector);
definePrimitive('bytevector-u8-ref', 2, 2, bytevectorRef, { pure: true });
definePrimitive('bytevector-u8-set!', 3, 3, bytevectorSet);
definePrimitive('bytevector-length', 1, 1, (/** @type {any} */ b) => checkBytevector('bytevector-length', b).length, { pure: true });
definePrimitive('bytevector-copy', 1, 3, bytevectorCopy);
definePrimitive('bytevector-copy!', 3, 5, bytevectorCopyBang);
definePrimitive('bytevector-append', 0, -1, bytevectorAppend);
definePrimitive('utf8->string', 1, 3, utf8ToString, { pure: true });
definePrimitive('string->utf8', 1, 3, stringToUtf8);
