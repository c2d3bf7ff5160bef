// @ts-check
/**
 * Values to bytes: the value codec's encoders and the slab they write into.
 *
 * encodeValue tries the one-pass encoder first (encodeSmall: most messages and frames
 * are small, and it needs neither findShared's walk nor a work stack) and falls back to
 * the two-pass encoder (encodeAnyValue: sharing.js finds shared objects, emit.js writes).
 *
 * Invariants: both encoders give the same bytes for every value the one-pass encoder
 * accepts, so which one ran is never visible on the wire (test/serialize.test.js
 * compares them). Encodings are written into one shared slab (SlabWriter) and handed
 * out as views of it; an encoding started while another is in progress (an extension
 * codec that encodes) gets a writer of its own (two-pass) or is refused by the one-pass
 * encoder (scratchBusy). The one-pass encoder keeps no object alive after it returns.
 * A closure is small only when the caller gives the one-pass encoder an onCode (which
 * then sees its unit, before anything after the closure is written) and no other
 * closure of the value has the same code (the two-pass encoder would share that code
 * reference); continuations are never small. So onCode sees every unit that travels.
 * A unit's code reference is encoded once and its bytes kept (codeRefBytes): a remote
 * spawn of the same code again writes them as they are.
 */
import { CborWriter, SlabWriter } from './writer.js';
import { Pair, MString, Closure } from '../values.js';
import { TAG_LIST, TAG_DOTTED, TAG_CLOSURE, TAG_CODE } from './tags.js';
import { codeRefOf } from './code-ref.js';
import { extensionOf } from './registry.js';
import { findShared } from './sharing.js';
import { emit, emitAtom, emitMutableString, setStringsAsText, stringsAsText } from './emit.js';

/**
 * Encode a Scheme value.
 * @param {any} value
 * @param {{onCode?: (unit: any) => void, stringsAsText?: boolean}} [opts] onCode: called
 *   with the unit instance of every procedure and frame encoded (so a sender can say
 *   which environments travel); stringsAsText: mutable strings written as plain text,
 *   like immutable ones (tuples, which the store matches by their bytes)
 * @returns {Uint8Array}
 */
export function encodeValue(value, opts) {
  if (opts?.stringsAsText !== true) return encodeSmallValue(value) ?? encodeAnyValue(value, opts);
  setStringsAsText(true);
  try {
    return encodeSmallValue(value) ?? encodeAnyValue(value, opts);
  } finally {
    setStringsAsText(false);
  }
}

/**
 * encodeValue without its small-value pass: the two-pass encoder every value goes
 * through when it is not small (for callers that know their value is large — a
 * continuation — and for tests, which compare the two).
 * @param {any} value
 * @param {{onCode?: (unit: any) => void, stringsAsText?: boolean}} [opts]
 * @returns {Uint8Array}
 */
export function encodeAnyValue(value, opts = {}) {
  const shared = findShared(value, opts.onCode);
  // the bytes go straight into a shared slab (SlabWriter); re-entered (an extension
  // codec encoding while an encoding is in progress), a writer of its own
  if (scratchBusy) {
    const own = new CborWriter();
    emit(value, own, shared);
    return own.bytes();
  }
  scratchBusy = true;
  scratch.begin();
  try {
    emit(value, scratch, shared);
    return scratch.end();
  } catch (e) {
    scratch.abandon();
    throw e;
  } finally {
    scratchBusy = false;
  }
}

const scratch = new SlabWriter();
let scratchBusy = false;

/**
 * Bytes free in front of an encoding just returned by encodeSmallValue, encodeSmallBetween
 * or encodeAnyValue, which its holder may overwrite (a frame's envelope written there
 * instead of copying the encoding behind it): HEADROOM (writer.js) for a large encoding,
 * 0 for one in the shared slab. Valid until the next encoding starts.
 * @param {Uint8Array} bytes
 */
export function encodedSpare(bytes) {
  return scratch.spareBefore(bytes);
}

/**
 * encodeValue's bytes for a small value, in one pass, or null when the value is not
 * small. Small: built of numbers, text, booleans, atoms (symbols, characters, flonums,
 * ...), leaf extensions (pids, tags, node references), and at most SMALL_OBJECTS
 * pairs, vectors, bytevectors, mutable strings, other extensions (parameters, ports)
 * and closures with their code references, none reached twice, nested at most
 * SMALL_DEPTH deep; closures only with an onCode (which sees each one's unit),
 * continuations never. That is most messages and frames; the general encoder's first
 * pass (findShared) and its work stack cost several times more for them.
 * With `onCode`, a closure whose free values are small is small too (onCode is called
 * with its unit as it is met, even when the value then turns out not to be small).
 * @param {any} value
 * @param {((unit: any) => void) | null} [onCode]
 * @returns {Uint8Array | null}
 */
export function encodeSmallValue(value, onCode = null) {
  smallOnCode = onCode;
  try {
    return encodeSmall(null, value, null, 0, 0);
  } finally {
    smallOnCode = null;
  }
}

/**
 * encodeSmallValue of an array whose items before the last two are already encoded:
 * `head` holds the array's head and those items, `value` is the next item and `tail`
 * the encoding of the last one. The same bytes as encodeSmallValue of the whole array
 * (the array and the last item count among its objects), or null when `value` is not
 * small. A node encodes each message to a pid this way, with the pid's part cached.
 * @param {Uint8Array} head @param {any} value @param {Uint8Array} tail
 * @returns {Uint8Array | null}
 */
export function encodeSmallBetween(head, value, tail) {
  return encodeSmall(head, value, tail, 2, 1);
}

/**
 * The one-pass encoding of `value` between bytes already encoded, or null.
 * @param {Uint8Array | null} head @param {any} value @param {Uint8Array | null} tail
 * @param {number} counted objects of the enclosing value already counted
 * @param {number} depth the value's depth in the enclosing value
 */
function encodeSmall(head, value, tail, counted, depth) {
  if (scratchBusy) return null;
  scratchBusy = true;
  scratch.begin();
  smallCount = counted;
  try {
    if (head !== null) scratch.raw(head);
    if (emitSmall(value, scratch, depth)) {
      if (tail !== null) scratch.raw(tail);
      return scratch.end();
    }
    scratch.abandon();
    return null;
  } catch (e) {
    scratch.abandon();
    throw e;
  } finally {
    scratchBusy = false;
    for (let i = counted; i < smallCount; i++) smallSeen[i] = undefined; // keep nothing alive
  }
}

/** How many pairs, vectors and bytevectors a small value may have, and how deep it may nest. */
const SMALL_OBJECTS = 32;
const SMALL_DEPTH = 16;
/** The objects of the small value being encoded (the first smallCount entries). */
const smallSeen = new Array(SMALL_OBJECTS).fill(undefined);
let smallCount = 0;
/** encodeSmallValue's onCode while it runs: closures are small only with one. @type {((unit: any) => void) | null} */
let smallOnCode = null;

/**
 * The encoding of a unit's code reference (tag 40978 [hash env]), made on first use and
 * kept: a unit has one code reference object (code-ref.js), which never changes, and a
 * repeated remote spawn of the same code writes these bytes as they are. Weakly held,
 * so a unit that is dropped takes its bytes with it.
 * @type {WeakMap<object, Uint8Array>}
 */
const codeRefBytes = new WeakMap();
/** The last code reference encoded and its bytes (a spawn loop sends one code again and again). */
let lastRef = /** @type {object | null} */ (null);
let lastRefBytes = /** @type {Uint8Array} */ (new Uint8Array(0));

/** @param {{hash: string, env: string}} ref */
function codeRefEncoding(ref) {
  if (ref === lastRef) return lastRefBytes;
  let bytes = codeRefBytes.get(ref);
  if (bytes === undefined) {
    const w = new CborWriter(128);
    w.tag(TAG_CODE);
    w.array(2);
    w.text(ref.hash);
    w.text(ref.env);
    bytes = w.bytes();
    codeRefBytes.set(ref, bytes);
  }
  lastRef = ref;
  lastRefBytes = bytes;
  return bytes;
}

/**
 * emit()'s encoding of a closure with no shared objects (false when it is not small):
 * its code reference's kept bytes, its lambda's index, its free values.
 * @param {Closure} x @param {CborWriter} w @param {number} depth
 */
function emitSmallClosure(x, w, depth) {
  if (smallOnCode === null || !firstSight(x)) return false;
  const ref = codeRefOf(x.lam);
  // a second closure of the same code: the two-pass encoder writes its reference once
  if (!firstSight(ref)) return false;
  smallOnCode(x.lam.unit);
  const fv = x.fv ?? [];
  w.tag(TAG_CLOSURE);
  w.array(2 + fv.length);
  w.raw(codeRefEncoding(ref));
  // a number, or a name for the builtin unit's lambdas, as emit writes it
  if (!emitSmall(x.lam.index, w, depth + 1)) return false;
  for (let i = 0; i < fv.length; i++) if (!emitSmall(fv[i], w, depth + 1)) return false;
  return true;
}

/**
 * Note a pair, vector or bytevector of a small value: false if it was reached before
 * (the value shares it, and needs tags 28/29) or the value has too many of them.
 * @param {object} x
 */
function firstSight(x) {
  for (let i = 0; i < smallCount; i++) if (smallSeen[i] === x) return false;
  if (smallCount === SMALL_OBJECTS) return false;
  smallSeen[smallCount++] = x;
  return true;
}

/**
 * emit()'s encoding of x (with no shared objects), false as soon as x turns out not
 * to be small (whatever was written is then abandoned).
 * @param {any} x @param {CborWriter} w @param {number} depth
 * @returns {boolean}
 */
function emitSmall(x, w, depth) {
  switch (typeof x) {
    case 'number':
      w.int(x);
      return true;
    case 'string':
      w.text(x);
      return true;
    case 'boolean':
      w.bool(x);
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (x === null) {
    w.nil();
    return true;
  }
  if (depth === SMALL_DEPTH) return false;
  if (x instanceof Pair) {
    // a list is flat up to its first non-pair tail, as emit writes it
    let n = 0;
    let p = x;
    for (; p instanceof Pair; p = p.cdr) {
      if (!firstSight(p)) return false;
      n++;
    }
    if (p === null) {
      w.tag(TAG_LIST);
      w.array(n);
    } else {
      w.tag(TAG_DOTTED);
      w.array(n + 1);
    }
    for (let q = x; q instanceof Pair; q = q.cdr) if (!emitSmall(q.car, w, depth + 1)) return false;
    return p === null || emitSmall(p, w, depth + 1);
  }
  // vectors first: no extension is registered for Array or Uint8Array, and asking an
  // array for the codec symbol is a megamorphic load (every frame is an array)
  if (Array.isArray(x)) {
    if (!firstSight(x)) return false;
    w.array(x.length);
    for (let i = 0; i < x.length; i++) if (!emitSmall(x[i], w, depth + 1)) return false;
    return true;
  }
  if (x instanceof Uint8Array) {
    if (!firstSight(x)) return false;
    w.byteString(x);
    return true;
  }
  if (x instanceof MString) {
    if (!stringsAsText() && !firstSight(x)) return false;
    emitMutableString(x, w);
    return true;
  }
  const ext = extensionOf(x);
  if (ext !== undefined) {
    // a pid met before: its kept bytes, on every message's path, with no further call
    if (ext.keepsWire === true && ext.leaf === true && x.wire !== null) {
      w.raw(x.wire);
      return true;
    }
    return emitSmallExtension(x, ext, w, depth);
  }
  if (x instanceof Closure) return emitSmallClosure(x, w, depth);
  return emitAtom(x, w);
}

/**
 * emit()'s encoding of a value of a registered class, false when it is not small.
 * Below a leaf nothing can be shared; another extension (a parameter, a port) is small
 * when it and every object its fields reach are met once (firstSight).
 * @param {any} x @param {import('./registry.js').ExtensionCodec} ext @param {CborWriter} w @param {number} depth
 */
function emitSmallExtension(x, ext, w, depth) {
  if (ext.leaf !== true && !firstSight(x)) return false;
  if (ext.keepsWire === true && x.wire !== null) {
    w.raw(x.wire);
    return true;
  }
  const start = w.mark();
  const fields = ext.encode(x);
  w.tag(ext.tag);
  if (ext.single) {
    if (!emitSmall(fields[0], w, depth + 1)) return false;
  } else {
    w.array(fields.length);
    for (let i = 0; i < fields.length; i++) if (!emitSmall(fields[i], w, depth + 1)) return false;
  }
  if (ext.keepsWire === true) x.wire = w.since(start);
  return true;
}
