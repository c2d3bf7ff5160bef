// @ts-check
/**
 * The JS values that carry a CBOR meaning of their own: Sym (tag 40960),
 * Formal (tag 40992, template fields), Float (a number always encoded as
 * a float), Simple (a CBOR simple value), and cbor-x's Tag for any other
 * tag.
 *
 * Invariants: Sym, Formal, Float and Simple are frozen, so a template
 * holding only them and primitives encodes the same every time (the
 * template cache in instance.js relies on it). Sym.for interns up to
 * 65,536 names and formal.tagged(n) remembers up to 1,024 tags: both
 * bounded, so a peer cannot grow them without limit; beyond the bound a
 * new object is made, equal by name or code but not ===.
 */
import { Tag } from 'cbor-x';
import { FormalCode } from './layout.js';

export { Tag };

/** A Scheme-style symbol (CBOR tag 40960 around its name). Interned. */
export class Sym {
  /** @param {string} name */
  constructor(name) {
    /** The symbol's name. */
    this.name = name;
    Object.freeze(this);
  }

  /**
   * The one Sym with this name.
   * @param {string} name
   * @returns {Sym}
   */
  static for(name) {
    let s = symbols.get(name);
    if (s === undefined) {
      s = new Sym(String(name));
      /* bounded, so peers cannot grow it without limit; compare by name */
      if (symbols.size < 65536) symbols.set(name, s);
    }
    return s;
  }

  toString() { return this.name; }
}

/** @type {Map<string, Sym>} */
const symbols = new Map();

/** A Linda formal: matches any field of its type (CBOR tag 40992). */
export class Formal {
  /**
   * @param {number} code a FormalCode
   * @param {number | bigint} [tag] for code 11 (tagged): the tag number
   */
  constructor(code, tag) {
    /** The type code (docs/wire-format.md). */
    this.code = code;
    /** For `tagged` formals, the tag number; otherwise undefined. */
    this.tag = tag;
    Object.freeze(this);
  }
}

/** Forces a number to be encoded as a float (for integral values). */
export class Float {
  /** @param {number} value */
  constructor(value) {
    /** The number. */
    this.value = Number(value);
    Object.freeze(this);
  }
}

/** @param {number} value @returns {Float} a number that encodes as a float */
export function float(value) { return new Float(value); }

/** An unassigned CBOR simple value (major type 7), kept as a number. */
export class Simple {
  /** @param {number} value 0..19 or 32..255 */
  constructor(value) {
    /** The simple value. */
    this.value = value;
    Object.freeze(this);
  }
}

/** @type {Map<number | bigint, Formal>} */
const taggedFormals = new Map();

/**
 * Formals for templates: `space.inp(['point', formal.integer, formal.any])`.
 * `formal.tagged(n)` matches any value carrying CBOR tag n.
 */
export const formal = Object.freeze({
  any: new Formal(FormalCode.any),
  integer: new Formal(FormalCode.integer),
  number: new Formal(FormalCode.number),
  float: new Formal(FormalCode.float),
  string: new Formal(FormalCode.string),
  symbol: new Formal(FormalCode.symbol),
  bytes: new Formal(FormalCode.bytes),
  boolean: new Formal(FormalCode.boolean),
  array: new Formal(FormalCode.array),
  map: new Formal(FormalCode.map),
  null: new Formal(FormalCode.null),
  /** @param {number | bigint} n @returns {Formal} */
  tagged(n) {
    let f = taggedFormals.get(n);
    if (f === undefined) {
      f = new Formal(FormalCode.tagged, n);
      if (taggedFormals.size < 1024) taggedFormals.set(n, f);
    }
    return f;
  },
});
