// @ts-check
/**
 * Bytevectors decoded as views (decodeValue's viewBytes, given for frames just
 * received): a large bytevector that is most of its input's buffer is a view of it
 * (no copy); a small one, or one in a buffer mostly holding other data, is copied, so a
 * kept bytevector never pins a receive buffer much larger than itself; without the
 * option every bytevector is a copy. Two bytevectors of one input never share bytes:
 * writing one leaves the other, and the other messages of the buffer, as they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue } from '../src/codec/index.js';
import { Pair } from '../src/values.js';

/** `value`'s encoding alone in a buffer of exactly its size. @param {any} value */
function ownBuffer(value) {
  return new Uint8Array(encodeValue(value));
}

/** @param {number} n @param {number} seed */
function bytes(n, seed) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i + seed) & 0xff;
  return b;
}

test('viewBytes: a 64 KiB bytevector that is most of its buffer is a view of it, not a copy', () => {
  const input = ownBuffer(new Pair(1, bytes(65_536, 3)));
  const v = decodeValue(input, { viewBytes: true });
  assert.ok(v.cdr.buffer === input.buffer, 'a view of the input');
  assert.deepEqual(v.cdr, bytes(65_536, 3));
  const copied = decodeValue(input);
  assert.ok(copied.cdr.buffer !== input.buffer, 'without viewBytes, a copy');
  assert.deepEqual(copied.cdr, v.cdr);
});

test('viewBytes: a small bytevector in a 64 KiB receive buffer is copied (it does not pin the buffer)', () => {
  const frame = encodeValue(new Pair(2, bytes(100, 5)));
  const chunk = new Uint8Array(65_536); // a receive buffer holding this frame among others
  chunk.set(frame, 1000);
  const v = decodeValue(chunk, { viewBytes: true }, 1000, 1000 + frame.length);
  assert.ok(v.cdr.buffer !== chunk.buffer);
  assert.equal(v.cdr.buffer.byteLength, 100, 'its own 100 bytes, not the 64 KiB chunk');
  // a 20 KiB bytevector is under half of the 64 KiB chunk: copied too
  const mid = encodeValue(new Pair(3, bytes(20_000, 1)));
  chunk.set(mid, 2000);
  const m = decodeValue(chunk, { viewBytes: true }, 2000, 2000 + mid.length);
  assert.ok(m.cdr.buffer !== chunk.buffer);
  assert.deepEqual(m.cdr, bytes(20_000, 1));
});

test('viewBytes: writing a decoded bytevector leaves every other value of the same buffer as it was', () => {
  // two messages in one receive buffer: the 60 KiB one is a view, the 20 KiB one a copy
  const a = encodeValue(bytes(60_000, 1));
  const b = encodeValue(bytes(20_000, 2));
  const chunk = new Uint8Array(a.length + b.length);
  chunk.set(a, 0);
  chunk.set(b, a.length);
  const va = decodeValue(chunk, { viewBytes: true }, 0, a.length);
  const vb = decodeValue(chunk, { viewBytes: true }, a.length, chunk.length);
  assert.ok(va.buffer === chunk.buffer, 'the large one is a view');
  assert.ok(vb.buffer !== chunk.buffer, 'the small one a copy');
  va.fill(0xff); // what bytevector-u8-set! / bytevector-fill! do
  assert.ok(Buffer.from(vb).equals(Buffer.from(bytes(20_000, 2))), 'the other message is untouched');
  vb.fill(0xee);
  assert.ok(Buffer.from(chunk.subarray(a.length)).equals(Buffer.from(b)), 'the receive buffer is untouched by the copy');
  // one value holding the same contents twice decodes to two bytevectors that share no bytes
  const twice = ownBuffer([bytes(30_000, 4), bytes(30_000, 4)]);
  const [x, y] = decodeValue(twice, { viewBytes: true });
  x[0] = 99;
  assert.equal(y[0], 4, 'two bytevectors never share bytes');
});
