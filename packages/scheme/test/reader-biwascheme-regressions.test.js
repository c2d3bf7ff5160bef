// @ts-check
/**
 * Regression tests for the reader, printer and numeric defects found in BiwaScheme 0.8.3,
 * the interpreted Scheme in JavaScript that the benchmarks measure as a baseline
 * (bench/scheme.js): each test is one defect of its reader, printer or number syntax that
 * we must not have, named after what BiwaScheme does instead.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readAll } from '../src/reader.js';
import { writeString, displayString } from '../src/printer.js';
import * as N from '../src/numbers.js';
import { Sym, Char, Flonum, Ratnum, Pair, SchemeError } from '../src/values.js';

/** @param {string} s */
const read1 = (s) => {
  const d = readAll(s);
  assert.equal(d.length, 1, `exactly one datum in ${JSON.stringify(s)}`);
  return d[0];
};

describe('BiwaScheme reader defects', () => {
  test('#xff, #b101, #o17 and #x-ff read as numbers (BiwaScheme: "invalid number format")', () => {
    assert.equal(read1('#xff'), 255);
    assert.equal(read1('#b101'), 5);
    assert.equal(read1('#o17'), 15);
    assert.equal(read1('#x-ff'), -255);
  });

  test('string->number understands radix prefixes (BiwaScheme: (string->number "#xff") is #f)', () => {
    assert.equal(N.parseNumber('#xff'), 255);
  });

  test('a carriage return is whitespace (BiwaScheme: "(a\\r\\nb)" reads as (a |\\r| b))', () => {
    const x = read1('(a\r\nb)');
    assert.equal(writeString(x), '(a b)');
    assert.equal(x.cdr.car, Sym.intern('b'));
  });

  test('#\\😀 is one character (BiwaScheme: a lone surrogate, then a symbol)', () => {
    assert.equal(read1('#\\😀'), Char.of(0x1f600));
  });

  test('an escaped backslash before x41; stays a backslash (BiwaScheme: "\\\\x41;" becomes "A")', () => {
    assert.equal(read1('"\\\\x41;"'), '\\x41;');
  });

  test('#0=(a . #0#) reads as a cyclic list (BiwaScheme: "undefined datum reference")', () => {
    const x = read1('#0=(a . #0#)');
    assert.ok(x instanceof Pair);
    assert.equal(x.cdr, x);
  });

  test('#u8(...) reads as a bytevector (BiwaScheme: "bytevectors are not supported yet")', () => {
    const b = read1('#u8(1 2 255)');
    assert.ok(b instanceof Uint8Array);
    assert.deepEqual([...b], [1, 2, 255]);
  });

  test('12345678901234567890 keeps every digit (BiwaScheme: 12345678901234567000)', () => {
    assert.equal(read1('12345678901234567890'), 12345678901234567890n);
    assert.equal(writeString(read1('12345678901234567890')), '12345678901234567890');
  });

  test('-0.0 stays negative zero (BiwaScheme: 0)', () => {
    const z = read1('-0.0');
    assert.ok(z instanceof Flonum && Object.is(z.v, -0));
    assert.equal(writeString(z), '-0.0');
  });

  test('#e1.5 is exact 3/2 (BiwaScheme ignores exactness prefixes)', () => {
    const x = read1('#e1.5');
    assert.ok(x instanceof Ratnum);
    assert.equal(writeString(x), '3/2');
  });

  test('what BiwaScheme got right still works: |sym|, #;, nested #| |#, #!fold-case, [ ], \\x41;, named chars', () => {
    assert.equal(read1('|a b|'), Sym.intern('a b'));
    assert.deepEqual(readAll('#;(x) 1'), [1]);
    assert.deepEqual(readAll('#| a #| b |# c |# 2'), [2]);
    assert.equal(read1('#!fold-case ABC'), Sym.intern('abc'));
    assert.equal(writeString(read1('[a b]')), '(a b)');
    assert.equal(read1('"\\x41;"'), 'A');
    assert.equal(read1('#\\newline'), Char.of(10));
  });

  test('1+2i reads as a complex number, 1+2 as a symbol', () => {
    assert.equal(writeString(readAll('1+2i')[0]), '1+2i');
    assert.ok(readAll('1+2')[0] instanceof Sym);
  });
});

describe('BiwaScheme printer defects', () => {
  test('|a b| is written with bars (BiwaScheme: a b)', () => {
    assert.equal(writeString(Sym.intern('a b')), '|a b|');
  });

  test('#\\null, #\\alarm and #\\delete are written by name (BiwaScheme: raw control characters)', () => {
    assert.equal(writeString(Char.of(0)), '#\\null');
    assert.equal(writeString(Char.of(7)), '#\\alarm');
    assert.equal(writeString(Char.of(127)), '#\\delete');
  });

  test('1.0 is written as 1.0 (BiwaScheme: 1)', () => {
    assert.equal(writeString(read1('1.0')), '1.0');
    assert.equal(displayString(N.inexact(1)), '1.0');
  });

  test('cyclic structures are written with datum labels', () => {
    assert.equal(writeString(read1('#0=(1 . #0#)')), '#0=(1 . #0#)');
  });

  test('rationals print as n/d (BiwaScheme: [object Object])', () => {
    assert.equal(writeString(N.div(1, 3)), '1/3');
  });
});

describe('BiwaScheme number defects', () => {
  test('exact rationals: (/ 1 3) is 1/3 and (+ 1/3 1/3) is 2/3 (BiwaScheme: 0.333..., then an error)', () => {
    assert.equal(writeString(N.div(1, 3)), '1/3');
    assert.equal(writeString(N.add(read1('1/3'), read1('1/3'))), '2/3');
  });

  test('bignums: (expt 2 100) is exact (BiwaScheme: 1.2676506002282294e+30)', () => {
    assert.equal(writeString(N.expt(2, 100)), '1267650600228229401496703205376');
  });

  test('exact? tells exact from inexact (BiwaScheme: always #f); exact, inexact, exact-integer?, square, gcd, lcm exist', () => {
    assert.equal(N.isExact(1), true);
    assert.equal(N.isExact(read1('1.0')), false);
    assert.equal(N.exact(read1('2.0')), 2);
    assert.equal(writeString(N.inexact(2)), '2.0');
    assert.equal(N.isExactInteger(5), true);
    assert.equal(N.square(5), 25);
    assert.equal(N.gcd(12, 18), 6);
    assert.equal(N.lcm(4, 6), 12);
  });
});
