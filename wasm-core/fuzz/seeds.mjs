#!/usr/bin/env node
// @ts-check
/**
 * seeds.mjs — (re)writes the committed seed corpora of the fuzz targets:
 * fuzz/corpus/cbor/ (CBOR items, canonical and not, valid and not) and
 * fuzz/corpus/match/ (a template and tuples in fuzz_match's record format).
 * Run from anywhere: node wasm-core/fuzz/seeds.mjs
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode, formal, Sym, Tag, float } from '../../packages/core/src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const hex = (/** @type {string} */ h) => Uint8Array.from(h.replace(/\s+/g, '').match(/../g) ?? [], (b) => parseInt(b, 16));

const cbor = {
  'uint-small': '05', 'uint-noncanonical': '1b 0000000000000001', 'nint': '38 63',
  'text-ascii': '64 70696e67', 'text-utf8': '64 f09f9880', 'text-indef': '7f 61 61 61 62 ff',
  'bytes-indef': '5f 41 01 42 0203 ff', 'array-nested': '83 01 82 02 03 81 04',
  'array-indef': '9f 01 9f 02 ff ff', 'map-unsorted': 'a3 61 62 01 61 61 02 0a 03',
  'map-indef': 'bf 63 616263 f5 61 7a f6 ff', 'float-half': 'f9 3e00', 'float-f64-shrinks': 'fb 3ff8000000000000',
  'float-nan-payload': 'fb 7ff8000000000001', 'float-subnormal': 'fb 3e70000000000000',
  'bignum-small': 'c2 43 000102', 'bignum-big': 'c2 49 010000000000000000', 'bignum-neg': 'c3 48 ffffffffffffffff',
  'symbol': 'd9 a000 63 616263', 'formal-int': 'd9 a020 01', 'formal-tagged': 'd9 a020 82 0b 19 a002',
  'rational': 'd8 1e 82 01 03', 'simple-values': '84 f4 f5 f6 f7', 'simple-two-byte': 'f8 20',
  'bad-truncated': '82 01', 'bad-utf8': '62 c3 28', 'bad-reserved': '1c', 'bad-break': 'ff',
  'bad-dup-key': 'a2 01 00 18 01 00', 'bad-chunk': '5f 61 61 ff', 'bad-huge-length': '9b ffffffffffffffff',
  'deep': '81'.repeat(70) + '00', 'tuple-mixed': '86 64 70696e67 18 2a f9 3c00 d9a000 61 78 42 0102 a1 01 02',
};
mkdirSync(join(here, 'corpus/cbor'), { recursive: true });
for (const [name, h] of Object.entries(cbor)) writeFileSync(join(here, 'corpus/cbor', name), hex(h));

/** One fuzz_match input: template record, then tuple records. @param {Uint8Array[]} items */
function records(items) {
  const parts = [];
  for (const b of items) parts.push(Uint8Array.of(b.length >> 8, b.length & 0xff), b);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** Bytes written as they are (to seed encodings encode() never makes). */
class Raw {
  /** @param {string} h */
  constructor(h) { this.bytes = hex(h); }
}

const match = {
  'ping': [['ping', formal.integer], ['ping', 42], ['pong', 1], ['ping', 1.5], ['ping', 7]],
  'selective': [['A', 3, formal.integer, formal.any], ['A', 1, 2, 'x'], ['A', 3, 4, 'y'], ['A', 3, 5, 'z'], ['B', 3, 4, 'y']],
  'types': [[formal.string, formal.symbol, formal.bytes, formal.boolean],
    ['s', Sym.for('k'), new Uint8Array([1]), true], ['s', 's', new Uint8Array([1]), false], ['t', Sym.for('q'), new Uint8Array(0), false]],
  'numbers': [[formal.number, formal.float, formal.integer],
    [1, 2.5, 2n ** 80n], [1.5, 3, 4], [-3, float(1), -(2n ** 70n)]],
  'tagged': [[formal.tagged(40962), formal.array, formal.map],
    [new Tag([1, 2], 40962), [1], new Map([[1, 2]])], [new Tag([1], 40963), [], new Map()]],
  'all-any': [[formal.any, formal.any], [1, 2], [[1, [2]], { a: 1 }], ['x']],
  'null-and-nested-formal': [[null, [formal.integer]], [null, [formal.integer]], [null, [1]]],
  'unknown-formal': [new Raw('82 d9a020 0c 01'), [1, 1]],
  'not-an-array': [['x'], 'not a tuple', ['x']],
};
mkdirSync(join(here, 'corpus/match'), { recursive: true });
for (const [name, items] of Object.entries(match)) {
  const enc = items.map((it) => (it instanceof Raw ? it.bytes : encode(it)));
  writeFileSync(join(here, 'corpus/match', name), records(enc));
}
console.log(`seeds: ${Object.keys(cbor).length} cbor, ${Object.keys(match).length} match`);
