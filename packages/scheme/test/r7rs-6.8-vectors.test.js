// @ts-check
// R7RS §6.8 Vectors (string->vector and vector->string included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Char, Sym, SchemeError, VOID, list, listToArray, freezeLiteral } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { runBuiltin } from '../src/engine/resumable.js';
import { builtinUnit } from '../src/engine/builtins.js';
import '../src/primitives/prims-vectors.js';
import '../src/primitives/prims-lists.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  if (!p && builtinUnit.lamsByName.has(name)) return runBuiltin(name, args); // a resumable builtin
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
const sym = (/** @type {string} */ s) => Sym.intern(s);
/** @param {string} s */
const ch = (s) => Char.of(/** @type {number} */ (s.codePointAt(0)));
/** A vector literal, frozen as the compiler freezes constants. @param {any[]} xs */
const literal = (xs) => freezeLiteral(xs);

/**
 * @param {() => any} fn @param {string} who @param {string} message
 * @param {any[]} [irritants] @param {string} [kind]
 */
function assertError(fn, who, message, irritants, kind) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof SchemeError, String(e));
    assert.equal(e.payload.who, who);
    assert.equal(e.payload.message, message);
    if (irritants) assert.deepEqual(listToArray(e.payload.irritants), irritants);
    if (kind) assert.equal(e.payload.kind, kind);
    return true;
  });
}

test('vector? recognises vectors, not lists, strings or bytevectors', () => {
  assert.equal(call('vector?', []), true);
  assert.equal(call('vector?', literal([0, list(2, 2, 2, 2), 'Anna'])), true);
  assert.equal(call('vector?', list(1)), false);
  assert.equal(call('vector?', 'abc'), false);
  assert.equal(call('vector?', new Uint8Array(2)), false);
});

test('vector and make-vector build fresh mutable vectors', () => {
  assert.deepEqual(call('vector', sym('a'), sym('b'), sym('c')), [sym('a'), sym('b'), sym('c')]);
  assert.deepEqual(call('vector'), []);
  assert.deepEqual(call('make-vector', 3, 0), [0, 0, 0]);
  assert.deepEqual(call('make-vector', 2), [false, false]);
  assert.equal(call('vector-length', call('make-vector', 0)), 0);
  assert.equal(Object.isFrozen(call('vector', 1)), false);
  assertError(() => call('make-vector', -2), 'make-vector', 'expected an exact non-negative integer', [-2], 'type');
  assertError(() => call('make-vector', 2 ** 40), 'make-vector', 'length too large', [2 ** 40], 'range');
});

test('vector-ref gives the results of the R7RS examples and checks the index', () => {
  const v = literal([1, 1, 2, 3, 5, 8, 13, 21]);
  assert.equal(call('vector-ref', v, 5), 8);
  assert.equal(call('vector-ref', v, 6), 13);
  assertError(() => call('vector-ref', literal([1, 2, 3]), 10), 'vector-ref', 'index out of range', [10, 3], 'range');
  assertError(() => call('vector-ref', v, -1), 'vector-ref', 'index out of range', [-1, 8], 'range');
  assertError(() => call('vector-ref', v, 'x'), 'vector-ref', 'expected an exact integer index', ['x'], 'type');
  assertError(() => call('vector-ref', list(1), 0), 'vector-ref', 'expected a vector', [list(1)], 'type');
  assertError(() => call('vector-length', 'abc'), 'vector-length', 'expected a vector', ['abc']);
});

test('vector-set! gives the result of the R7RS example and refuses a literal constant', () => {
  const vec = call('vector', 0, list(2, 2, 2, 2), 'Anna');
  assert.equal(call('vector-set!', vec, 1, list('Sue', 'Sue')), VOID);
  assert.equal(vec[0], 0);
  assert.deepEqual(listToArray(vec[1]), ['Sue', 'Sue']);
  assert.equal(vec[2], 'Anna');
  const lit = literal([0, 1, 2]);
  assertError(() => call('vector-set!', lit, 1, 'doe'), 'vector-set!', 'cannot mutate a literal constant', [lit], 'immutable');
  assert.equal(lit[1], 1);
  assertError(() => call('vector-set!', vec, 3, 0), 'vector-set!', 'index out of range', [3, 3], 'range');
});

test('vector->list and list->vector give the results of the R7RS examples', () => {
  const v = literal([sym('dah'), sym('dah'), sym('didah')]);
  assert.deepEqual(listToArray(call('vector->list', v)), [sym('dah'), sym('dah'), sym('didah')]);
  assert.deepEqual(listToArray(call('vector->list', v, 1)), [sym('dah'), sym('didah')]);
  assert.deepEqual(listToArray(call('vector->list', v, 1, 2)), [sym('dah')]);
  assert.equal(call('vector->list', v, 3), null);
  assert.deepEqual(call('list->vector', list(sym('dididit'), sym('dah'))), [sym('dididit'), sym('dah')]);
  assert.deepEqual(call('list->vector', null), []);
  assertError(() => call('vector->list', v, 2, 1), 'vector->list', 'index out of range', [1, 3], 'range');
  assertError(() => call('vector->list', v, 0, 4), 'vector->list', 'index out of range', [4, 3], 'range');
  assertError(() => call('list->vector', 5), 'list->vector', 'expected a proper list', [5], 'type');
});

test('string->vector and vector->string give the results of the R7RS examples, by code point', () => {
  assert.deepEqual(call('string->vector', 'ABC'), [ch('A'), ch('B'), ch('C')]);
  assert.deepEqual(call('string->vector', 'a😀b', 1), [ch('😀'), ch('b')]);
  assert.deepEqual(call('string->vector', 'abcd', 1, 3), [ch('b'), ch('c')]);
  // vector->string makes a fresh mutable string: compared by its text
  assert.equal(call('vector->string', literal([ch('1'), ch('2'), ch('3')])).text(), '123');
  assert.equal(call('vector->string', [ch('a'), ch('😀'), ch('c')], 1).text(), '😀c');
  assert.equal(call('vector->string', [ch('a'), ch('b'), ch('c')], 0, 2).text(), 'ab');
  assertError(() => call('vector->string', [ch('a'), 2]), 'vector->string', 'expected a character', [2], 'type');
  assertError(() => call('string->vector', 'abc', 4), 'string->vector', 'index out of range', [4, 3], 'range');
});

test('vector-copy gives the results of the R7RS examples and returns a mutable copy', () => {
  const a = literal([1, 8, 2, 8]);
  const b = call('vector-copy', a);
  call('vector-set!', b, 0, 3);
  assert.deepEqual(b, [3, 8, 2, 8]);
  assert.deepEqual(a, [1, 8, 2, 8]);
  const c = call('vector-copy', b, 1, 3);
  assert.deepEqual(c, [8, 2]);
  assert.deepEqual(call('vector-copy', b, 2), [2, 8]);
  assertError(() => call('vector-copy', b, 5), 'vector-copy', 'index out of range', [5, 4], 'range');
});

test('vector-copy! gives the result of the R7RS example and is correct on overlapping ranges', () => {
  const a = call('vector', 1, 2, 3, 4, 5);
  const b = call('vector', 10, 20, 30, 40, 50);
  assert.equal(call('vector-copy!', b, 1, a, 0, 2), VOID);
  assert.deepEqual(b, [10, 1, 2, 40, 50]);
  const right = call('vector', 1, 2, 3, 4, 5);
  call('vector-copy!', right, 1, right, 0, 4);
  assert.deepEqual(right, [1, 1, 2, 3, 4], 'copy to the right within one vector');
  const left = call('vector', 1, 2, 3, 4, 5);
  call('vector-copy!', left, 0, left, 1);
  assert.deepEqual(left, [2, 3, 4, 5, 5], 'copy to the left within one vector');
  const whole = call('vector', 0, 0, 0);
  call('vector-copy!', whole, 0, literal([7, 8, 9]));
  assert.deepEqual(whole, [7, 8, 9]);
  assertError(() => call('vector-copy!', call('vector', 0, 0), 1, literal([1, 2])), 'vector-copy!', 'not enough room in the destination', [1, 2, 2], 'range');
  const lit = literal([0, 0]);
  assertError(() => call('vector-copy!', lit, 0, [1]), 'vector-copy!', 'cannot mutate a literal constant', [lit], 'immutable');
  assertError(() => call('vector-copy!', whole, 4, [1]), 'vector-copy!', 'index out of range', [4, 3], 'range');
});

test('vector-append gives the result of the R7RS example and keeps nested vectors whole', () => {
  const abc = literal([sym('a'), sym('b'), sym('c')]);
  const def = literal([sym('d'), sym('e'), sym('f')]);
  assert.deepEqual(call('vector-append', abc, def), [sym('a'), sym('b'), sym('c'), sym('d'), sym('e'), sym('f')]);
  assert.deepEqual(call('vector-append'), []);
  const r = call('vector-append', [[1, 2]], [3]);
  assert.deepEqual(r, [[1, 2], 3]);
  assert.equal(Object.isFrozen(call('vector-append', abc)), false);
  assertError(() => call('vector-append', abc, list(1)), 'vector-append', 'expected a vector', [list(1)]);
});

test('vector-fill! gives the result of the R7RS example and refuses a literal constant', () => {
  const a = call('vector', 1, 2, 3, 4, 5);
  call('vector-fill!', a, sym('smash'), 2, 4);
  assert.deepEqual(a, [1, 2, sym('smash'), sym('smash'), 5]);
  call('vector-fill!', a, 0);
  assert.deepEqual(a, [0, 0, 0, 0, 0]);
  const lit = literal([1]);
  assertError(() => call('vector-fill!', lit, 0), 'vector-fill!', 'cannot mutate a literal constant', [lit], 'immutable');
});
