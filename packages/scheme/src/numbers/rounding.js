// @ts-check
/**
 * Rounding (`floor`, `ceiling`, `truncate`, `round` with ties to even), `numerator` and
 * `denominator`, and `rationalize` (the simplest rational within a tolerance).
 *
 * Invariants: an exact argument gives an exact result and an inexact one an inexact
 * result; nothing here recurses on the JS stack (the continued-fraction search of
 * `rationalize` is a loop).
 */
import { Flonum, Ratnum, schemeErrorOf } from '../values.js';
import { T_FIX, T_BIG, T_RAT, T_FLO, tagOf, notNumber, normBig } from './representation.js';
import { toDouble, doubleToExact, exact, inexact } from './exactness.js';
import { add, sub, div, neg, abs, numEq, lt, gt } from './arithmetic.js';

/** @param {any} x @param {string} [who] */
export function floor(x, who = 'floor') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT: {
      const r = /** @type {Ratnum} */ (x);
      const q = r.num / r.den;
      return normBig(r.num < 0n ? q - 1n : q);
    }
    case T_FLO:
      return new Flonum(Math.floor(x.v));
  }
  return notNumber(who, x);
}

/** @param {any} x @param {string} [who] */
export function ceiling(x, who = 'ceiling') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT: {
      const r = /** @type {Ratnum} */ (x);
      const q = r.num / r.den;
      return normBig(r.num < 0n ? q : q + 1n);
    }
    case T_FLO:
      return new Flonum(Math.ceil(x.v));
  }
  return notNumber(who, x);
}

/** @param {any} x @param {string} [who] */
export function truncate(x, who = 'truncate') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT:
      return normBig(/** @type {Ratnum} */ (x).num / x.den);
    case T_FLO:
      return new Flonum(Math.trunc(x.v));
  }
  return notNumber(who, x);
}

/** Round to nearest, ties to even. @param {any} x @param {string} [who] */
export function round(x, who = 'round') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT: {
      const r = /** @type {Ratnum} */ (x);
      let fl = r.num / r.den;
      if (r.num < 0n) fl -= 1n;
      const twice = (r.num - fl * r.den) * 2n; // 2 * fractional part * den
      if (twice > r.den || (twice === r.den && (fl & 1n) === 1n)) fl += 1n;
      return normBig(fl);
    }
    case T_FLO:
      return new Flonum(roundEven(x.v));
  }
  return notNumber(who, x);
}

/** @param {number} v */
function roundEven(v) {
  const r = Math.round(v);
  if (Math.abs(v % 1) === 0.5) return 2 * Math.round(v / 2);
  return r;
}

/** @param {any} x @param {string} [who] @returns {any} */
export function numerator(x, who = 'numerator') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT:
      return normBig(x.num);
    case T_FLO:
      if (!Number.isFinite(x.v)) break;
      return inexact(numerator(doubleToExact(x.v)));
  }
  return schemeErrorOf('type', who, 'expected a rational number', x);
}

/** @param {any} x @param {string} [who] @returns {any} */
export function denominator(x, who = 'denominator') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return 1;
    case T_RAT:
      return normBig(x.den);
    case T_FLO:
      if (!Number.isFinite(x.v)) break;
      return inexact(denominator(doubleToExact(x.v)));
  }
  return schemeErrorOf('type', who, 'expected a rational number', x);
}

/**
 * The simplest rational differing from x by no more than y (R7RS rationalize).
 * @param {any} x @param {any} y
 */
export function rationalize(x, y) {
  const who = 'rationalize';
  const tx = tagOf(x);
  const ty = tagOf(y);
  if (tx < 0) notNumber(who, x);
  if (ty < 0) notNumber(who, y);
  const inex = tx === T_FLO || ty === T_FLO;
  if (inex) {
    const xv = toDouble(x);
    const yv = Math.abs(toDouble(y));
    if (xv !== xv || yv !== yv) return new Flonum(NaN);
    if (yv === Infinity) return new Flonum(Number.isFinite(xv) ? 0 : NaN);
    if (!Number.isFinite(xv)) return new Flonum(xv);
  }
  const ex = exact(x, who);
  const ey = abs(exact(y, who));
  const r = simplestBetween(sub(ex, ey), add(ex, ey));
  return inex ? inexact(r) : r;
}

/** The simplest rational in [lo, hi] (exact, lo <= hi). @param {any} lo @param {any} hi */
function simplestBetween(lo, hi) {
  if (gt(lo, 0)) return simplestPositive(lo, hi);
  if (lt(hi, 0)) return neg(simplestPositive(neg(hi), neg(lo)));
  return 0;
}

/** Continued-fraction search, iterative. @param {any} lo @param {any} hi 0 < lo <= hi */
function simplestPositive(lo, hi) {
  /** @type {any[]} */
  const terms = [];
  for (;;) {
    const fl = floor(lo);
    if (numEq(fl, lo)) {
      terms.push(fl);
      break;
    }
    if (lt(fl, floor(hi))) {
      terms.push(add(fl, 1));
      break;
    }
    terms.push(fl);
    const nlo = div(1, sub(hi, fl));
    hi = div(1, sub(lo, fl));
    lo = nlo;
  }
  let r = terms[terms.length - 1];
  for (let i = terms.length - 2; i >= 0; i--) r = add(terms[i], div(1, r));
  return r;
}
