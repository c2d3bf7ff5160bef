// @ts-check
/**
 * Bytes to values: the value codec's decoder.
 *
 * Invariants: the input is untrusted (it comes from other nodes): every length is
 * checked against the bytes left, nesting is bounded (maxDepth, and a RangeError from
 * the JS stack becomes a CodecError), indefinite lengths, maps and simple values other
 * than false/true/null/floats are refused, and every failure is a CodecError naming the
 * byte where it happened. Decoding recurses only in the nesting depth of the data: lists
 * and frame chains are flat arrays, read by loops. A container marked with tag 28 is
 * registered before its children are decoded, so a cycle decodes to the same cycle.
 * Code references are resolved through the caller's resolveCode (a node that lacks the
 * unit must fetch its IR first); record types through resolveRecordType, by default the
 * node's record types (registry.js). A bytevector is a copy of its bytes, except with
 * `viewBytes` (frames just received, whose buffer no one else holds or reuses): then one
 * of at least VIEW_FROM bytes that is at least half of the input's ArrayBuffer is a view
 * of it; two bytevectors of one input never overlap.
 */
import {
  Pair, Flonum, Ratnum, Sym, Char, Closure, Frame, Box, Record, RecordType, Values,
  ErrorObject, MString, VOID, EOF, DEFAULT, UNIT_HASH, UNASSIGNED, CALL,
} from '../values.js';
import {
  TAG_SHAREABLE, TAG_SHAREDREF, TAG_RATIONAL, TAG_SYMBOL, TAG_UNINTERNED, TAG_CHAR, TAG_LIST, TAG_DOTTED,
  TAG_VOID, TAG_EOF, TAG_DEFAULT, TAG_UNIT_HASH, TAG_UNASSIGNED, TAG_VALUES, TAG_RECORD_TYPE, TAG_RECORD,
  TAG_CLOSURE, TAG_FRAMES, TAG_BOX, TAG_ERROR, TAG_CODE, TAG_MUTABLE_STRING, TAG_COMPLEX,
} from './tags.js';
import { isReal } from '../numbers/predicates.js';
import { makeRectangular } from '../numbers/complex.js';
import { CodecError } from './codec-error.js';
import { extensionsByTag, internRecordType } from './registry.js';

/**
 * @typedef {object} DecodeOptions
 * @property {(hash: string, env: string) => any} [resolveCode] the unit instance (with
 *   `lams`) for a code reference; throws if the node does not have that code
 * @property {(uid: string, name: string, fields: string[]) => RecordType} [resolveRecordType]
 * @property {number} [maxDepth] nesting limit (default 10,000)
 * @property {boolean} [viewBytes] the input's buffer is the caller's alone, read once
 *   (a frame just received): a large bytevector may be a view of it instead of a copy.
 *   Never for bytes decoded again later (a stored tuple) or written again (a reused
 *   buffer): two values would share their bytes.
 */

/** @typedef {Decoder} DecodeContext */

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** Text up to this many bytes is decoded by shortText when it is ASCII. */
const SHORT_TEXT = 64;
/**
 * With `viewBytes`, a bytevector this large or larger is a view of the input when it
 * covers at least half of the input's whole ArrayBuffer; a smaller one, or one in a
 * buffer mostly holding other data, is copied, so a kept bytevector never pins more
 * than twice its own size (a 100-byte message kept in a mailbox does not keep its
 * 64 KiB receive buffer alive).
 */
const VIEW_FROM = 1024;

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

class Decoder {
  /** @param {Uint8Array} bytes @param {DecodeOptions} opts */
  constructor(bytes, opts) {
    this.b = bytes;
    this.pos = 0;
    this.opts = opts;
    this.maxDepth = opts.maxDepth ?? 10000;
    /** Bytevectors this large may be views of the input (Infinity: always copied). */
    this.viewFrom = opts.viewBytes === true ? VIEW_FROM : Infinity;
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
        const b = this.b;
        // a view only of a buffer the caller gave away, and only when it is mostly this bytevector
        const v = n >= this.viewFrom && 2 * n >= b.buffer.byteLength ? b.subarray(this.pos, this.pos + n) : b.slice(this.pos, this.pos + n);
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

  /** A complex number's [real part, imaginary part] (tag 43000). @param {number} depth */
  complex(depth) {
    const [re, im] = this.fixedArray(2, depth);
    if (!isReal(re) || !isReal(im) || im === 0) this.fail('bad complex number');
    return makeRectangular(re, im);
  }

  /**
   * A tagged item: one case per tag the codec knows (the common ones — sharing, symbols,
   * characters, lists — decoded in place), then the extension codecs.
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
      case 3: return this.bignum(tag === 3, depth);
      case TAG_RATIONAL: return this.rational(depth);
      case TAG_SYMBOL: return Sym.intern(this.expectText(depth));
      case TAG_UNINTERNED: return new Sym(this.expectText(depth), false);
      case TAG_MUTABLE_STRING: return new MString(this.expectText(depth));
      case TAG_COMPLEX: return this.complex(depth);
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
      case TAG_RECORD_TYPE: return this.recordType(depth);
      case TAG_RECORD: return this.record(depth, register);
      case TAG_ERROR: return this.errorObject(depth, register);
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

  /** A bignum's byte string (tags 2 and 3). @param {boolean} negative @param {number} depth */
  bignum(negative, depth) {
    const bytes = this.item(depth + 1);
    if (!(bytes instanceof Uint8Array)) this.fail('bignum must be a byte string');
    let n = 0n;
    for (const byte of bytes) n = (n << 8n) | BigInt(byte);
    if (negative) n = -1n - n;
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }

  /** @param {number} depth */
  rational(depth) {
    const [num, den] = this.fixedArray(2, depth);
    const big = (/** @type {any} */ x) => (typeof x === 'number' ? BigInt(x) : x);
    if ((typeof num !== 'number' && typeof num !== 'bigint') || (typeof den !== 'number' && typeof den !== 'bigint')) this.fail('rational parts must be integers');
    return new Ratnum(big(num), big(den));
  }

  /** @param {number} depth */
  recordType(depth) {
    const [uid, name, fields] = this.fixedArray(3, depth);
    if (typeof uid !== 'string' || typeof name !== 'string' || !Array.isArray(fields)) this.fail('bad record type');
    const resolve = this.opts.resolveRecordType ?? internRecordType;
    return resolve(uid, name, fields);
  }

  /** @param {number} depth @param {((x: any) => void) | null} register */
  record(depth, register) {
    const r = new Record(/** @type {any} */ (null), []);
    if (register) register(r);
    const parts = this.item(depth + 1);
    if (!Array.isArray(parts) || !(parts[0] instanceof RecordType)) this.fail('bad record');
    r.rtd = parts[0];
    r.f = parts.slice(1);
    if (r.f.length !== r.rtd.fields.length) this.fail(`record of type ${r.rtd.name} has ${r.f.length} fields, expected ${r.rtd.fields.length}`);
    return r;
  }

  /** @param {number} depth @param {((x: any) => void) | null} register */
  errorObject(depth, register) {
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
