// @ts-check
/**
 * read(write(x)) equals x, for a large generated corpus of data: every kind of atom
 * (including awkward symbols, strings, characters and numbers), nested lists, vectors,
 * bytevectors, shared structure and cycles.
 *  - `write` and `write-simple` (acyclic data): the data read back are equal as infinite
 *    trees (bisimilar), which is what `equal?` on cyclic data means;
 *  - `write-shared`: the data read back have exactly the same sharing (isomorphic graphs).
 * Printing the data read back gives the same text again.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readAll } from '../src/reader.js';
import { writeString, writeSharedString, writeSimpleString } from '../src/printer.js';
import { Pair, Sym, Char, Flonum, VOID, EOF, DEFAULT, arrayToList } from '../src/values.js';
import { makeRational, numEqv, isNumber } from '../src/numbers.js';

/** A small deterministic PRNG (xorshift32). @param {number} seed */
function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  return {
    next,
    /** @param {number} n */
    int: (n) => Math.floor(next() * n),
    /** @template T @param {T[]} a @returns {T} */
    pick: (a) => a[Math.floor(next() * a.length)],
  };
}

// Characters that stress the lexical syntax.
const PALETTE = [
  ...'abcxyzABZ0123456789',
  ...'+-.@#|\\"\';`,()[]{} \t\n\r\f\v',
  '\x00', '\x01', '\x07', '\x08', '\x1b', '\x7f', '\x85', '\u00a0', '\u2028', '\u200b',
  'λ', 'é', 'ß', '中', '😀', '𝄞',
];
const SYMBOL_SEEDS = [
  '', '.', '..', '...', '+', '-', '+1', '-1', '1+', '1', '1/2', '1e5', '+i', '-i', '1+2i', '+inf.0', '-nan.0',
  '#foo', '#t', 'a b', '|', '\\', 'abc', '->x', 'λ', 'a;b', '#!eof', 'x#y', '.5', '+.', 'nan.0',
];

/** @param {ReturnType<typeof rng>} r */
function randomText(r, maxLen = 8) {
  let s = '';
  const n = r.int(maxLen + 1);
  for (let i = 0; i < n; i++) s += r.pick(PALETTE);
  return s;
}

/** @param {ReturnType<typeof rng>} r */
function randomNumber(r) {
  switch (r.int(9)) {
    case 0:
      return r.int(2001) - 1000;
    case 1:
      return r.pick([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0]);
    case 2: {
      let b = 1n;
      const bits = 54 + r.int(300);
      for (let i = 0; i < bits; i += 16) b = (b << 16n) | BigInt(r.int(65536));
      return r.int(2) ? b : -b;
    }
    case 3:
      return makeRational(BigInt(r.int(2000001) - 1000000), BigInt(r.int(1000000) + 1));
    case 4:
      return makeRational(BigInt(r.int(1 << 30)) ** 3n + 1n, 2n ** 80n + BigInt(r.int(1000)));
    case 5: {
      const buf = new Float64Array(1);
      const u = new Uint32Array(buf.buffer);
      u[0] = r.int(2 ** 32);
      u[1] = r.int(2 ** 32);
      return new Flonum(buf[0]);
    }
    case 6:
      return new Flonum(r.pick([0, -0, 1, -1.5, 0.1, 1e21, 1e-7, 5e-324, Infinity, -Infinity, NaN, 123456789.125]));
    case 7:
      return new Flonum((r.next() - 0.5) * 10 ** (r.int(40) - 20));
    default:
      return new Flonum(r.int(1000));
  }
}

/** @param {ReturnType<typeof rng>} r */
function randomAtom(r) {
  switch (r.int(12)) {
    case 0:
    case 1:
      return randomNumber(r);
    case 2:
      return randomText(r);
    case 3: {
      const k = r.int(4);
      if (k === 0) return Char.of(r.pick(PALETTE).codePointAt(0) ?? 0);
      if (k === 1) {
        let c;
        do c = r.int(0x10000);
        while (c >= 0xd800 && c <= 0xdfff);
        return Char.of(c);
      }
      if (k === 2) return Char.of(0x10000 + r.int(0x100000));
      return Char.of(r.pick([0, 7, 8, 9, 10, 13, 27, 32, 127, 40, 41, 59, 34, 92, 124, 35]));
    }
    case 4:
      return Sym.intern(r.pick(SYMBOL_SEEDS));
    case 5:
      return Sym.intern(randomText(r, 6));
    case 6:
      return r.int(2) === 0;
    case 7:
      return r.pick([null, VOID, EOF, DEFAULT]);
    case 8: {
      const b = new Uint8Array(r.int(5));
      for (let i = 0; i < b.length; i++) b[i] = r.int(256);
      return b;
    }
    default:
      return Sym.intern(r.pick(['a', 'b', 'quote', 'quasiquote', 'unquote', 'unquote-splicing', 'define']));
  }
}

/**
 * A random datum; `nodes` collects its pairs and vectors.
 * @param {ReturnType<typeof rng>} r @param {number} depth @param {any[]} nodes
 * @returns {any}
 */
function randomDatum(r, depth, nodes) {
  if (depth <= 0 || r.int(3) === 0) return randomAtom(r);
  const k = r.int(5);
  const n = r.int(6);
  const items = [];
  for (let i = 0; i < n; i++) items.push(randomDatum(r, depth - 1, nodes));
  if (k === 0) {
    nodes.push(items);
    return items;
  }
  const tail = k === 1 && n > 0 ? randomAtom(r) : null;
  if (n === 0) return tail;
  const l = arrayToList(items, tail === null || tail instanceof Pair ? null : tail);
  for (let p = l; p instanceof Pair; p = p.cdr) nodes.push(p);
  return l;
}

/**
 * Add shared structure and cycles by pointing random slots at random nodes.
 * @param {ReturnType<typeof rng>} r @param {any[]} nodes
 */
function tangle(r, nodes) {
  const m = r.int(4);
  for (let i = 0; i < m && nodes.length > 0; i++) {
    const from = r.pick(nodes);
    const to = r.pick(nodes);
    if (Array.isArray(from)) {
      if (from.length > 0) from[r.int(from.length)] = to;
    } else if (r.int(2)) from.car = to;
    else from.cdr = to;
  }
}

/** @param {any} a @param {any} b */
function atomsEqual(a, b) {
  if (isNumber(a)) return isNumber(b) && numEqv(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/**
 * Equality of possibly cyclic data. `iso` false: bisimilarity (equal as infinite trees).
 * `iso` true: the same graph up to renaming of nodes (sharing preserved exactly).
 * @param {any} a @param {any} b @param {boolean} iso
 */
function sameData(a, b, iso) {
  /** @type {Map<any, any>} */
  const fwd = new Map();
  /** @type {Map<any, any>} */
  const back = new Map();
  /** @type {Map<any, Set<any>>} */
  const assumed = new Map();
  const work = [[a, b]];
  while (work.length > 0) {
    const [x, y] = /** @type {[any, any]} */ (work.pop());
    const xNode = x instanceof Pair || Array.isArray(x);
    const yNode = y instanceof Pair || Array.isArray(y);
    if (!xNode || !yNode) {
      if (xNode !== yNode || !atomsEqual(x, y)) return false;
      continue;
    }
    if (iso) {
      if (fwd.has(x) || back.has(y)) {
        if (fwd.get(x) !== y || back.get(y) !== x) return false;
        continue;
      }
      fwd.set(x, y);
      back.set(y, x);
    } else {
      let s = assumed.get(x);
      if (s === undefined) assumed.set(x, (s = new Set()));
      if (s.has(y)) continue;
      s.add(y);
    }
    if (x instanceof Pair) {
      if (!(y instanceof Pair)) return false;
      work.push([x.car, y.car], [x.cdr, y.cdr]);
    } else {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) work.push([x[i], y[i]]);
    }
  }
  return true;
}

/** @param {string} text */
function readOne(text) {
  const data = readAll(text);
  assert.equal(data.length, 1, `one datum in ${JSON.stringify(text)}`);
  return data[0];
}

/**
 * Whether a datum has a cycle: a plain recursive depth-first search with colours (the
 * reference the printer's own analysis is checked against; test data are shallow).
 * @param {any} x
 */
function hasCycle(x) {
  /** @type {Map<any, number>} */
  const colour = new Map();
  /** @param {any} n @returns {boolean} */
  const visit = (n) => {
    if (!(n instanceof Pair) && !Array.isArray(n)) return false;
    const c = colour.get(n);
    if (c === 1) return true;
    if (c === 2) return false;
    colour.set(n, 1);
    const kids = n instanceof Pair ? [n.car, n.cdr] : n;
    for (const k of kids) if (visit(k)) return true;
    colour.set(n, 2);
    return false;
  };
  return visit(x);
}

describe('read(write(x)) round trip', () => {
  test('atoms of every kind', () => {
    const r = rng(1);
    for (let i = 0; i < 5000; i++) {
      const x = randomAtom(r);
      const text = writeString(x);
      const y = readOne(text);
      assert.ok(sameData(x, y, true), `${text} read back as ${writeString(y)}`);
      assert.equal(writeString(y), text);
    }
  });

  test('symbols with arbitrary names, including every awkward character', () => {
    const r = rng(2);
    for (let i = 0; i < 3000; i++) {
      const name = randomText(r, 10);
      const text = writeString(Sym.intern(name));
      assert.equal(readOne(text), Sym.intern(name), `${JSON.stringify(name)} written as ${text}`);
    }
  });

  test('strings with arbitrary contents', () => {
    const r = rng(3);
    for (let i = 0; i < 3000; i++) {
      const s = randomText(r, 20);
      assert.equal(readOne(writeString(s)), s);
    }
  });

  test('nested acyclic data with write and write-simple', () => {
    const r = rng(4);
    for (let i = 0; i < 2000; i++) {
      const x = randomDatum(r, 5, []);
      for (const w of [writeString, writeSimpleString]) {
        const text = w(x);
        const y = readOne(text);
        assert.ok(sameData(x, y, false), `${text} read back as ${writeString(y)}`);
        assert.equal(w(y), text);
      }
    }
  });

  test('shared and cyclic data with write: equal as infinite trees', () => {
    const r = rng(5);
    let cyclic = 0;
    for (let i = 0; i < 2000; i++) {
      const nodes = [];
      const x = randomDatum(r, 4, nodes);
      tangle(r, nodes);
      const text = writeString(x);
      if (text.includes('#0=')) cyclic++;
      const y = readOne(text);
      assert.ok(sameData(x, y, false), `${text} read back as ${writeString(y)}`);
      assert.equal(writeString(y), text);
    }
    assert.ok(cyclic > 100, `the corpus has cycles (${cyclic})`);
  });

  test('shared and cyclic data with write-shared: sharing preserved exactly', () => {
    const r = rng(6);
    for (let i = 0; i < 2000; i++) {
      const nodes = [];
      const x = randomDatum(r, 4, nodes);
      tangle(r, nodes);
      const text = writeSharedString(x);
      const y = readOne(text);
      assert.ok(sameData(x, y, true), `${text} read back as ${writeSharedString(y)}`);
      assert.equal(writeSharedString(y), text);
    }
  });

  test('write uses no labels exactly when the datum has no cycle', () => {
    const r = rng(7);
    for (let i = 0; i < 1000; i++) {
      const nodes = [];
      const x = randomDatum(r, 4, nodes);
      tangle(r, nodes);
      const labelled = /#\d+=/.test(writeString(x).replace(/"(\\.|[^"\\])*"|\|(\\.|[^|\\])*\||#\\./g, ''));
      assert.equal(labelled, hasCycle(x));
    }
  });

  test('a 1,000,000-element list and 100,000-deep nesting round-trip', () => {
    const big = arrayToList(Array.from({ length: 1_000_000 }, (_, i) => (i % 3 === 0 ? i : i % 3 === 1 ? 'str' : Sym.intern('sym'))));
    const y = readAll(writeString(big), { locations: false })[0];
    assert.ok(sameData(big, y, true));
    let deep = null;
    for (let i = 0; i < 100_000; i++) deep = new Pair(deep, new Pair(i, null));
    const text = writeString(deep);
    assert.ok(sameData(deep, readAll(text, { locations: false })[0], true));
  });
});
