// @ts-check
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  loadCore, encode, decode, formal, float, Sym, Formal, Float, Simple, Tag, EncodeError,
} from '../src/index.js';

const hex = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('hex');
const core = await loadCore();

test('JS values encode to the documented canonical CBOR', () => {
  const cases = /** @type {[unknown, string][]} */ ([
    [0, '00'], [23, '17'], [24, '1818'], [-1, '20'], [-25, '3818'], [1000, '1903e8'],
    [2 ** 32, '1b0000000100000000'], [Number.MAX_SAFE_INTEGER, '1b001fffffffffffff'],
    [1e19, '1b8ac7230489e80000'], [1e20, 'c249056bc75e2d63100000'], [-0, '00'],
    [1.5, 'f93e00'], [0.1, 'fb3fb999999999999a'], [100000.5, 'fa47c35040'], [-Infinity, 'f9fc00'],
    [NaN, 'f97e00'], [2 ** -24, 'f90001'], [float(1), 'f93c00'], [float(-0), 'f98000'],
    [2n ** 64n, 'c249010000000000000000'], [-(2n ** 64n) - 1n, 'c349010000000000000000'],
    [5n, '05'], [-(2n ** 64n), '3bffffffffffffffff'],
    ['', '60'], ['ping', '6470696e67'], ['é', '62c3a9'], ['x'.repeat(30), '781e' + '78'.repeat(30)],
    [true, 'f5'], [false, 'f4'], [null, 'f6'], [undefined, 'f7'],
    [new Uint8Array([1, 2]), '420102'], [[1, [2]], '82018102'],
    [Sym.for('abc'), 'd9a00063616263'], [formal.integer, 'd9a02001'],
    [formal.tagged(40962), 'd9a020820b19a002'], [new Tag('x', 1000), 'd903e86178'],
    [new Simple(16), 'f0'],
  ]);
  for (const [value, want] of cases) assert.equal(hex(encode(value)), want, `encoding of ${String(value)}`);
});

test('the encoder output is already canonical for every non-map value', () => {
  const values = [0, -1, 255, 65536, 2 ** 40, -(2 ** 40), 1.5, 3.14159, 65504, 65505, 1e-8, 2 ** -149,
    'naïve ☃ 🙂', 'a'.repeat(300), 2n ** 100n, [1, 'x', [true, null]], Sym.for('s'), formal.any,
    new Uint8Array(300), [0.5, -0.25, 1e300]];
  for (const v of values) {
    const b = encode(v);
    assert.equal(hex(core.canonicalize(b)), hex(b), `canonical form of ${String(v)}`);
  }
});

test('maps and plain objects encode as CBOR maps that the core sorts', () => {
  const m = encode(new Map([['b', 1], ['a', 2]]));
  assert.equal(hex(core.canonicalize(m)), 'a2616102616201');
  assert.equal(hex(core.canonicalize(encode({ z: 1, aa: [2] }))), 'a2617a0162616181' + '02');
});

test('decoding returns the documented JS values', () => {
  const back = decode(core.canonicalize(encode([
    42, -7, 2n ** 70n, -(2n ** 70n), 1.5, 'héllo', new Uint8Array([9]), [null, true],
    new Map([[1, 'one']]), Sym.for('k'), formal.string, formal.tagged(7), new Tag(5, 1234), undefined,
  ])));
  assert.deepEqual(back, [
    42, -7, 2n ** 70n, -(2n ** 70n), 1.5, 'héllo', new Uint8Array([9]), [null, true],
    new Map([[1, 'one']]), Sym.for('k'), formal.string, formal.tagged(7), new Tag(5, 1234), undefined,
  ]);
  assert.equal(/** @type {unknown[]} */ (back)[9], Sym.for('k'), 'symbols are interned');
  assert.equal(decode(Uint8Array.of(0x1b, 0, 0x20, 0, 0, 0, 0, 0, 0)), 2n ** 53n);
  assert.equal(decode(Uint8Array.of(0x3b, 0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe)), -(2 ** 53) + 1);
});

test('integral floats decode to numbers and need float() to stay floats', () => {
  const back = /** @type {unknown[]} */ (decode(encode([float(2)])));
  assert.deepEqual(back, [2]);
  assert.equal(hex(encode(back)), '8102', 'a plain 2 re-encodes as an integer');
  assert.ok(new Float(2) instanceof Float);
});

test('values without a CBOR form are refused with EncodeError', () => {
  assert.throws(() => encode(() => 1), EncodeError);
  assert.throws(() => encode(Symbol('x')), { name: 'EncodeError' });
  const cyclic = /** @type {unknown[]} */ ([]);
  cyclic.push(cyclic);
  assert.throws(() => encode(cyclic), /nested deeper than 512/);
});

test('objects the fast path does not know go through cbor-x', () => {
  const b = encode(new Date(0));
  assert.equal(b[0], 0xc1, 'cbor-x writes a Date as tag 1');
  assert.ok(new Formal(3).code === 3);
});

test('a truncated input to decode is a MalformedCborError', () => {
  assert.throws(() => decode(Uint8Array.of(0x82, 0x01)), { name: 'MalformedCborError' });
  assert.throws(() => decode(Uint8Array.of(0x01, 0x02)), /trailing/);
});

test('the flat encoder writes remembered short strings right under slot reuse', () => {
  // strings of one length and first character share an encoder slot
  const words = ['ab', 'ax', 'a\u00e9', 'ab', 'abcdefgh', 'abcdefgz', 'a', 'abcd', 'abcde', 'ab'];
  for (let round = 0; round < 2; round++) {
    for (const w of words) {
      const tuple = [w, 1, w.slice(0, 1), -5, true, null, formal.any];
      const bytes = encode(tuple);
      assert.deepEqual(decode(bytes), tuple);
      assert.equal(hex(bytes.subarray(1, 2 + Buffer.byteLength(w))),
        hex(encode(w)), `the bytes of ${JSON.stringify(w)}`);
    }
  }
  // a string equal to a remembered one but another object, and an empty one
  const built = ['a', 'b'].join('');
  assert.equal(hex(encode([built, ''])), hex(encode(['ab', ''])));
  assert.equal(hex(encode([built, ''])), '82626162' + '60');
});
