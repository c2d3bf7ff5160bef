// @ts-check
/**
 * R7RS §6.3 booleans, §6.4 pairs and lists (with the (scheme cxr) accessors), §6.5 symbols.
 *
 * Every walk over a list is a loop (never recursion) and every walk that could meet a
 * cyclic list (list?) runs Floyd's tortoise and hare, so a cyclic argument gives an error
 * instead of hanging. The procedures whose work grows with a list (length, list-tail,
 * list-ref, list-set!, memq ... assoc, reverse, list-copy, append, make-list) are
 * resumable builtins, in resumable-lists.js.
 *
 * Literal constants are frozen (values.js freezeLiteral); set-car!, set-cdr! and list-set!
 * on one signal "cannot mutate a literal constant" (kind 'immutable').
 *
 * `member` and `assoc` take an optional predicate, a Scheme procedure, so they are written
 * in Scheme by the lead; the two-argument equal? versions are `%member`, `%assoc` (resumable-lists.js).
 */
import { Pair, Sym, MString, VOID, schemeErrorOf } from '../values.js';
import { definePrimitive } from '../engine/registry.js';
import { charge } from '../engine/engine.js';
import { typeError, immutableError, checkStringSize } from './prims-errors.js';
import './resumable-lists.js';

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

/** @param {any[]} xs */
function list(...xs) {
  let l = null;
  for (let i = xs.length - 1; i >= 0; i--) l = new Pair(xs[i], l);
  return l;
}

definePrimitive('null?', 1, 1, (/** @type {any} */ x) => x === null, { pure: true });
definePrimitive('list?', 1, 1, isList, { pure: true });
definePrimitive('list', 0, -1, list);

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
  (/** @type {any} */ s) => {
    const name = typeof s === 'string' ? s : s instanceof MString ? s.text() : typeError('string->symbol', 'a string', s);
    checkStringSize('string->symbol', name.length); // a name is hashed in one call
    return Sym.intern(name);
  },
  { pure: true },
);
