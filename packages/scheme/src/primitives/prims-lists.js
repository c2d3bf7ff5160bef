// @ts-check
/**
 * R7RS §6.3 booleans, §6.4 pairs and lists (with the (scheme cxr) accessors), §6.5 symbols.
 *
 * Every walk over a list is a loop (never recursion) and every walk that could meet a
 * cyclic list (length, list-copy, memq, assq, append, ...) runs Floyd's tortoise and hare,
 * so a cyclic argument gives an error instead of hanging.
 *
 * Literal constants are frozen (values.js freezeLiteral); set-car!, set-cdr! and list-set!
 * on one signal "cannot mutate a literal constant" (kind 'immutable').
 *
 * `member` and `assoc` take an optional predicate, a Scheme procedure, so they are written
 * in Scheme by the lead; the two-argument equal? versions are here as `%member`, `%assoc`.
 */
import { Pair, Sym, MString, VOID, schemeErrorOf } from '../values.js';
import { definePrimitive } from '../engine/registry.js';
import { charge, walked, built } from '../engine/engine.js';
import { isEqual, isEqv } from './prims-equivalence.js';
import { absent, typeError, immutableError, checkLength, isExactInt } from './prims-errors.js';

// ---------------------------------------------------------------------------------------
// §6.3 Booleans

/** @param {string} who @param {any[]} xs @param {(x: any) => boolean} ok @param {string} what */
function checkAll(who, xs, ok, what) {
  for (const x of xs) if (!ok(x)) typeError(who, what, x);
}

/** @param {any} x */
const isBoolean = (x) => x === true || x === false;

definePrimitive('not', 1, 1, (/** @type {any} */ x) => x === false, { pure: true });
definePrimitive('boolean?', 1, 1, isBoolean, { pure: true });
definePrimitive(
  'boolean=?',
  2,
  -1,
  (/** @type {any[]} */ ...xs) => {
    checkAll('boolean=?', xs, isBoolean, 'a boolean');
    return xs.every((x) => x === xs[0]);
  },
  { pure: true },
);

// ---------------------------------------------------------------------------------------
// §6.4 Pairs

/** @param {string} who @param {any} x @returns {Pair} */
function checkPair(who, x) {
  if (x instanceof Pair) return x;
  return typeError(who, 'a pair', x);
}

/** @param {string} who @param {Pair} p */
function checkMutable(who, p) {
  if (Object.isFrozen(p)) immutableError(who, 'cannot mutate a literal constant', p);
}

definePrimitive('pair?', 1, 1, (/** @type {any} */ x) => x instanceof Pair, { pure: true });
definePrimitive('cons', 2, 2, (/** @type {any} */ a, /** @type {any} */ d) => new Pair(a, d));
definePrimitive('car', 1, 1, (/** @type {any} */ p) => (p instanceof Pair ? p.car : typeError('car', 'a pair', p)), { pure: true });
definePrimitive('cdr', 1, 1, (/** @type {any} */ p) => (p instanceof Pair ? p.cdr : typeError('cdr', 'a pair', p)), { pure: true });
definePrimitive('set-car!', 2, 2, (/** @type {any} */ p, /** @type {any} */ v) => {
  checkMutable('set-car!', checkPair('set-car!', p));
  p.car = v;
  return VOID;
});
definePrimitive('set-cdr!', 2, 2, (/** @type {any} */ p, /** @type {any} */ v) => {
  checkMutable('set-cdr!', checkPair('set-cdr!', p));
  p.cdr = v;
  return VOID;
});

/**
 * Define c[ad]{2,4}r. `path` is the letters between c and r; they apply right to left.
 * A non-pair argument is "expected a pair"; a non-pair met further in is reported as
 * "incorrect list structure" with the whole argument as irritant.
 * @param {string} path
 */
function defineCxr(path) {
  const name = `c${path}r`;
  const ops = [...path].reverse().map((c) => c === 'a');
  definePrimitive(
    name,
    1,
    1,
    (/** @type {any} */ x) => {
      if (!(x instanceof Pair)) typeError(name, 'a pair', x);
      let v = x;
      for (const isCar of ops) {
        if (!(v instanceof Pair)) schemeErrorOf('type', name, 'incorrect list structure', x);
        v = isCar ? v.car : v.cdr;
      }
      return v;
    },
    { pure: true },
  );
}
for (const n of [2, 3, 4]) {
  for (let bits = 0; bits < 1 << n; bits++) {
    let path = '';
    for (let i = n - 1; i >= 0; i--) path += bits & (1 << i) ? 'd' : 'a';
    defineCxr(path);
  }
}

// ---------------------------------------------------------------------------------------
// §6.4 Lists

/**
 * Count the pairs of a proper list; "expected a proper list" for an improper or cyclic one.
 * @param {string} who @param {any} l
 */
function properLength(who, l) {
  let n = 0;
  let slow = l;
  let x = l;
  while (x instanceof Pair) {
    x = x.cdr;
    n++;
    if ((n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x) schemeErrorOf('type', who, 'expected a proper list, got a cyclic list', l);
    }
  }
  charge(walked(n));
  if (x !== null) typeError(who, 'a proper list', l);
  return n;
}

/**
 * Whether `x` is a proper list (finite, ending in '()).
 * @param {any} x
 */
function isList(x) {
  let slow = x;
  for (let n = 0; ; n++) {
    if (x === null || !(x instanceof Pair)) return listEnd(x === null, n);
    x = x.cdr;
    if (x === null || !(x instanceof Pair)) return listEnd(x === null, n);
    x = x.cdr;
    slow = slow.cdr;
    if (x === slow) return listEnd(false, n);
  }
}

/** isList's answer, after charging for the n double steps it walked. @param {boolean} answer @param {number} n */
function listEnd(answer, n) {
  charge(n);
  return answer;
}

/** @param {string} who @param {any} k */
function checkCount(who, k) {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 0) return k;
  if (isExactInt(k) && k > 0) return schemeErrorOf('range', who, 'index out of range', k);
  return typeError(who, 'an exact non-negative integer', k);
}

/**
 * The k-th tail of `l`; "index out of range" when the list has fewer than k pairs.
 * @param {string} who @param {any} l @param {any} k
 */
function tail(who, l, k) {
  const n = checkCount(who, k);
  let x = l;
  charge(walked(n));
  for (let i = 0; i < n; i++) {
    if (!(x instanceof Pair)) schemeErrorOf('range', who, 'index out of range', k, l);
    x = x.cdr;
  }
  return x;
}

/** @param {any} k @param {any} [fill] */
function makeList(k, fill) {
  const n = checkLength('make-list', k);
  const v = absent(fill) ? false : fill;
  charge(built(n));
  let l = null;
  for (let i = 0; i < n; i++) l = new Pair(v, l);
  return l;
}

/** @param {any[]} xs */
function list(...xs) {
  let l = null;
  for (let i = xs.length - 1; i >= 0; i--) l = new Pair(xs[i], l);
  return l;
}

/**
 * Copy the pairs of a proper list onto `last`. Returns [head, lastPair|null].
 * @param {string} who @param {any} l @param {any} last
 */
function copyOnto(who, l, last) {
  charge(built(properLength(who, l)));
  if (l === null) return last;
  const head = new Pair(l.car, last);
  let tailPair = head;
  for (let x = l.cdr; x !== null; x = x.cdr) {
    const p = new Pair(x.car, last);
    tailPair.cdr = p;
    tailPair = p;
  }
  return head;
}

/**
 * (append list ...): every argument but the last must be a proper list and is copied; the
 * last is shared, and may be any object (the result is then improper).
 * @param {any[]} ls
 */
function append(...ls) {
  if (ls.length === 0) return null;
  let result = ls[ls.length - 1];
  for (let i = ls.length - 2; i >= 0; i--) result = copyOnto('append', ls[i], result);
  return result;
}

/** @param {any} l */
function reverse(l) {
  charge(built(properLength('reverse', l)));
  let r = null;
  for (let x = l; x !== null; x = x.cdr) r = new Pair(x.car, r);
  return r;
}

/** @param {any} l @param {any} k */
function listRef(l, k) {
  const p = tail('list-ref', l, k);
  if (!(p instanceof Pair)) schemeErrorOf('range', 'list-ref', 'index out of range', k, l);
  return p.car;
}

/** @param {any} l @param {any} k @param {any} v */
function listSet(l, k, v) {
  const p = tail('list-set!', l, k);
  if (!(p instanceof Pair)) schemeErrorOf('range', 'list-set!', 'index out of range', k, l);
  checkMutable('list-set!', p);
  p.car = v;
  return VOID;
}

/**
 * (list-copy obj): a fresh copy of the pairs of a list (proper or improper, the final cdr is
 * shared); any other object is returned as is. A cyclic list is an error.
 * @param {any} l
 */
function listCopy(l) {
  if (!(l instanceof Pair)) return l;
  const head = new Pair(l.car, null);
  let last = head;
  let slow = l;
  let n = 1;
  let x = l.cdr;
  for (; x instanceof Pair; x = x.cdr) {
    const p = new Pair(x.car, null);
    last.cdr = p;
    last = p;
    if ((++n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x.cdr) schemeErrorOf('type', 'list-copy', 'expected a list, got a cyclic list', l);
    }
  }
  last.cdr = x;
  charge(built(n));
  return head;
}

/**
 * Shared loop of memq / memv / %member: the first tail whose car matches, or #f.
 * @param {string} who @param {any} x @param {any} l @param {(a: any, b: any) => boolean} same
 */
function mem(who, x, l, same) {
  let slow = l;
  let n = 0;
  let p = l;
  for (; p instanceof Pair; p = p.cdr) {
    if (same(x, p.car)) return walkedTo(n, p);
    if ((++n & 1) === 0) {
      slow = slow.cdr;
      if (slow === p.cdr) schemeErrorOf('type', who, 'expected a proper list, got a cyclic list', l);
    }
  }
  charge(walked(n));
  if (p !== null) typeError(who, 'a proper list', l);
  return false;
}

/**
 * Shared loop of assq / assv / %assoc: the first pair of the alist whose car matches, or #f.
 * @param {string} who @param {any} x @param {any} l @param {(a: any, b: any) => boolean} same
 */
function ass(who, x, l, same) {
  let slow = l;
  let n = 0;
  let p = l;
  for (; p instanceof Pair; p = p.cdr) {
    const entry = p.car;
    if (!(entry instanceof Pair)) typeError(who, 'an association list (a list of pairs)', entry);
    if (same(x, entry.car)) return walkedTo(n, entry);
    if ((++n & 1) === 0) {
      slow = slow.cdr;
      if (slow === p.cdr) schemeErrorOf('type', who, 'expected a proper list, got a cyclic list', l);
    }
  }
  charge(walked(n));
  if (p !== null) typeError(who, 'a proper list', l);
  return false;
}

/** @param {any} a @param {any} b */
const isEq = (a, b) => a === b;

/** A search's answer, after charging for the n elements it walked. @param {number} n @param {any} found */
function walkedTo(n, found) {
  charge(walked(n));
  return found;
}

definePrimitive('null?', 1, 1, (/** @type {any} */ x) => x === null, { pure: true });
definePrimitive('list?', 1, 1, isList, { pure: true });
definePrimitive('make-list', 1, 2, makeList);
definePrimitive('list', 0, -1, list);
definePrimitive('length', 1, 1, (/** @type {any} */ l) => properLength('length', l), { pure: true });
definePrimitive('append', 0, -1, append);
definePrimitive('reverse', 1, 1, reverse);
definePrimitive('list-tail', 2, 2, (/** @type {any} */ l, /** @type {any} */ k) => tail('list-tail', l, k), { pure: true });
definePrimitive('list-ref', 2, 2, listRef, { pure: true });
definePrimitive('list-set!', 3, 3, listSet);
definePrimitive('list-copy', 1, 1, listCopy);
definePrimitive('memq', 2, 2, (/** @type {any} */ x, /** @type {any} */ l) => mem('memq', x, l, isEq), { pure: true });
definePrimitive('memv', 2, 2, (/** @type {any} */ x, /** @type {any} */ l) => mem('memv', x, l, isEqv), { pure: true });
definePrimitive('%member', 2, 2, (/** @type {any} */ x, /** @type {any} */ l) => mem('member', x, l, isEqual), { pure: true });
definePrimitive('assq', 2, 2, (/** @type {any} */ x, /** @type {any} */ l) => ass('assq', x, l, isEq), { pure: true });
definePrimitive('assv', 2, 2, (/** @type {any} */ x, /** @type {any} */ l) => ass('assv', x, l, isEqv), { pure: true });
definePrimitive('%assoc', 2, 2, (/** @type {any} */ x, /** @type {any} */ l) => ass('assoc', x, l, isEqual), { pure: true });

// ---------------------------------------------------------------------------------------
// §6.5 Symbols

/** @param {string} who @param {any} x @returns {Sym} */
function checkSymbol(who, x) {
  if (x instanceof Sym) return x;
  return typeError(who, 'a symbol', x);
}

definePrimitive('symbol?', 1, 1, (/** @type {any} */ x) => x instanceof Sym, { pure: true });
definePrimitive(
  'symbol=?',
  2,
  -1,
  (/** @type {any[]} */ ...xs) => {
    checkAll('symbol=?', xs, (x) => x instanceof Sym, 'a symbol');
    return xs.every((x) => x === xs[0]);
  },
  { pure: true },
);
definePrimitive('symbol->string', 1, 1, (/** @type {any} */ s) => checkSymbol('symbol->string', s).name, { pure: true });
definePrimitive(
  'string->symbol',
  1,
  1,
  (/** @type {any} */ s) => (typeof s === 'string' ? Sym.intern(s) : s instanceof MString ? Sym.intern(s.text()) : typeError('string->symbol', 'a string', s)),
  { pure: true },
);
