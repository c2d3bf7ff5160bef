// @ts-check
/**
 * Numbers as text: `number->string` (the printer's numbers) and the whole numeric syntax
 * of R7RS §7.1.1 for real numbers (the reader's numbers and `string->number`).
 *
 * Invariants: printing a number in radix 10 and reading the text back gives the same
 * number (a double prints in the shortest form that reads back to the same double, always
 * with a `.` or an exponent); parsing returns the number, `false` for text that is not
 * numeric syntax, or a string (the reason) for numeric syntax that denotes no number we
 * support (exact division by zero, an exact infinity), so the reader can report it and
 * `string->number` can answer #f. A short decimal integer is parsed without building any
 * string.
 */
import { Flonum, Ratnum, Compnum, schemeErrorOf } from '../values.js';
import { makeRectangular, makePolar } from './complex.js';
import { notNumber, normBig, heavy } from './representation.js';
import { chargeSince } from '../engine/engine.js';
import { makeRational } from './rationals.js';
import { ratioToDouble } from './exactness.js';

// ---------------------------------------------------------------------------------------
// Printing

/**
 * A double in R7RS syntax: shortest form that reads back to the same double,
 * "1.0" (never "1"), "-0.0", "+inf.0", "-inf.0", "+nan.0", exponents as "1e21" / "1.5e-7".
 * @param {number} v @param {number} [radix]
 */
export function flonumToString(v, radix = 10) {
  if (v !== v) return '+nan.0';
  if (v === Infinity) return '+inf.0';
  if (v === -Infinity) return '-inf.0';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  let s = radix === 10 ? String(v) : v.toString(radix);
  const e = s.indexOf('e');
  if (e >= 0) {
    if (s.charCodeAt(e + 1) === 43 /* + */) s = s.slice(0, e + 1) + s.slice(e + 2);
    return s;
  }
  return s.indexOf('.') >= 0 ? s : s + '.0';
}

/**
 * number->string: exact integers in any radix, rationals "n/d", doubles in R7RS style.
 * An exact number too big to write in one call is refused (checkNumeralSize).
 * @param {any} x @param {number} [radix] 2, 8, 10 or 16
 * @param {string} [who] the primitive named by the refusal
 */
export function numberToString(x, radix = 10, who = 'number->string') {
  if (typeof x === 'number') return radix === 10 ? String(x) : x.toString(radix);
  if (heavy(x)) {
    if (typeof x === 'bigint') checkNumeralSize(who, x, radix);
    else if (x instanceof Ratnum) {
      checkNumeralSize(who, x.num, radix);
      checkNumeralSize(who, x.den, radix);
    }
    // quadratic-ish in the digits: charged to the running slice by its time
    const t0 = performance.now();
    const s = exactToString(x, radix, who);
    chargeSince(t0);
    return s;
  }
  return exactToString(x, radix, who);
}

/**
 * The most bits of an exact integer written in decimal in one call: 131,072 (39,457
 * digits). Decimal conversion is superlinear: ~5 ms of CPU at this size on a loaded
 * machine, 18 ms at twice it, 89 ms at 1,048,576 bits (arithmetic.js MAX_EXACT_BITS),
 * all in one JS call that no slice can interrupt.
 */
export const MAX_DECIMAL_BITS = 2 ** 17;
const DECIMAL_LIMIT = 1n << BigInt(MAX_DECIMAL_BITS);
/** The most digits written in radix 2, 8 or 16 in one call (linear): the per-call string limit (primitives/prims-errors.js STRING_CALL_LIMIT). */
const TEXT_LIMIT = 2 ** 20;
/** @type {Map<number, bigint>} radix → the least magnitude with more than TEXT_LIMIT digits (made when first needed) */
const textLimits = new Map();

/**
 * Refuse, with a `resource-limit` error naming `who`, an exact integer whose text in
 * `radix` one call could not write within the node's event-loop bound: in decimal more
 * than MAX_DECIMAL_BITS bits, in radix 2, 8 or 16 more than TEXT_LIMIT digits. A
 * comparison with a constant, nothing walked.
 * @param {string} who @param {bigint} x @param {number} radix
 */
export function checkNumeralSize(who, x, radix) {
  if (radix === 10) {
    if (x >= DECIMAL_LIMIT || x <= -DECIMAL_LIMIT) {
      schemeErrorOf('resource-limit', who, `cannot write an exact integer of more than ${MAX_DECIMAL_BITS} bits in decimal in one call (a longer call would hold the node's event loop)`);
    }
    return;
  }
  let limit = textLimits.get(radix);
  if (limit === undefined) textLimits.set(radix, (limit = 1n << BigInt(TEXT_LIMIT * Math.log2(radix))));
  if (x >= limit || x <= -limit) schemeErrorOf('resource-limit', who, `cannot write an exact integer of more than ${TEXT_LIMIT} digits in radix ${radix} in one call`);
}

/** numberToString of anything but a fixnum. @param {any} x @param {number} radix @param {string} who @returns {string} */
function exactToString(x, radix, who) {
  if (typeof x === 'bigint') return x.toString(radix);
  if (x instanceof Flonum) return flonumToString(x.v, radix);
  if (x instanceof Ratnum) return x.num.toString(radix) + '/' + x.den.toString(radix);
  if (x instanceof Compnum) return complexToString(x, radix, who);
  return notNumber(who, x);
}

/**
 * A complex number in rectangular notation: "1+2i", "-1.0-0.5i", "+i", "+2.0i" (an
 * exact 0 real part is left out), "1.0+inf.0i".
 * @param {Compnum} z @param {number} radix @param {string} who
 * @returns {string}
 */
function complexToString(z, radix, who) {
  const re = z.re === 0 ? '' : numberToString(z.re, radix, who);
  if (z.im === 1) return re + '+i';
  if (z.im === -1) return re + '-i';
  const im = numberToString(z.im, radix, who);
  const c = im.charCodeAt(0);
  return re + (c === 43 || c === 45 ? im : '+' + im) + 'i';
}

// ---------------------------------------------------------------------------------------
// Parsing: the whole R7RS numeric syntax (R7RS 7.1.1), real numbers only.

/** The largest decimal exponent accepted for an exact number (#e1e400 is fine). */
const MAX_EXACT_EXPONENT = 100000;

const DIGITS = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};
// the exponent markers of R7RS 7.1.1: e, and s f d l (all read as doubles here)
const DECIMAL = /^([0-9]*)(?:\.([0-9]*))?(?:[eEsSfFdDlL]([+-]?[0-9]+))?$/;

/**
 * Parse a numeric token. Returns the number; `false` when the text is not numeric syntax
 * at all; or a string, the reason, when the text is numeric syntax that denotes no number
 * we support ("division by zero", "no exact representation", ...). The reader
 * reports such strings as errors; string->number returns #f for them.
 * @param {string} s
 * @param {number} [radix] default radix (2, 8, 10 or 16), overridden by a prefix
 * @returns {any}
 */
export function scanNumber(s, radix = 10) {
  const len = s.length;
  // Fast path: a short decimal integer.
  if (radix === 10 && len > 0 && len <= 15) {
    let i = 0;
    let c = s.charCodeAt(0);
    const negative = c === 45 && len > 1;
    if (negative) i = 1;
    let v = 0;
    for (; i < len; i++) {
      c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
    }
    if (i === len) return negative ? 0 - v : v;
  }
  let i = 0;
  let exactness = '';
  let radixSeen = false;
  while (i + 1 < len && s.charCodeAt(i) === 35 /* # */) {
    const c = s[i + 1].toLowerCase();
    if (c === 'x' || c === 'b' || c === 'o' || c === 'd') {
      if (radixSeen) return false;
      radixSeen = true;
      radix = c === 'x' ? 16 : c === 'b' ? 2 : c === 'o' ? 8 : 10;
    } else if (c === 'e' || c === 'i') {
      if (exactness) return false;
      exactness = c;
    } else return false;
    i += 2;
  }
  if (i >= len) return false;
  const body = i === 0 ? s : s.slice(i);
  const v = parseReal(body, radix, exactness);
  if (v !== false) return v;
  return parseComplex(body, radix, exactness);
}

/**
 * string->number: the number, or false (also for syntax we cannot represent). A
 * numeral longer than MAX_DIGITS is refused with a `resource-limit` error naming `who`.
 * @param {string} s @param {number} [radix] @param {string} [who]
 */
export function parseNumber(s, radix = 10, who = 'string->number') {
  if (s.length > 2000) {
    // a long numeral is quadratic-ish to read: charged to the running slice by its time
    const t0 = performance.now();
    const v = scanNumber(s, radix);
    chargeSince(t0);
    if (typeof v === 'string' && v.startsWith(TOO_LONG)) schemeErrorOf('resource-limit', who, `cannot read a numeral of ${s.length} characters in one call: at most ${MAX_DIGITS} (a longer call would hold the node's event loop)`, s.length);
    return typeof v === 'string' ? false : v;
  }
  const v = scanNumber(s, radix);
  return typeof v === 'string' ? false : v;
}

/**
 * <real R> with exactness applied. @param {string} s @param {number} radix @param {string} exactness
 * @returns {any} number, false, or an error string
 */
function parseReal(s, radix, exactness) {
  let j = 0;
  let negative = false;
  const c0 = s.charCodeAt(0);
  if (c0 === 43 || c0 === 45) {
    negative = c0 === 45;
    j = 1;
    const rest = s.slice(1).toLowerCase();
    if (rest === 'inf.0' || rest === 'nan.0') {
      if (exactness === 'e') return `no exact representation for ${s}`;
      return new Flonum(rest === 'nan.0' ? NaN : negative ? -Infinity : Infinity);
    }
  }
  const u = j === 0 ? s : s.slice(j);
  if (u.length === 0) return false;
  // a digit-led token this long would be a number beyond what arithmetic takes
  if (u.length > MAX_DIGITS && /^[0-9.]/.test(u)) return `${TOO_LONG} (more than ${MAX_DIGITS} characters)`;
  const slash = u.indexOf('/');
  if (slash >= 0) {
    const n = parseUInteger(u.slice(0, slash), radix);
    const d = parseUInteger(u.slice(slash + 1), radix);
    if (n === false || d === false) return false;
    const sn = negative ? -n : n;
    if (d === 0n) {
      if (exactness !== 'i') return `division by zero in ${s}`;
      return new Flonum(sn === 0n ? NaN : negative ? -Infinity : Infinity);
    }
    if (exactness === 'i') return new Flonum(n === 0n && negative ? -0 : ratioToDouble(sn, d));
    return makeRational(sn, d);
  }
  const n = parseUInteger(u, radix);
  if (n !== false) {
    if (exactness === 'i') return new Flonum(n === 0n && negative ? -0 : Number(negative ? -n : n));
    return normBig(negative ? -n : n);
  }
  return radix === 10 ? parseDecimal(s, u, negative, exactness) : parseRadixPoint(u, radix, negative, exactness);
}

/**
 * The most characters of a numeral: 65,536 (in decimal ~217,700 bits, read in ~3 ms of
 * CPU on a loaded machine, 17 ms at 157,000 digits; every number this node writes in
 * one call reads back, see MAX_DECIMAL_BITS). The reader reports a longer one as a
 * read error, string->number refuses it with `resource-limit`.
 */
const MAX_DIGITS = 2 ** 16;
/** The reason scanNumber gives for a numeral past MAX_DIGITS. */
const TOO_LONG = 'numeral too long';

/** @param {string} s @param {number} radix @returns {bigint|false} */
function parseUInteger(s, radix) {
  // @ts-ignore radix is one of the keys
  if (s.length === 0 || !DIGITS[radix].test(s)) return false;
  switch (radix) {
    case 10:
      return BigInt(s);
    case 16:
      return BigInt('0x' + s);
    case 8:
      return BigInt('0o' + s);
    default:
      return BigInt('0b' + s);
  }
}

/**
 * <decimal 10>: digits with a point and/or an exponent.
 * @param {string} whole the token (with sign) @param {string} u unsigned part
 * @param {boolean} negative @param {string} exactness
 */
function parseDecimal(whole, u, negative, exactness) {
  const m = DECIMAL.exec(u);
  if (m === null) return false;
  const intDigits = m[1];
  const fracDigits = m[2] ?? '';
  if (intDigits.length === 0 && fracDigits.length === 0) return false;
  if (exactness !== 'e') return new Flonum(Number(m[3] === undefined ? whole : whole.replace(/[sSfFdDlL]/, 'e'))); // JS rounds decimal text correctly
  let e = m[3] === undefined ? 0 : Number(m[3]);
  e -= fracDigits.length;
  if (Math.abs(e) > MAX_EXACT_EXPONENT) return `exponent too large for an exact number in ${whole}`;
  let mant = BigInt(intDigits + fracDigits);
  if (negative) mant = -mant;
  if (e >= 0) return normBig(mant * 10n ** BigInt(e));
  return makeRational(mant, 10n ** BigInt(-e));
}

/**
 * Extension: a radix point in radix 2, 8 or 16 ("#b1.1" is 1.5), no exponent. This is what
 * number->string produces for an inexact number in those radixes.
 * @param {string} u @param {number} radix @param {boolean} negative @param {string} exactness
 */
function parseRadixPoint(u, radix, negative, exactness) {
  const dot = u.indexOf('.');
  if (dot < 0) return false;
  const ip = u.slice(0, dot);
  const fp = u.slice(dot + 1);
  if (ip.length + fp.length === 0) return false;
  const i = ip.length === 0 ? 0n : parseUInteger(ip, radix);
  const f = fp.length === 0 ? 0n : parseUInteger(fp, radix);
  if (i === false || f === false) return false;
  const scale = BigInt(radix) ** BigInt(fp.length);
  let n = i * scale + f;
  if (negative) n = -n;
  if (exactness === 'e') return makeRational(n, scale);
  return new Flonum(n === 0n && negative ? -0 : ratioToDouble(n, scale));
}

/**
 * R7RS complex syntax over reals: rectangular (`1+2i`, `-1.5-0.5i`, `+i`, `-2i`,
 * `+inf.0i`) or polar (`1@2`). The number, false, or an error string from a part.
 * @param {string} s @param {number} radix @param {string} exactness
 * @returns {any}
 */
function parseComplex(s, radix, exactness) {
  const last = s[s.length - 1];
  if (last === 'i' || last === 'I') {
    const inner = s.slice(0, -1);
    if (inner === '+' || inner === '-') return makeRectangular(0, inner === '+' ? 1 : -1);
    // a real part and a signed imaginary part: the split is at a sign (not an exponent's)
    for (let k = inner.length - 1; k > 0; k--) {
      const c = inner[k];
      if (c !== '+' && c !== '-') continue;
      const re = parseReal(inner.slice(0, k), radix, exactness);
      if (re === false) continue;
      const imText = inner.slice(k);
      const im = imText === '+' ? 1 : imText === '-' ? -1 : parseReal(imText, radix, exactness);
      if (im === false) continue;
      if (typeof re === 'string') return re;
      if (typeof im === 'string') return im;
      return makeRectangular(re, exactness === 'i' && typeof im === 'number' ? new Flonum(im) : im);
    }
    const c0 = inner[0];
    if (c0 === '+' || c0 === '-') {
      const im = parseReal(inner, radix, exactness);
      if (typeof im === 'string') return im;
      if (im !== false) return makeRectangular(0, im);
    }
    return false;
  }
  const at = s.indexOf('@');
  if (at <= 0) return false;
  const m = parseReal(s.slice(0, at), radix, exactness);
  const a = parseReal(s.slice(at + 1), radix, exactness);
  if (m === false || a === false) return false;
  if (typeof m === 'string') return m;
  if (typeof a === 'string') return a;
  return makePolar(m, a);
}
