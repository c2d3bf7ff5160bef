// @ts-check
// R7RS §6.9 Bytevectors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Flonum, SchemeError, VOID, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import '../src/primitives/prims-vectors.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
/** @param {...number} xs */
const u8 = (...xs) => Uint8Array.from(xs);

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
const BYTE = 'expected a byte (an exact integer from 0 to 255)';

test('bytevector? recognises bytevectors only', () => {
  assert.equal(call('bytevector?', u8(1)), true);
  assert.equal(call('bytevector?', new Uint8Array(0)), true);
  assert.equal(call('bytevector?', [1]), false);
  assert.equal(call('bytevector?', 'a'), false);
});

test('make-bytevector and bytevector give the results of the R7RS examples and check bytes', () => {
  assert.deepEqual(call('make-bytevector', 2, 12), u8(12, 12));
  assert.deepEqual(call('make-bytevector', 3), u8(0, 0, 0));
  assert.deepEqual(call('bytevector', 1, 3, 5, 1, 3, 5), u8(1, 3, 5, 1, 3, 5));
  assert.deepEqual(call('bytevector'), u8());
  assertError(() => call('make-bytevector', 2, 256), 'make-bytevector', BYTE, [256], 'type');
  assertError(() => call('bytevector', 1, -1), 'bytevector', BYTE, [-1], 'type');
  const f = new Flonum(1);
  assertError(() => call('bytevector', f), 'bytevector', BYTE, [f], 'type');
  assertError(() => call('make-bytevector', -1), 'make-bytevector', 'expected an exact non-negative integer', [-1]);
});

test('bytevector-u8-ref and bytevector-u8-set! give the results of the R7RS examples', () => {
  assert.equal(call('bytevector-u8-ref', u8(1, 1, 2, 3, 5, 8, 13, 21), 5), 8);
  const bv = call('bytevector', 1, 2, 3, 4);
  assert.equal(call('bytevector-u8-set!', bv, 1, 3), VOID);
  assert.deepEqual(bv, u8(1, 3, 3, 4));
  assertError(() => call('bytevector-u8-ref', bv, 4), 'bytevector-u8-ref', 'index out of range', [4, 4], 'range');
  assertError(() => call('bytevector-u8-set!', bv, 0, 300), 'bytevector-u8-set!', BYTE, [300], 'type');
  assertError(() => call('bytevector-u8-ref', [1], 0), 'bytevector-u8-ref', 'expected a bytevector', [[1]], 'type');
  assert.equal(call('bytevector-length', bv), 4);
  assert.equal(call('bytevector-length', u8()), 0);
});

test('bytevector-copy gives the result of the R7RS example and returns a fresh bytevector', () => {
  const a = u8(1, 2, 3, 4, 5);
  assert.deepEqual(call('bytevector-copy', a, 2, 4), u8(3, 4));
  const c = call('bytevector-copy', a);
  c[0] = 9;
  assert.equal(a[0], 1);
  assert.deepEqual(call('bytevector-copy', a, 3), u8(4, 5));
  assertError(() => call('bytevector-copy', a, 4, 2), 'bytevector-copy', 'index out of range', [2, 5], 'range');
});

test('bytevector-copy! gives the result of the R7RS example and handles overlap', () => {
  const a = call('bytevector', 1, 2, 3, 4, 5);
  const b = call('bytevector', 10, 20, 30, 40, 50);
  call('bytevector-copy!', b, 1, a, 0, 2);
  assert.deepEqual(b, u8(10, 1, 2, 40, 50));
  const r = call('bytevector', 1, 2, 3, 4, 5);
  call('bytevector-copy!', r, 1, r, 0, 4);
  assert.deepEqual(r, u8(1, 1, 2, 3, 4));
  const l = call('bytevector', 1, 2, 3, 4, 5);
  call('bytevector-copy!', l, 0, l, 1);
  assert.deepEqual(l, u8(2, 3, 4, 5, 5));
  assertError(() => call('bytevector-copy!', u8(0, 0), 1, u8(1, 2)), 'bytevector-copy!', 'not enough room in the destination', [1, 2, 2], 'range');
});

test('bytevector-append gives the result of the R7RS example', () => {
  assert.deepEqual(call('bytevector-append', u8(0, 1, 2), u8(3, 4, 5)), u8(0, 1, 2, 3, 4, 5));
  assert.deepEqual(call('bytevector-append'), u8());
  assertError(() => call('bytevector-append', u8(1), 'x'), 'bytevector-append', 'expected a bytevector', ['x']);
});

test('utf8->string and string->utf8 give the results of the R7RS examples, with ranges', () => {
  assert.equal(call('utf8->string', u8(0x41)), 'A');
  assert.deepEqual(call('string->utf8', 'λ'), u8(0xce, 0xbb));
  assert.deepEqual(call('string->utf8', '😀'), u8(0xf0, 0x9f, 0x98, 0x80));
  assert.equal(call('utf8->string', u8(0xf0, 0x9f, 0x98, 0x80)), '😀');
  assert.equal(call('utf8->string', u8(0x61, 0x62, 0x63, 0x64), 1, 3), 'bc');
  assert.deepEqual(call('string->utf8', 'aλ😀b', 1, 3), u8(0xce, 0xbb, 0xf0, 0x9f, 0x98, 0x80), 'start and end count characters');
  assert.deepEqual(call('string->utf8', 'abc', 2), u8(0x63));
  assert.equal(call('utf8->string', u8(0xef, 0xbb, 0xbf, 0x41)), '\ufeffA', 'a byte order mark is kept');
  assert.equal(call('utf8->string', u8(0xff, 0x41)), '\ufffdA', 'invalid UTF-8 becomes U+FFFD');
  assertError(() => call('string->utf8', 'abc', 0, 4), 'string->utf8', 'index out of range', [4, 3], 'range');
  assertError(() => call('utf8->string', 'abc'), 'utf8->string', 'expected a bytevector', ['abc'], 'type');
});
