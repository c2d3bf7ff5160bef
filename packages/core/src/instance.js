// @ts-check
/**
 * CoreInstance: one wasm instance holding one tm_core — loading it, the
 * views on its memory, the transfer area every call passes values through,
 * the template cache, errors, accounting and destruction. Core (core.js)
 * adds processes, mailboxes and timers on top; Space (space.js) uses the
 * transfer-area methods here for its tuples.
 *
 * Invariants:
 *  - Every operation is one call into wasm. Values are encoded straight
 *    into the core's transfer area (whose address is read from its header
 *    before each call, since it may move when it grows) and results are
 *    decoded straight out of it.
 *  - The typed-array views are rebuilt only when the wasm memory has grown
 *    (`_stale`, set by the growth notification); every method reading
 *    memory checks `_stale` first.
 *  - After destroy(), `ex` is a table of throwing functions, so every later
 *    call throws CoreDestroyedError.
 */
import { decodeFrom } from './decode.js';
import { encode, encodeInto } from './encode.js';
import { Formal, Sym } from './cbor-values.js';
import { CoreDestroyedError, InvalidArgumentError, errorFor } from './errors.js';
import { MAX_DEPTH, Status, XFER, XFER_KEEP, XFER_MAGIC } from './layout.js';

/**
 * @typedef {object} CoreOptions
 * @property {number} [memoryLimit] most bytes the core may hold; 0 (the
 *   default) means no limit
 * @property {number} [maxDepth] deepest CBOR nesting accepted (default 64,
 *   at most 1024)
 * @property {number} [maxItemBytes] largest tuple or template in bytes
 *   (default 16 MiB)
 * @property {number} [xferBytes] initial transfer area size (default 64 KiB)
 * @property {bigint} [hashSeed] seed of the field index hash (default:
 *   random, from crypto.getRandomValues)
 */

/** @typedef {{ [name: string]: Function } & { memory: WebAssembly.Memory }} Exports */

/** Templates remembered by _putTemplate, and the bytes of `keep` each may use. */
const TEMPLATE_SLOTS = 4;
const TEMPLATE_SLOT_BYTES = XFER_KEEP / TEMPLATE_SLOTS;

/**
 * Whether a[i] === b[i] for i < n (both have n elements). Short templates
 * are compared without a loop: a loop of === over mixed strings, numbers
 * and formals costs V8 several times the unrolled comparisons.
 * @param {unknown[]} a @param {unknown[]} b @param {number} n
 */
function sameElements(a, b, n) {
  switch (n) {
    case 1: return a[0] === b[0];
    case 2: return a[0] === b[0] && a[1] === b[1];
    case 3: return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
    case 4: return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
    default:
      for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
      return true;
  }
}

/** Every later call on a destroyed core throws. */
export const destroyedExports = /** @type {Exports} */ (/** @type {unknown} */ (new Proxy({}, {
  get() {
    return () => { throw new CoreDestroyedError('the core was destroyed'); };
  },
})));

export class CoreInstance {
  /**
   * Instantiate the module and create its tm_core (Core calls this; use
   * loadCore()).
   * @param {WebAssembly.Module} module the compiled termite_core.wasm
   * @param {CoreOptions} [options]
   */
  constructor(module, options = {}) {
    const holder = { grew: () => {} };
    const instance = new WebAssembly.Instance(module, {
      env: { emscripten_notify_memory_growth: () => holder.grew() },
    });
    holder.grew = () => { this._stale = true; };
    /** @type {Exports} */
    this.ex = /** @type {any} */ (instance.exports);
    this.memory = this.ex.memory;
    this.ex._initialize();
    const depth = options.maxDepth ?? 64;
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH)
      throw new InvalidArgumentError(`maxDepth must be an integer 1..${MAX_DEPTH}, got ${String(options.maxDepth)}`);
    const limit = options.memoryLimit ?? 0;
    if (!(limit >= 0)) throw new InvalidArgumentError(`memoryLimit must be >= 0, got ${String(limit)}`);
    const seed = options.hashSeed ?? randomSeed();
    /** Address of the tm_core. */
    this.p = this.ex.tm_wasm_core_new(
      limit, Number(seed & 0xffffffffn), Number((seed >> 32n) & 0xffffffffn),
      depth, options.maxItemBytes ?? 0, options.xferBytes ?? 0);
    if (this.p === 0) throw errorFor(Status.E_NOMEM, 'out of memory while creating the core');
    /** Address of the transfer area header. */
    this.xfer = this.ex.tm_core_xfer(this.p);
    /** Views on the wasm memory, rebuilt when it grows. */
    this.u8 = new Uint8Array(0);
    this.dv = new DataView(this.u8.buffer);
    this.u32 = new Uint32Array(0);
    this.f64 = new Float64Array(0);
    /** Start of the transfer area's data (as of the last _put). */
    this.data = 0;
    /** Whether the memory grew since the views were made. */
    this._stale = true;
    this._views();
    if (this.u32[(this.xfer + XFER.MAGIC) >> 2] !== XFER_MAGIC)
      throw errorFor(Status.E_CORRUPT, 'transfer area magic mismatch: the .wasm and this package disagree');
    /** Scratch out-parameter addresses inside the transfer area header. */
    this.outU32 = this.xfer + XFER.U32;
    this.outF64 = this.xfer + XFER.F64;
    this.outResult = this.xfer + XFER.RESULT_BYTES;
    /**
     * Recently used templates: the array and a copy of its elements when
     * it was encoded; slot k's bytes stay in the transfer area's `keep`
     * field at _tmplAt(k), tmplLen[k] of them. See _putTemplate.
     * @type {(unknown[] | undefined)[]} */
    this.tmplArr = [undefined, undefined, undefined, undefined];
    /** @type {unknown[][]} */
    this.tmplVals = [[], [], [], []];
    this.tmplLen = [0, 0, 0, 0];
    this.tmplNext = 0;
    /** The slot _putTemplate found last (checked first). */
    this.tmplLast = 0;
    this.keep = this.xfer + XFER.KEEP;
    /** The hot exports, loaded once (the exports object has many
     * properties; destroy() replaces these with throwing functions). */
    this.fnOut = this.ex.tm_space_out;
    this.fnInp = this.ex.tm_space_inp;
  }

  /** Rebuild the typed-array views (after the wasm memory grew). */
  _views() {
    const buf = this.memory.buffer;
    this.u8 = new Uint8Array(buf);
    this.dv = new DataView(buf);
    this.u32 = new Uint32Array(buf);
    this.f64 = new Float64Array(buf);
    this._stale = false;
  }

  /**
   * Encode a value into the transfer area; returns its length (its start
   * is this.data).
   * @param {unknown} value
   */
  _put(value) {
    if (this._stale) this._views();
    const u32 = this.u32, x = this.xfer >> 2, data = u32[x + 2];
    this.data = data;
    const endAt = encodeInto(value, this.u8, this.dv, data, data + u32[x + 1]);
    if (endAt >= 0) return endAt - data;
    return this._putBytes(encode(value));
  }

  /**
   * _put for a template. Loops pass the same template array again and
   * again: an array seen recently whose elements are still the same (===)
   * is not encoded again; its bytes from last time are still in the
   * transfer area's `keep` field, which the core never writes, and are
   * passed from there without a copy. Only arrays whose elements are all
   * immutable (primitives, Formal, Sym) are remembered, so equal elements
   * mean equal bytes; the core still validates what it receives.
   * @param {unknown[]} template
   */
  _putTemplate(template) {
    const arrs = this.tmplArr;
    let k = this.tmplLast;
    if (arrs[k] !== template) {
      k = 0;
      while (k < TEMPLATE_SLOTS && arrs[k] !== template) k++;
    }
    if (k < TEMPLATE_SLOTS) {
      const vals = this.tmplVals[k], n = vals.length;
      if (template.length === n && sameElements(template, vals, n)) {
        this.tmplLast = k;
        this.data = this.keep + k * TEMPLATE_SLOT_BYTES;
        return this.tmplLen[k];
      }
    }
    const len = this._put(template);
    if (len <= TEMPLATE_SLOT_BYTES && Array.isArray(template) && template.length <= 8) {
      for (let i = 0; i < template.length; i++) {
        const v = template[i];
        if (typeof v === 'object' ? v !== null && !(v instanceof Formal) && !(v instanceof Sym)
          : typeof v === 'function') return len;
      }
      const k = this.tmplNext;
      this.tmplNext = (k + 1) % TEMPLATE_SLOTS;
      arrs[k] = template;
      this.tmplVals[k] = template.slice();
      this.tmplLen[k] = len;
      /** @type {Uint8Array} */ (this.u8).copyWithin(this._tmplAt(k), this.data, this.data + len);
    }
    return len;
  }

  /** Where template slot k's bytes are kept (inside the transfer area's `keep`). @param {number} k */
  _tmplAt(k) {
    return this.keep + k * TEMPLATE_SLOT_BYTES;
  }

  /** Copy encoded bytes into the transfer area. @param {Uint8Array} bytes */
  _putBytes(bytes) {
    if (this._stale) this._views();
    const x = this.xfer >> 2;
    if (bytes.length > this.u32[x + 1]) {
      const st = this.ex.tm_core_xfer_reserve(this.p, bytes.length);
      if (st !== 0) this._fail(st);
      if (this._stale) this._views();
    }
    this.data = this.u32[x + 2];
    /** @type {Uint8Array} */ (this.u8).set(bytes, this.data);
    return bytes.length;
  }

  /** Decode the result bytes the last call left in the transfer area. */
  _result() {
    if (this._stale) this._views();
    const r = this.outResult >> 2, ptr = this.u32[r], len = this.u32[r + 1];
    return decodeFrom(/** @type {Uint8Array} */ (this.u8), ptr, ptr + len);
  }

  /** A copy of the result bytes. */
  _resultBytes() {
    if (this._stale) this._views();
    const r = this.outResult >> 2, ptr = this.u32[r], len = this.u32[r + 1];
    return /** @type {Uint8Array} */ (this.u8).slice(ptr, ptr + len);
  }

  /** The n-th scratch u32 out-parameter. @param {number} n */
  _outU32(n) {
    if (this._stale) this._views();
    return /** @type {Uint32Array} */ (this.u32)[(this.outU32 >> 2) + n];
  }

  /** The core's message for its last failure. */
  errorMessage() {
    if (this._stale) this._views();
    const u8 = /** @type {Uint8Array} */ (this.u8);
    const at = this.ex.tm_core_errmsg(this.p);
    let e = at;
    while (e < at + 256 && u8[e] !== 0) e++;
    return new TextDecoder().decode(u8.subarray(at, e));
  }

  /** Throw the error for status st with the core's message. @param {number} st @returns {never} */
  _fail(st) {
    throw errorFor(st, this.errorMessage());
  }

  /**
   * Validate CBOR bytes and return their canonical form (RFC 8949 §4.2.1).
   * @param {Uint8Array} bytes
   * @returns {Uint8Array}
   */
  canonicalize(bytes) {
    const len = this._putBytes(bytes);
    const st = this.ex.tm_cbor_canonicalize(this.p, this.data, len, this.outResult, 0);
    if (st !== 0) this._fail(st);
    return this._resultBytes();
  }

  /** Bytes the core holds in total. */
  get liveBytes() { return this.ex.tm_core_live_bytes(this.p) >>> 0; }

  /** Change the memory limit (0: none). @param {number} bytes */
  setMemoryLimit(bytes) { this.ex.tm_core_set_memory_limit(this.p, bytes); }

  /** Run every consistency check; throws CorruptionError on a violation. */
  check() {
    const st = this.ex.tm_core_check(this.p);
    if (st !== 0) this._fail(st);
  }

  /** Whether destroy() was called. */
  get destroyed() { return this.ex === destroyedExports; }

  /** Free the core and its memory. Idempotent; later calls throw
   * CoreDestroyedError. */
  destroy() {
    if (this.ex === destroyedExports) return;
    this.ex.tm_core_destroy(this.p);
    this.ex = destroyedExports;
    this.fnOut = this.fnInp = destroyedExports.tm_space_out;
  }
}


/** A random 64-bit seed for the field index hash. */
function randomSeed() {
  const w = new Uint32Array(2);
  globalThis.crypto.getRandomValues(w);
  return (BigInt(w[1]) << 32n) | BigInt(w[0]);
}
