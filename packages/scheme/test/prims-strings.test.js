// @ts-check
// prims-strings.js internals: the code-point offset cache and code-point ordering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Char } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { stringLength, unitOffset, substringCp, compareStrings } from '../src/primitives/prims-strings.js';

const stringRef = /** @type {Function} */ (primitives.get('string-ref')?.fn);

test('string-ref rotating over near-identical long astral strings stays fast', () => {
  // Same length, same content except the last character: a cache keyed by a V8 Map would
  // compare these character by character on every lookup (minutes instead of milliseconds).
  const strings = Array.from({ length: 8 }, (_, i) => `${'😀'.repeat(50_000)}${String.fromCharCode(65 + i)}`);
  const started = Date.now();
  for (let round = 0; round < 5000; round++) {
    for (const s of strings) assert.equal(stringRef(s, round), Char.of(0x1f600));
  }
  for (const [i, s] of strings.entries()) assert.equal(stringRef(s, 50_000), Char.of(65 + i));
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
});

test('string-ref over a copy equal to a cached long string is O(1) per call after the first', () => {
  // Two distinct string objects with the same content: the first call with the copy
  // compares every unit (===); the cache then keeps the copy, so the next 200,000 calls
  // match at once. Before, each of them compared the whole string again (O(n²): seconds).
  const n = 200_000;
  const original = 'a'.repeat(n - 1) + 'b';
  const copy = ['a'.repeat(n - 1), 'b'].join('');
  stringRef(original, 0);
  const started = Date.now();
  for (let i = 0; i < n; i++) stringRef(copy, i);
  assert.equal(stringRef(copy, n - 1), Char.of(0x62));
  assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
});

test('offsets, lengths and substrings agree with the string iterator on mixed strings', () => {
  const pieces = ['a', 'λ', '😀', '\ue000', '𐐀', 'z'];
  for (let n = 0; n < 300; n += 7) {
    let s = '';
    for (let i = 0; i < n; i++) s += pieces[(i * 5 + n) % pieces.length];
    const cps = [...s];
    assert.equal(stringLength(s), cps.length);
    let unit = 0;
    for (let k = 0; k < cps.length; k++) {
      assert.equal(unitOffset(s, k), unit);
      unit += cps[k].length;
    }
    assert.equal(unitOffset(s, cps.length), s.length);
    assert.equal(substringCp(s, 1, Math.max(1, cps.length - 1)), cps.slice(1, Math.max(1, cps.length - 1)).join(''));
  }
});

test('compareStrings orders by code point, which differs from UTF-16 order above U+D7FF', () => {
  const sorted = ['', 'a', 'ab', 'b', '\ud7ff', '\ue000', '\uffff', '𝟎', '😀', '😀a'];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = 0; j < sorted.length; j++) assert.equal(Math.sign(compareStrings(sorted[i], sorted[j])), Math.sign(i - j), `${i} ${j}`);
  }
});
