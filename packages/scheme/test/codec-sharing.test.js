// @ts-check
/**
 * The codec's sharing pass (codec/sharing.js): the fast pass, which records no pair of a
 * list after its first, finds exactly the shared objects the exact pass finds, on
 * values built at random with every kind of sharing (lists that merge, an element that
 * is the inside of another list, cycles, vectors reached twice); encoding a long list
 * is fast enough for one turn of the event loop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '@termite/scheme';
import { encodeValue, decodeValue } from '../src/codec/index.js';
import { findShared, findSharedExact } from '../src/codec/sharing.js';
import { Pair } from '../src/values.js';

boot();

/** A small deterministic generator. @param {number} seed */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return (/** @type {number} */ n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

/**
 * A value of lists and vectors where, with some probability, an element is an object
 * made before (a whole list, the inside of a list, a vector), a list's tail is another
 * list's pair, or a list loops.
 * @param {number} seed
 */
function randomValue(seed) {
  const r = rng(seed);
  /** @type {any[]} */
  const made = [];
  /** @param {number} depth @returns {any} */
  function make(depth) {
    const k = r(10);
    if (depth > 3 || k < 3) return r(4) === 0 ? `s${r(5)}` : r(100);
    if (k < 5 && made.length > 0) return made[r(made.length)];
    if (k < 7) {
      const v = Array.from({ length: r(4) }, () => make(depth + 1));
      made.push(v);
      return v;
    }
    const n = 1 + r(6);
    /** @type {any} */
    let l = r(5) === 0 && made.length > 0 ? made[r(made.length)] : null;
    if (!(l instanceof Pair) && l !== null && r(2) === 0) l = null;
    /** @type {Pair[]} */
    const pairs = [];
    for (let i = 0; i < n; i++) {
      l = new Pair(make(depth + 1), l);
      pairs.push(l);
    }
    if (r(8) === 0) pairs[0].cdr = pairs[r(pairs.length)]; // a loop
    for (const p of pairs) if (r(3) === 0) made.push(p);
    return l;
  }
  return make(0);
}

/** @param {Set<any>|null} s */
const asSet = (s) => s ?? new Set();

test('the fast sharing pass finds exactly what the exact pass finds (2,000 random values)', () => {
  for (let seed = 1; seed <= 2000; seed++) {
    const v = randomValue(seed);
    const fast = asSet(findShared(v, undefined));
    const exact = asSet(findSharedExact(v, undefined));
    assert.equal(fast.size, exact.size, `seed ${seed}`);
    for (const x of exact) assert.ok(fast.has(x), `seed ${seed}`);
    const bytes = encodeValue(v);
    assert.deepEqual(encodeValue(decodeValue(bytes)), bytes, `seed ${seed}: the round trip keeps the sharing`);
  }
});

test('the inside of a list used as an element, and two lists with one tail, are shared', () => {
  const inner = new Pair(1, new Pair(2, new Pair(3, null)));
  const v = new Pair(inner, new Pair(inner.cdr, new Pair(new Pair(0, inner.cdr.cdr), null)));
  const shared = asSet(findShared(v, undefined));
  assert.ok(shared.has(inner.cdr) && shared.has(inner.cdr.cdr));
  assert.equal(shared.size, 2);
  const back = decodeValue(encodeValue(v));
  assert.equal(back.car.cdr, back.cdr.car);
  assert.equal(back.cdr.cdr.car.cdr, back.car.cdr.cdr);
});

test('a list of 100,000 numbers is encoded in about the time it takes to build it (and 1,000,000 needs no identity map)', () => {
  /** @param {number} n */
  const numbers = (n) => {
    let l = null;
    for (let i = 0; i < n; i++) l = new Pair(i, l);
    return l;
  };
  // the reference is measured in the same run, alternately, so the machine's load
  // weighs on both: building the list allocates 100,000 pairs, encoding writes ~370 KB
  const build = [];
  const encode = [];
  for (let i = 0; i < 9; i++) {
    const t0 = performance.now();
    const l = numbers(100_000);
    const t1 = performance.now();
    encodeValue(l);
    encode.push(performance.now() - t1);
    build.push(t1 - t0);
  }
  const median = (/** @type {number[]} */ a) => a.sort((x, y) => x - y)[a.length >> 1];
  // ~1x alone (the sharing pass with an identity map made it ~10x)
  assert.ok(median(encode) < 4 * median(build), `encoding ${median(encode).toFixed(1)} ms, building ${median(build).toFixed(1)} ms`);
  assert.equal(findShared(numbers(1_000_000), undefined), null);
});
