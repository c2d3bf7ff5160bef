// @ts-check
// R7RS §6.1 Equivalence predicates: eq?, eqv?, equal?, and the JS equality API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pair, Sym, Char, Flonum, Ratnum, Closure, Record, RecordType, ErrorObject, list, freezeLiteral } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { runBuiltin } from '../src/engine/resumable.js';
import { builtinUnit } from '../src/engine/builtins.js';
import { isEqv, isEqual, registerEquality } from '../src/primitives/prims-equivalence.js';
import '../src/primitives/prims-lists.js'; // memv

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  if (!p && builtinUnit.lamsByName.has(name)) return runBuiltin(name, args); // a resumable builtin
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
const eq = (/** @type {any} */ a, /** @type {any} */ b) => call('eq?', a, b);
const eqv = (/** @type {any} */ a, /** @type {any} */ b) => call('eqv?', a, b);
const equal = (/** @type {any} */ a, /** @type {any} */ b) => call('equal?', a, b);
const sym = (/** @type {string} */ s) => Sym.intern(s);
const fl = (/** @type {number} */ v) => new Flonum(v);
/** A procedure value (two calls give two distinct closures, as two lambda evaluations do). */
const lambda = () => new Closure(() => 1, /** @type {any} */ ({ name: 'anonymous' }), []);

test('eqv? gives the results of the R7RS examples', () => {
  assert.equal(eqv(sym('a'), sym('a')), true);
  assert.equal(eqv(sym('a'), sym('b')), false);
  assert.equal(eqv(2, 2), true);
  assert.equal(eqv(2, fl(2)), false);
  assert.equal(eqv(null, null), true);
  assert.equal(eqv(100000000, 100000000), true);
  assert.equal(eqv(fl(0), fl(NaN)), false);
  assert.equal(eqv(new Pair(1, 2), new Pair(1, 2)), false);
  assert.equal(eqv(lambda(), lambda()), false);
  const p = lambda();
  assert.equal(eqv(p, p), true);
  assert.equal(eqv(false, sym('nil')), false);
  const x = freezeLiteral(list(sym('a')));
  assert.equal(eqv(x, x), true);
});

test('eqv? compares numbers by exactness and value, including bignums, rationals and signed zeros', () => {
  assert.equal(eqv(2n ** 80n, 2n ** 80n), true);
  assert.equal(eqv(2n ** 80n, 2n ** 80n + 1n), false);
  assert.equal(eqv(fl(1.5), fl(1.5)), true);
  assert.equal(eqv(new Ratnum(1n, 3n), new Ratnum(1n, 3n)), true);
  assert.equal(eqv(new Ratnum(1n, 3n), new Ratnum(2n, 3n)), false);
  assert.equal(eqv(fl(0), fl(-0)), false, '0.0 and -0.0 are distinguished');
  assert.equal(eqv(fl(NaN), fl(NaN)), true);
  assert.equal(eqv(1, fl(1)), false);
  assert.equal(eqv(fl(1), 1), false);
  assert.equal(eqv(fl(1), sym('a')), false);
});

test('eqv? is identity on characters, strings with the same characters, and empty vectors of one literal', () => {
  assert.equal(eqv(Char.of(0x41), Char.of(0x41)), true);
  assert.equal(eqv(Char.of(0x1f600), Char.of(0x1f600)), true);
  assert.equal(eqv(Char.of(0x41), Char.of(0x61)), false);
  // Strings are immutable JS strings: the same characters are the same value.
  assert.equal(eqv('', ''), true);
  assert.equal(eqv('abc', 'ab' + 'c'), true);
  assert.equal(eqv([], []), false, 'two vectors are two objects');
  assert.equal(eqv(Sym.gensym(), Sym.gensym()), false);
});

test('eq? gives the results of the R7RS examples, with strings and small integers eq', () => {
  assert.equal(eq(sym('a'), sym('a')), true);
  assert.equal(eq(list(sym('a')), list(sym('a'))), false);
  assert.equal(eq(null, null), true);
  const car = primitives.get('car');
  assert.equal(eq(car, car), true);
  const x = list(sym('a'));
  assert.equal(eq(x, x), true);
  const v = freezeLiteral(/** @type {any[]} */ ([]));
  assert.equal(eq(v, v), true);
  const p = lambda();
  assert.equal(eq(p, p), true);
  // Unspecified by R7RS; in Termite Scheme strings are immutable values, so eq? is #t.
  assert.equal(eq('a', 'a'), true);
  assert.equal(eq('', ''), true);
  assert.equal(eq(2, 2), true);
  assert.equal(eq(Char.of(65), Char.of(65)), true);
  // Inexact numbers are boxed: eq? is identity, eqv? compares values.
  assert.equal(eq(fl(1.5), fl(1.5)), false);
});

test('equal? gives the results of the R7RS examples', () => {
  assert.equal(equal(sym('a'), sym('a')), true);
  assert.equal(equal(list(sym('a')), list(sym('a'))), true);
  assert.equal(equal(list(sym('a'), list(sym('b')), sym('c')), list(sym('a'), list(sym('b')), sym('c'))), true);
  assert.equal(equal('abc', 'abc'), true);
  assert.equal(equal(2, 2), true);
  assert.equal(equal(new Array(5).fill(sym('a')), new Array(5).fill(sym('a'))), true);
  // '#1=(a b . #1#) and '#2=(a b a b . #2#)
  const c1 = list(sym('a'), sym('b'));
  /** @type {Pair} */ (c1.cdr).cdr = c1;
  const c2 = list(sym('a'), sym('b'), sym('a'), sym('b'));
  /** @type {any} */ (c2).cdr.cdr.cdr.cdr = c2;
  assert.equal(equal(c1, c2), true);
});

test('equal? tells apart structures that differ in one leaf, in shape, or in kind', () => {
  assert.equal(equal(list(1, 2, 3), list(1, 2, 4)), false);
  assert.equal(equal(list(1, 2), list(1, 2, 3)), false);
  assert.equal(equal(list(1, 2), [1, 2]), false);
  assert.equal(equal([1, 2], [1, 2, 3]), false);
  assert.equal(equal([1, [2, 'x']], [1, [2, 'x']]), true);
  assert.equal(equal([1, [2, 'x']], [1, [2, 'y']]), false);
  assert.equal(equal(new Pair(1, 2), new Pair(1, 3)), false);
  assert.equal(equal('abc', 'abd'), false);
  assert.equal(equal(2, fl(2)), false, 'numbers are compared with eqv?');
  assert.equal(equal(list(fl(1.5)), list(fl(1.5))), true);
  assert.equal(equal(Char.of(97), 'a'), false);
});

test('equal? compares bytevectors by content and records, procedures and error objects by identity', () => {
  assert.equal(equal(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 3)), true);
  assert.equal(equal(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 4)), false);
  assert.equal(equal(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 3)), false);
  assert.equal(equal(new Uint8Array(0), [ ]), false);
  const rtd = new RecordType('point', ['x', 'y'], 'point-uid');
  const r = new Record(rtd, [1, 2]);
  assert.equal(equal(r, r), true);
  assert.equal(equal(r, new Record(rtd, [1, 2])), false);
  assert.equal(equal(lambda(), lambda()), false);
  const e = new ErrorObject('m', null);
  assert.equal(equal(e, new ErrorObject('m', null)), false);
  assert.equal(equal(list(e), list(e)), true);
});

test('equal? terminates on cyclic lists of different periods and on mutually cyclic vectors', () => {
  // (1 1 1 ...) with period 1 against period 3: equal.
  const a = new Pair(1, null);
  a.cdr = a;
  const b = list(1, 1, 1);
  /** @type {any} */ (b).cdr.cdr.cdr = b;
  assert.equal(equal(a, b), true);
  // Period 2 (1 2 1 2 ...) against period 3 (1 2 1 ...): different.
  const c = list(1, 2);
  /** @type {any} */ (c).cdr.cdr = c;
  const d = list(1, 2, 1);
  /** @type {any} */ (d).cdr.cdr.cdr = d;
  assert.equal(equal(c, d), false);
  // Vectors that contain each other.
  /** @type {any[]} */ const v1 = [1, null];
  /** @type {any[]} */ const v2 = [1, v1];
  v1[1] = v2;
  /** @type {any[]} */ const w1 = [1, null];
  w1[1] = w1;
  assert.equal(equal(v1, w1), true);
  /** @type {any[]} */ const w2 = [2, null];
  w2[1] = w2;
  assert.equal(equal(v1, w2), false);
  // A cycle through the car.
  const e = new Pair(null, null);
  e.car = e;
  const f = new Pair(null, null);
  f.car = f;
  assert.equal(equal(e, f), true);
  assert.equal(isEqual(e, new Pair(new Pair(e, null), null)), true, 'unfolds to the same infinite tree');
  assert.equal(isEqual(e, new Pair(new Pair(new Pair(1, null), null), null)), false);
});

test('equal? finds a difference deep inside a long cycle', () => {
  const n = 5000;
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(i);
  const a = list(...xs);
  const b = list(...xs);
  let ta = a;
  while (ta.cdr !== null) ta = ta.cdr;
  ta.cdr = a;
  let tb = b;
  for (let i = 0; i < n - 2; i++) tb = tb.cdr;
  tb.car = -1;
  while (tb.cdr !== null) tb = tb.cdr;
  tb.cdr = b;
  assert.equal(equal(a, b), false);
});

test('equal? handles a 1,000,000-element list without overflowing the stack', () => {
  const n = 1_000_000;
  let a = null;
  let b = null;
  for (let i = n - 1; i >= 0; i--) {
    a = new Pair(i, a);
    b = new Pair(i, b);
  }
  assert.equal(equal(a, b), true);
  let t = /** @type {any} */ (b);
  while (t.cdr !== null) t = t.cdr;
  t.car = 'last';
  assert.equal(equal(a, b), false);
});

test('equal? handles 100,000-deep nesting through cars and through vectors', () => {
  const depth = 100_000;
  /** @type {any} */ let a = null;
  /** @type {any} */ let b = null;
  /** @type {any} */ let va = 'leaf';
  /** @type {any} */ let vb = 'leaf';
  for (let i = 0; i < depth; i++) {
    a = new Pair(a, null);
    b = new Pair(b, null);
    va = [va];
    vb = [vb];
  }
  assert.equal(equal(a, b), true);
  assert.equal(equal(va, vb), true);
  assert.equal(equal(va, [vb]), false);
});

test('equal? on DAGs with exponentially many paths finishes quickly', () => {
  // x(k+1) = (x(k) . x(k)): 2^60 paths from the root, 61 distinct nodes.
  /** @type {any} */ let a = 0;
  /** @type {any} */ let b = 0;
  for (let i = 0; i < 60; i++) {
    a = new Pair(a, a);
    b = new Pair(b, b);
  }
  const started = Date.now();
  assert.equal(equal(a, b), true);
  assert.ok(Date.now() - started < 2000, 'took under two seconds');
});

test('isEqv is eqv?; equal? is a resumable builtin running the walk of isEqual', () => {
  assert.equal(primitives.get('eqv?')?.fn, isEqv);
  assert.equal(primitives.has('equal?'), false);
  assert.equal(primitives.get('eq?')?.pure, true);
});

test('registerEquality makes instances of a class equal? by what they denote, and eqv? only when asked', () => {
  class Pid {
    /** @param {string} node @param {number} id */
    constructor(node, id) {
      this.node = node;
      this.id = id;
    }
  }
  class Tag {
    /** @param {number} id */
    constructor(id) {
      this.id = id;
    }
  }
  registerEquality(Pid, (a, b) => a.node === b.node && a.id === b.id);
  registerEquality(Tag, (a, b) => a.id === b.id, { eqv: true });
  assert.equal(equal(new Pid('n1', 7), new Pid('n1', 7)), true);
  assert.equal(equal(new Pid('n1', 7), new Pid('n2', 7)), false);
  assert.equal(equal(list(new Pid('n1', 7)), list(new Pid('n1', 7))), true, 'inside structures too');
  assert.equal(eqv(new Pid('n1', 7), new Pid('n1', 7)), false);
  assert.equal(eqv(new Tag(3), new Tag(3)), true);
  assert.equal(call('memv', new Tag(3), list(new Tag(1), new Tag(3))) instanceof Pair, true);
  assert.equal(equal(new Pid('n1', 3), new Tag(3)), false);
  assert.throws(() => registerEquality(Pid, () => true), /registered twice/);
});
