// @ts-check
// unicode.js: the case-folding rule (lower(upper(c)) with two exceptions) checked against the
// JS engine's own simple case folding, which /iu regular expressions use, for every code point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldcase, foldcaseString, upcase, downcase, digitValue, isNumeric } from '../src/primitives/unicode.js';

/** Every Unicode scalar value. */
function* scalars() {
  for (let c = 0; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) yield c;
}

test('foldcase maps every code point into its own simple-case-folding class, idempotently', () => {
  let changed = 0;
  for (const c of scalars()) {
    const f = foldcase(c);
    if (f === c) continue;
    changed++;
    assert.ok(new RegExp(`^\\u{${f.toString(16)}}$`, 'iu').test(String.fromCodePoint(c)), `U+${c.toString(16)} → U+${f.toString(16)}`);
    assert.equal(foldcase(f), f, `U+${c.toString(16)}`);
  }
  assert.ok(changed > 1400, `${changed} code points fold to another`);
});

test('upcase and downcase only ever return one code point of the same case class', () => {
  for (const c of scalars()) {
    const u = upcase(c);
    const l = downcase(c);
    if (u !== c) assert.ok(new RegExp(`^\\u{${u.toString(16)}}$`, 'iu').test(String.fromCodePoint(c)) || foldcase(c) === c, `U+${c.toString(16)}`);
    assert.ok(Number.isInteger(u) && Number.isInteger(l));
  }
});

test('foldcaseString applies full folding per code point, without the final-sigma rule', () => {
  assert.equal(foldcaseString('Straße'), 'strasse');
  assert.equal(foldcaseString('STRASSE'), 'strasse');
  assert.equal(foldcaseString('ẞ'), 'ss');
  assert.equal(foldcaseString('ΧΑΟΣ'), 'χαοσ');
  assert.equal(foldcaseString('χαος'), 'χαοσ');
  assert.equal(foldcaseString('ﬃ'), 'ffi');
  assert.equal(foldcaseString('İ'), 'i\u0307');
  assert.equal(foldcaseString('ı'), 'ı');
  assert.equal(foldcaseString('\uab70\u13a0'), '\u13a0\u13a0');
  assert.equal(foldcaseString('𐐀BC'), '𐐨bc');
  assert.equal(foldcaseString('plain ascii'), 'plain ascii');
});

test('digitValue numbers every decimal digit 0–9 within its run of ten', () => {
  let digits = 0;
  for (const c of scalars()) {
    const v = digitValue(c);
    assert.equal(v >= 0, isNumeric(c), `U+${c.toString(16)}`);
    if (v < 0) continue;
    digits++;
    // The run starts at value 0 and increases by one.
    assert.equal(digitValue(c - v), 0, `U+${c.toString(16)}`);
    if (v > 0) assert.equal(digitValue(c - 1), v - 1);
  }
  assert.equal(digits % 10, 0);
  assert.ok(digits >= 660);
});
