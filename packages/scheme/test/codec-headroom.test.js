// @ts-check
/**
 * The value codec's headroom (codec/writer.js HEADROOM, encode.js encodedSpare): an
 * encoding that outgrows the shared slab has free bytes in front of it, in a buffer of
 * its own, which its holder may overwrite (the mesh writes a frame's envelope there);
 * an encoding in the slab has none; the answer holds only until the next encoding.
 * The bytes are those of the slab's encoding, and the buffer is not a power-of-two
 * overshoot of a single large bytevector.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeSmallValue, encodeAnyValue, encodedSpare, decodeValue } from '../src/codec/index.js';
import { HEADROOM } from '../src/codec/writer.js';
import { Pair } from '../src/values.js';

test('codec headroom: a large encoding has HEADROOM free bytes in front, a small one none', () => {
  const bv = new Uint8Array(65_536).fill(7);
  const big = /** @type {Uint8Array} */ (encodeSmallValue(new Pair(1, bv)));
  assert.equal(encodedSpare(big), HEADROOM);
  assert.ok(big.byteOffset >= HEADROOM);
  assert.ok(big.buffer.byteLength < 2 * 65_536, `one bytevector's buffer is not doubled (${big.buffer.byteLength})`);
  const decoded = decodeValue(big);
  assert.ok(decoded instanceof Pair);
  assert.deepEqual(decoded.cdr, bv);
  // overwriting the room in front leaves the encoding as it was
  const copy = big.slice();
  new Uint8Array(big.buffer, big.byteOffset - HEADROOM, HEADROOM).fill(0xff);
  assert.deepEqual(big, copy);
  const small = /** @type {Uint8Array} */ (encodeSmallValue(new Pair(1, new Uint8Array(10))));
  assert.equal(encodedSpare(small), 0, 'an encoding in the shared slab');
  assert.equal(encodedSpare(big), 0, 'valid only until the next encoding');
});

test('codec headroom: the general encoder too, and the same bytes as before', () => {
  const v = [new Uint8Array(40_000).fill(3), 'text', new Uint8Array(40_000).fill(4)];
  const a = encodeAnyValue(v);
  assert.equal(encodedSpare(a), HEADROOM);
  assert.deepEqual(decodeValue(a), v);
});
