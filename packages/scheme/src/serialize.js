// @ts-check
/**
 * The value codec: any Scheme value — including procedures and continuations — to
 * deterministic CBOR and back (docs/wire-format.md has the tag table).
 *
 * Identity: objects with identity (pairs, vectors, bytevectors, boxes, closures,
 * frames, records) that are reached more than once are encoded once, marked with tag
 * 28, and referred to by tag 29 afterwards, so shared structure and cycles survive a
 * round trip. Lists and continuation-frame chains are encoded as flat arrays (split
 * where an inner pair or frame is shared), so a 1,000,000-element list or a
 * 100,000-frame continuation costs no recursion. Encoding is iterative; decoding is
 * recursive only in the nesting depth of the data (bounded, with a clear error).
 *
 * Code: a closure is [code, lambda index, free values...] and a frame
 * [code, lambda index, label, slots...], where code = [unit hash, environment id] is
 * itself shared. The decoder resolves code through a caller-supplied `resolveCode`
 * (which may load the unit; a node that lacks it must fetch the IR before decoding).
 */
import { CborWriter, SlabWriter } from './cbor-writer.js';
import {
  Pair, Flonum, Ratnum, Sym, Char, Closure, Frame, Box, Record, RecordType, Values,
  ErrorObject, Special, VOID, EOF, DEFAULT, UNIT_HASH, UNASSIGNED, arrayToList, CALL,
} from './values.js';

export const TAG_SHAREABLE = 28;
export const TAG_SHAREDREF = 29;
export const TAG_RATIONAL = 30;
export const TAG_SYMBOL = 40960;
export const TAG_CHAR = 40961;
export const TAG_LIST = 40962;
export const TAG_DOTTED = 40963;
export const TAG_VOID = 40964;
export const TAG_EOF = 40965;
export const TAG_DEFAULT = 40966;
export const TAG_VALUES = 40967;
export const TAG_RECORD_TYPE = 40968;
export const TAG_RECORD = 40969;
export const TAG_CLOSURE = 40970;
export const TAG_FRAMES = 40971;
export const TAG_BOX = 40972;
export const TAG_ERROR = 40973;
export const TAG_PARAMETER = 40977;
export const TAG_CODE = 40978;
export const TAG_UNIT_HASH = 40979;
export const TAG_UNINTERNED = 40980;
export const TAG_UNASSIGNED = 40981;
export const TAG_PORT = 40982;

/** Raised for values that cannot be encoded or bytes that do not decode. */
export class CodecError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'CodecError';
  }
}

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
 * @property {(fields: any[], ctx: DecodeContext) => any} decode
 * @property {object} [proto] cls.prototype (set by registerValueCodec)
 * @property {(bytes: Uint8Array, d: {pos: number}) => any} [decodeKnown] a value decoded
 *   before, if the item at d.pos is one (d.pos is then moved past it), else undefined:
 *   for a codec whose values recur from message to message (pids)
 * @property {boolean} [keepsWire] the values are immutable and have a `wire` field,
 *   null when made: the one-pass encoder keeps a value's encoding there the first time
 *   and copies it from then on (a pid is encoded in nearly every message)
 */
/** @type {Map<number, ExtensionCodec>} */
const extensionsByTag = new Map();

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
function extensionOf(x) {
  // by the exact prototype, in a map: a property load (x.constructor, or a symbol on the
  // prototype) at a site that sees every class of value is megamorphic, and this is on
  // every message's path (a pid in a message cost ~2 µs on a busy daemon)
  return extensionsByProto.get(Object.getPrototypeOf(x));
}

/**
 * How a closure's code is named on the wire: the unit it belongs to.
 * @param {any} lam a LambdaInfo
 * @returns {{hash: string, env: string}}
 */
function codeRefOf(lam) {
  const unit = lam.unit;
  if (!unit || typeof unit.hash !== 'string') throw new CodecError(`cannot serialize procedure ${lam.name}: its code has no identity`);
  return unit.codeRef ?? (unit.codeRef = { hash: unit.hash, env: unit.env?.id ?? unit.envId ?? 'rt' });
}

/** @param {any} x */
function isShareable(x) {
  return (
    x instanceof Pair || Array.isArray(x) || x instanceof Uint8Array || x instanceof Closure ||
    x instanceof Frame || x instanceof Box || x instanceof Record || x instanceof RecordType ||
    x instanceof ErrorObject || x instanceof Values || (x !== null && typeof x === 'object' && extensionOf(x)?.shareable === true)
  );
}

/**
 * Encode a Scheme value.
 * @param {any} value
 * @param {{onCode?: (unit: any) => void}} [opts] onCode: called with the unit instance of
 *   every procedure and frame encoded (so a sender can say which environments travel)
 * @returns {Uint8Array}
 */
export function encodeValue(value, opts) {
  return encodeSmallValue(value) ?? encodeAnyValue(value, opts);
}

/**
 * encodeValue without its small-value pass: the two-pass encoder every value goes
 * through when it is not small (for callers that know their value is large — a
 * continuation — and for tests, which compare the two).
 * @param {any} value
 * @param {{onCode?: (unit: any) => void}} [opts]
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
 * encodeValue's bytes for a small value, in one pass, or null when the value is not
 * small. Small: built of numbers, text, booleans, atoms (symbols, characters, flonums,
 * ...), leaf extensions (pids, tags, node references), and at most SMALL_OBJECTS
 * pairs, vectors and bytevectors, none reached twice, nested at most SMALL_DEPTH deep,
 * and no procedure. That is most messages and frames; the general encoder's first
 * pass (findShared) and its work stack cost several times more for them. A value
 * with code is never small, so encodeValue's onCode has nothing to miss.
 * @param {any} value
 * @returns {Uint8Array | null}
 */
export function encodeSmallValue(value) {
  return encodeSmall(null, value, null, 0, 0);
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
const SMALL_OBJECTS = 16;
const SMALL_DEPTH = 16;
/** The objects of the small value being encoded (the first smallCount entries). */
const smallSeen = new Array(SMALL_OBJECTS).fill(undefined);
let smallCount = 0;

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
  const ext = extensionOf(x);
  if (ext !== undefined) {
    if (ext.leaf !== true) return false;
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
  return emitAtom(x, w);
}

/**
 * Objects reached more than once (count 2) — the ones that need tag 28/29 — or null
 * when no object is (the common case: emit then skips every identity lookup).
 * @param {any} root @param {((unit: any) => void)|undefined} onCode
 * @returns {SeenCounts | null} object → 1 (seen once) or 2 (shared)
 */
function findShared(root, onCode) {
  const seen = new SeenCounts();
  let sharing = false;
  const stack = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object') continue;
    if (x instanceof Pair) {
      // the commonest case first; a pair is shareable and has no code
      if (seen.bump(x)) sharing = true;
      else stack.push(x.car, x.cdr);
      continue;
    }
    // a codec whose fields are never objects (pids, tags, node references): nothing
    // below it can be shared, and its fields need not be listed
    const ext = extensionOf(x);
    if (ext !== undefined && ext.leaf === true) continue;
    if (x instanceof Closure || x instanceof Frame) {
      const ref = codeRefOf(x.lam);
      if (onCode !== undefined && seen.get(ref) === undefined) onCode(x.lam.unit);
      if (seen.bump(ref)) sharing = true;
    }
    if (!isShareable(x)) {
      if (x instanceof Record || x instanceof ErrorObject) continue;
      if (ext) for (const f of ext.encode(x)) stack.push(f);
      continue;
    }
    if (seen.bump(x)) sharing = true;
    else pushChildren(x, stack);
  }
  return sharing ? seen : null;
}

/** How many encodings of small values keep their seen objects in arrays. */
const SEEN_SMALL = 16;

/**
 * Objects seen by findShared and how often (1 or 2). A message is usually a few
 * objects: they are kept in two short arrays searched linearly, which costs less than
 * a Map's hashing; past SEEN_SMALL objects a Map takes over.
 */
class SeenCounts {
  constructor() {
    /** @type {any[]} */
    this.keys = [];
    /** @type {number[]} */
    this.counts = [];
    /** @type {Map<any, number> | null} */
    this.map = null;
  }

  /** @param {any} x @returns {number | undefined} */
  get(x) {
    if (this.map !== null) return this.map.get(x);
    const i = this.keys.indexOf(x);
    return i < 0 ? undefined : this.counts[i];
  }

  /**
   * Count one more sighting of x; true if it had been seen before (it is shared).
   * @param {any} x
   */
  bump(x) {
    const map = this.map;
    if (map !== null) {
      const had = map.has(x);
      map.set(x, had ? 2 : 1);
      return had;
    }
    const i = this.keys.indexOf(x);
    if (i >= 0) {
      this.counts[i] = 2;
      return true;
    }
    if (this.keys.length < SEEN_SMALL) {
      this.keys.push(x);
      this.counts.push(1);
      return false;
    }
    const m = new Map();
    for (let k = 0; k < this.keys.length; k++) m.set(this.keys[k], this.counts[k]);
    m.set(x, 1);
    this.map = m;
    return false;
  }
}

/** @param {any} x @param {any[]} stack */
function pushChildren(x, stack) {
  if (x instanceof Pair) {
    stack.push(x.car, x.cdr);
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) stack.push(x[i]);
  } else if (x instanceof Closure) {
    if (x.fv) for (const v of x.fv) stack.push(v);
  } else if (x instanceof Frame) {
    for (const v of x.s) stack.push(v);
    stack.push(x.next);
  } else if (x instanceof Box) {
    stack.push(x.v);
  } else if (x instanceof Record) {
    stack.push(x.rtd);
    for (const v of x.f) stack.push(v);
  } else if (x instanceof ErrorObject) {
    stack.push(x.irritants);
  } else if (x instanceof Values) {
    for (const v of x.vals) stack.push(v);
  } else {
    const ext = extensionOf(x);
    if (ext) for (const f of ext.encode(x)) stack.push(f);
  }
}

const CLOSE = Symbol('close'); // no-op marker kept for readability of the work stack

/**
 * Emit in preorder with an explicit work stack.
 * @param {any} root @param {CborWriter} w @param {SeenCounts | null} shared
 */
function emit(root, w, shared) {
  /** @type {Map<any, number>} */
  const marks = shared === null ? EMPTY_MARKS : new Map();
  let nextMark = 0;
  const work = [root];
  while (work.length > 0) {
    const x = work.pop();
    switch (typeof x) {
      case 'number':
        w.int(x);
        continue;
      case 'string':
        w.text(x);
        continue;
      case 'boolean':
        w.bool(x);
        continue;
      case 'bigint':
        w.bigint(x);
        continue;
      case 'object':
        break;
      default:
        if (x === CLOSE) continue;
        throw new CodecError(`cannot serialize a JavaScript ${typeof x}`);
    }
    if (x === null) {
      w.nil();
      continue;
    }
    // objects with identity (only findShared's objects can be shared: atoms below never are)
    if (shared !== null && shared.get(x) === 2) {
      const m = marks.get(x);
      if (m !== undefined) {
        w.tag(TAG_SHAREDREF);
        w.head(0, m);
        continue;
      }
      marks.set(x, nextMark++);
      w.tag(TAG_SHAREABLE);
    }
    // pids, tags, node references...: looked up first, the commonest objects in messages
    const ext = extensionOf(x);
    if (ext !== undefined) {
      const fields = ext.encode(x);
      w.tag(ext.tag);
      if (ext.single) {
        work.push(fields[0]);
        continue;
      }
      w.array(fields.length);
      for (let i = fields.length - 1; i >= 0; i--) work.push(fields[i]);
      continue;
    }
    if (x instanceof Pair) {
      const elems = [x.car];
      let p = x.cdr;
      while (p instanceof Pair && (shared === null || shared.get(p) !== 2)) {
        elems.push(p.car);
        p = p.cdr;
      }
      if (p === null) {
        w.tag(TAG_LIST);
        w.array(elems.length);
      } else {
        w.tag(TAG_DOTTED);
        w.array(elems.length + 1);
        work.push(p);
      }
      for (let i = elems.length - 1; i >= 0; i--) work.push(elems[i]);
      continue;
    }
    if (Array.isArray(x)) {
      w.array(x.length);
      for (let i = x.length - 1; i >= 0; i--) work.push(x[i]);
      continue;
    }
    if (emitAtom(x, w)) continue;
    if (x instanceof Uint8Array) {
      w.byteString(x);
      continue;
    }
    if (x instanceof Closure) {
      const fv = x.fv ?? [];
      w.tag(TAG_CLOSURE);
      w.array(2 + fv.length);
      for (let i = fv.length - 1; i >= 0; i--) work.push(fv[i]);
      work.push(x.lam.index);
      work.push(codeRefOf(x.lam));
      continue;
    }
    if (x instanceof Frame) {
      // a chain of frames, flat until a shared frame (which becomes the tail)
      const frames = [x];
      let f = x.next;
      while (f !== null && (shared === null || shared.get(f) !== 2)) {
        frames.push(f);
        f = f.next;
      }
      w.tag(TAG_FRAMES);
      w.array(frames.length + 1);
      work.push(f);
      for (let i = frames.length - 1; i >= 0; i--) work.push(new FrameBody(frames[i]));
      continue;
    }
    if (x instanceof FrameBody) {
      const fr = x.frame;
      w.array(3 + fr.s.length);
      for (let i = fr.s.length - 1; i >= 0; i--) work.push(fr.s[i]);
      work.push(fr.label);
      work.push(fr.lam.index);
      work.push(codeRefOf(fr.lam));
      continue;
    }
    if (isCodeRef(x)) {
      w.tag(TAG_CODE);
      w.array(2);
      w.text(x.hash);
      w.text(x.env);
      continue;
    }
    if (x instanceof Box) {
      w.tag(TAG_BOX);
      work.push(x.v);
      continue;
    }
    if (x instanceof RecordType) {
      w.tag(TAG_RECORD_TYPE);
      w.array(3);
      w.text(x.uid);
      w.text(x.name);
      w.array(x.fields.length);
      for (const f of x.fields) w.text(f);
      continue;
    }
    if (x instanceof Record) {
      w.tag(TAG_RECORD);
      w.array(1 + x.f.length);
      for (let i = x.f.length - 1; i >= 0; i--) work.push(x.f[i]);
      work.push(x.rtd);
      continue;
    }
    if (x instanceof ErrorObject) {
      w.tag(TAG_ERROR);
      w.array(5);
      work.push(x.loc);
      work.push(x.irritants);
      work.push(x.message);
      work.push(x.who);
      work.push(x.kind);
      continue;
    }
    if (x instanceof Values) {
      w.tag(TAG_VALUES);
      w.array(x.vals.length);
      for (let i = x.vals.length - 1; i >= 0; i--) work.push(x.vals[i]);
      continue;
    }
    throw new CodecError(`cannot serialize ${x.constructor?.name ?? 'this object'}`);
  }
}

/**
 * Emit an object that is a value without identity (a flonum, symbol, character,
 * rational or special constant); false if x is none of these.
 * @param {object} x @param {CborWriter} w
 */
function emitAtom(x, w) {
  if (x instanceof Flonum) {
    w.float(x.v);
  } else if (x instanceof Sym) {
    w.tag(x.interned ? TAG_SYMBOL : TAG_UNINTERNED);
    w.text(x.name);
  } else if (x instanceof Char) {
    w.tag(TAG_CHAR);
    w.head(0, x.code);
  } else if (x instanceof Ratnum) {
    w.tag(TAG_RATIONAL);
    w.array(2);
    w.bigint(x.num);
    w.bigint(x.den);
  } else if (x instanceof Special) {
    const tag = x === VOID ? TAG_VOID : x === EOF ? TAG_EOF : x === DEFAULT ? TAG_DEFAULT : x === UNIT_HASH ? TAG_UNIT_HASH : x === UNASSIGNED ? TAG_UNASSIGNED : -1;
    if (tag < 0) throw new CodecError(`cannot serialize #!${x.name}`);
    w.tag(tag);
    w.nil();
  } else {
    return false;
  }
  return true;
}

/** The marks of an encoding with no shared objects (never written). */
const EMPTY_MARKS = new Map();

class FrameBody {
  /** @param {Frame} frame */
  constructor(frame) {
    this.frame = frame;
  }
}

/** @param {any} x */
function isCodeRef(x) {
  return x !== null && typeof x === 'object' && typeof x.hash === 'string' && typeof x.env === 'string' && Object.keys(x).length === 2;
}

// ---------------------------------------------------------------------------------------
// Decoding

/**
 * @typedef {object} DecodeOptions
 * @property {(hash: string, env: string) => any} [resolveCode] the unit instance (with
 *   `lams`) for a code reference; throws if the node does not have that code
 * @property {(uid: string, name: string, fields: string[]) => RecordType} [resolveRecordType]
 * @property {number} [maxDepth] nesting limit (default 10,000)
 */

/** @typedef {Decoder} DecodeContext */

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** Text up to this many bytes is decoded by shortText when it is ASCII. */
const SHORT_TEXT = 64;
/** Recently decoded short strings, by a hash of their bytes (node ids recur in every frame). */
const TEXT_CACHE_SIZE = 256;
/** @type {string[]} */
const textCache = new Array(TEXT_CACHE_SIZE).fill('');

/**
 * The ASCII text of b[at, at+n) without a TextDecoder call or a subarray (both cost
 * more than the decoding of a short string), null if it is not ASCII. A string seen
 * recently with the same bytes is returned again instead of a new one.
 * @param {Uint8Array} b @param {number} at @param {number} n
 * @returns {string | null}
 */
function shortText(b, at, n) {
  let h = n;
  for (let i = 0; i < n; i++) {
    const c = b[at + i];
    if (c > 0x7f) return null;
    h = (Math.imul(h, 31) + c) | 0;
  }
  const slot = (h ^ (h >>> 16)) & (TEXT_CACHE_SIZE - 1);
  const cached = textCache[slot];
  if (cached.length === n) {
    let i = 0;
    while (i < n && cached.charCodeAt(i) === b[at + i]) i++;
    if (i === n) return cached;
  }
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[at + i]);
  textCache[slot] = s;
  return s;
}

/**
 * Decode one Scheme value; the bytes (from `start` to `end`) must hold exactly one CBOR
 * item.
 * @param {Uint8Array} bytes @param {DecodeOptions} [opts] @param {number} [start] @param {number} [end]
 */
export function decodeValue(bytes, opts = {}, start = 0, end = bytes.length) {
  const d = new Decoder(bytes, opts);
  d.pos = start;
  let v;
  try {
    v = d.item(0);
  } catch (e) {
    // nesting within maxDepth can still exhaust the stack (tags cost two calls a level)
    if (e instanceof RangeError) throw new CodecError(`value nested too deeply to decode (${e.message}) at byte ${d.pos}`);
    throw e;
  }
  if (d.pos !== end) throw new CodecError(d.pos > end ? `the value runs ${d.pos - end} bytes past its end` : `${end - d.pos} trailing bytes after the value`);
  return v;
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

class Decoder {
  /** @param {Uint8Array} bytes @param {DecodeOptions} opts */
  constructor(bytes, opts) {
    this.b = bytes;
    this.pos = 0;
    this.opts = opts;
    this.maxDepth = opts.maxDepth ?? 10000;
    /** @type {any[]} values marked with tag 28, in order */
    this.shared = [];
    /** @type {DataView | null} made on first use (floats, 64-bit integers): most values need none */
    this.view = null;
    /** @type {number | bigint} the argument of the head read last */
    this.arg = 0;
  }

  get dv() {
    return this.view ?? (this.view = new DataView(this.b.buffer, this.b.byteOffset, this.b.byteLength));
  }

  /** @param {string} what */
  fail(what) {
    throw new CodecError(`${what} at byte ${this.pos}`);
  }

  /**
   * Read an item's head: returns its major type and leaves its argument in this.arg
   * (a number, or a bigint past 2^53; no array is made per item).
   * @returns {number}
   */
  head() {
    const b = this.b;
    if (this.pos >= b.length) this.fail('truncated input');
    const ib = b[this.pos++];
    const major = ib >> 5;
    const ai = ib & 31;
    if (ai < 24) {
      this.arg = ai;
      return major;
    }
    const need = ai === 24 ? 1 : ai === 25 ? 2 : ai === 26 ? 4 : ai === 27 ? 8 : -1;
    if (need < 0) this.fail(ai === 31 ? 'indefinite lengths are not allowed' : 'reserved additional information');
    if (this.pos + need > b.length) this.fail('truncated input');
    if (need === 8) {
      const big = this.dv.getBigUint64(this.pos);
      this.pos += 8;
      this.arg = big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
      return major;
    }
    let n = 0;
    for (let i = 0; i < need; i++) n = n * 256 + b[this.pos++];
    this.arg = n;
    return major;
  }

  /** @param {number|bigint} n */
  count(n) {
    if (typeof n !== 'number' || n > this.b.length - this.pos) this.fail('length exceeds the input');
    return /** @type {number} */ (n);
  }

  /** @param {number} depth @param {((x: any) => void) | null} [register] called with a container before its children are decoded */
  item(depth, register = null) {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
    const start = this.pos;
    const major = this.head();
    const arg = this.arg;
    switch (major) {
      case 0: return typeof arg === 'bigint' ? arg : arg;
      case 1: return typeof arg === 'bigint' ? -1n - arg : arg >= Number.MAX_SAFE_INTEGER ? -1n - BigInt(arg) : -1 - arg;
      case 2: {
        const n = this.count(arg);
        const v = this.b.slice(this.pos, this.pos + n);
        this.pos += n;
        if (register) register(v);
        return v;
      }
      case 3: {
        const n = this.count(arg);
        const s = n <= SHORT_TEXT ? shortText(this.b, this.pos, n) : null;
        if (s !== null) {
          this.pos += n;
          return s;
        }
        let t;
        try {
          t = textDecoder.decode(this.b.subarray(this.pos, this.pos + n));
        } catch {
          this.fail('invalid UTF-8 in a text string');
        }
        this.pos += n;
        return t;
      }
      case 4: {
        const n = this.count(arg);
        const v = new Array(n);
        if (register) register(v);
        for (let i = 0; i < n; i++) v[i] = this.item(depth + 1);
        return v;
      }
      case 5: this.fail('maps are not Scheme values'); return null;
      case 6: return this.tagged(/** @type {number} */ (arg), depth, register);
      case 7: {
        this.pos = start;
        return this.simple();
      }
    }
    return this.fail('bad major type');
  }

  simple() {
    const ib = this.b[this.pos++];
    switch (ib) {
      case 0xf4: return false;
      case 0xf5: return true;
      case 0xf6: return null;
      case 0xf9: {
        if (this.pos + 2 > this.b.length) this.fail('truncated input');
        const h = (this.b[this.pos] << 8) | this.b[this.pos + 1];
        this.pos += 2;
        return new Flonum(halfToNumber(h));
      }
      case 0xfa: {
        if (this.pos + 4 > this.b.length) this.fail('truncated input');
        const v = this.dv.getFloat32(this.pos);
        this.pos += 4;
        return new Flonum(v);
      }
      case 0xfb: {
        if (this.pos + 8 > this.b.length) this.fail('truncated input');
        const v = this.dv.getFloat64(this.pos);
        this.pos += 8;
        return new Flonum(v);
      }
    }
    return this.fail(`simple value 0x${ib.toString(16)} is not a Scheme value`);
  }

  /**
   * @param {number} tag @param {number} depth @param {((x: any) => void) | null} register
   * @returns {any}
   */
  tagged(tag, depth, register) {
    switch (tag) {
      case TAG_SHAREABLE: {
        const idx = this.shared.length;
        this.shared.push(undefined);
        const v = this.item(depth + 1, (obj) => {
          this.shared[idx] = obj;
        });
        this.shared[idx] = v;
        return v;
      }
      case TAG_SHAREDREF: {
        const major = this.head();
        const n = this.arg;
        if (major !== 0 || typeof n !== 'number' || n >= this.shared.length) this.fail('bad shared reference');
        const v = this.shared[/** @type {number} */ (n)];
        if (v === undefined) this.fail('shared reference to a value still being decoded');
        return v;
      }
      case 2:
      case 3: {
        const bytes = this.item(depth + 1);
        if (!(bytes instanceof Uint8Array)) this.fail('bignum must be a byte string');
        let n = 0n;
        for (const byte of bytes) n = (n << 8n) | BigInt(byte);
        if (tag === 3) n = -1n - n;
        return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
      }
      case TAG_RATIONAL: {
        const [num, den] = this.fixedArray(2, depth);
        const big = (/** @type {any} */ x) => (typeof x === 'number' ? BigInt(x) : x);
        if ((typeof num !== 'number' && typeof num !== 'bigint') || (typeof den !== 'number' && typeof den !== 'bigint')) this.fail('rational parts must be integers');
        return new Ratnum(big(num), big(den));
      }
      case TAG_SYMBOL: return Sym.intern(this.expectText(depth));
      case TAG_UNINTERNED: return new Sym(this.expectText(depth), false);
      case TAG_CHAR: {
        const c = this.item(depth + 1);
        if (typeof c !== 'number' || c < 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) this.fail('bad character');
        return Char.of(c);
      }
      case TAG_LIST:
      case TAG_DOTTED: return this.list(tag === TAG_DOTTED, depth, register);
      case TAG_VOID: this.item(depth + 1); return VOID;
      case TAG_EOF: this.item(depth + 1); return EOF;
      case TAG_DEFAULT: this.item(depth + 1); return DEFAULT;
      case TAG_UNIT_HASH: this.item(depth + 1); return UNIT_HASH;
      case TAG_UNASSIGNED: this.item(depth + 1); return UNASSIGNED;
      case TAG_VALUES: {
        const v = new Values([]);
        if (register) register(v);
        v.vals = this.item(depth + 1);
        return v;
      }
      case TAG_BOX: {
        const b = new Box(null);
        if (register) register(b);
        b.v = this.item(depth + 1);
        return b;
      }
      case TAG_CODE: {
        const [hash, env] = this.fixedArray(2, depth);
        if (typeof hash !== 'string' || typeof env !== 'string') this.fail('bad code reference');
        return { hash, env };
      }
      case TAG_CLOSURE: return this.closure(depth, register);
      case TAG_FRAMES: return this.frames(depth, register);
      case TAG_RECORD_TYPE: {
        const [uid, name, fields] = this.fixedArray(3, depth);
        if (typeof uid !== 'string' || typeof name !== 'string' || !Array.isArray(fields)) this.fail('bad record type');
        const resolve = this.opts.resolveRecordType ?? internRecordType;
        return resolve(uid, name, fields);
      }
      case TAG_RECORD: {
        const r = new Record(/** @type {any} */ (null), []);
        if (register) register(r);
        const parts = this.item(depth + 1);
        if (!Array.isArray(parts) || !(parts[0] instanceof RecordType)) this.fail('bad record');
        r.rtd = parts[0];
        r.f = parts.slice(1);
        if (r.f.length !== r.rtd.fields.length) this.fail(`record of type ${r.rtd.name} has ${r.f.length} fields, expected ${r.rtd.fields.length}`);
        return r;
      }
      case TAG_ERROR: {
        const e = new ErrorObject('', null);
        if (register) register(e);
        const [kind, who, message, irritants, loc] = this.fixedArray(5, depth);
        e.kind = String(kind);
        e.who = who === null ? null : String(who);
        e.message = String(message);
        e.irritants = irritants;
        e.loc = loc === null ? null : String(loc);
        return e;
      }
    }
    const ext = extensionsByTag.get(tag);
    if (ext) {
      if (ext.decodeKnown !== undefined) {
        const known = ext.decodeKnown(this.b, this);
        if (known !== undefined) {
          if (register) register(known);
          return known;
        }
      }
      const item = this.item(depth + 1);
      const fields = ext.single ? [item] : item;
      if (!Array.isArray(fields)) this.fail(`tag ${tag} must wrap an array`);
      const v = ext.decode(fields, this);
      if (register) register(v);
      return v;
    }
    return this.fail(`unknown tag ${tag}`);
  }

  /** @param {number} depth */
  expectText(depth) {
    const s = this.item(depth + 1);
    if (typeof s !== 'string') this.fail('expected a text string');
    return s;
  }

  /** @param {number} n @param {number} depth */
  fixedArray(n, depth) {
    const a = this.item(depth + 1);
    if (!Array.isArray(a) || a.length !== n) this.fail(`expected an array of ${n}`);
    return a;
  }

  /** @param {boolean} dotted @param {number} depth @param {((x: any) => void) | null} register */
  list(dotted, depth, register) {
    const major = this.head();
    const arg = this.arg;
    if (major !== 4) this.fail('list must wrap an array');
    const n = this.count(arg);
    if (n === 0 || (dotted && n < 2)) this.fail('list too short');
    const count = dotted ? n - 1 : n;
    const head = new Pair(null, null);
    if (register) register(head);
    let p = head;
    for (let i = 0; i < count; i++) {
      if (i > 0) {
        const next = new Pair(null, null);
        p.cdr = next;
        p = next;
      }
      p.car = this.item(depth + 1);
    }
    p.cdr = dotted ? this.item(depth + 1) : null;
    return head;
  }

  /** @param {number} depth @param {((x: any) => void) | null} register */
  closure(depth, register) {
    const major = this.head();
    const arg = this.arg;
    if (major !== 4) this.fail('closure must wrap an array');
    const n = this.count(arg);
    if (n < 2) this.fail('closure too short');
    const c = new Closure(notYetResolved, /** @type {any} */ (null), []);
    if (register) register(c);
    const code = this.item(depth + 1);
    const index = this.item(depth + 1);
    const lam = this.lambda(code, index);
    const fv = new Array(n - 2);
    for (let i = 0; i < n - 2; i++) fv[i] = this.item(depth + 1);
    c[CALL] = lam.fast;
    c.lam = lam;
    c.fv = fv;
    return c;
  }

  /** @param {any} code @param {any} index */
  lambda(code, index) {
    if (!code || typeof code.hash !== 'string') this.fail('bad code reference');
    const resolve = this.opts.resolveCode;
    if (!resolve) this.fail('no code resolver to decode procedures with');
    const unit = /** @type {any} */ (resolve)(code.hash, code.env);
    const lam = typeof index === 'number' ? unit.lams[index] : unit.lamsByName?.get(index);
    if (!lam) this.fail(`unit ${code.hash.slice(0, 12)} has no lambda ${index}`);
    return lam;
  }

  /** @param {number} depth @param {((x: any) => void) | null} register */
  frames(depth, register) {
    const major = this.head();
    const arg = this.arg;
    if (major !== 4) this.fail('frames must wrap an array');
    const n = this.count(arg);
    if (n < 2) this.fail('frame chain too short');
    /** @type {Frame|null} */
    let first = null;
    /** @type {Frame|null} */
    let last = null;
    for (let i = 0; i < n - 1; i++) {
      const m2 = this.head();
      const a2 = this.arg;
      if (m2 !== 4) this.fail('frame must be an array');
      const len = this.count(a2);
      if (len < 3) this.fail('frame too short');
      const fr = new Frame(/** @type {any} */ (null), 0, [], null);
      if (i === 0 && register) register(fr);
      const code = this.item(depth + 1);
      const index = this.item(depth + 1);
      const label = this.item(depth + 1);
      if (typeof label !== 'number') this.fail('frame label must be an integer');
      fr.lam = this.lambda(code, index);
      fr.label = label;
      fr.s = new Array(len - 3);
      for (let k = 0; k < len - 3; k++) fr.s[k] = this.item(depth + 1);
      if (last === null) first = fr;
      else last.next = fr;
      last = fr;
    }
    const tail = this.item(depth + 1);
    if (tail !== null && !(tail instanceof Frame)) this.fail('frame chain must end in a frame chain or null');
    /** @type {Frame} */ (last).next = tail;
    return first;
  }
}

function notYetResolved() {
  throw new Error('closure used before it was decoded');
}

/** @param {number} h */
function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export { arrayToList };
