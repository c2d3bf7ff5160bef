// @ts-check
// R7RS §6.6 Characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Char, Flonum, SchemeError, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import '../src/primitives/prims-chars.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
/** The character of a one-code-point string. @param {string} s */
const ch = (s) => Char.of(/** @type {number} */ (s.codePointAt(0)));

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

test('char? recognises characters only', () => {
  assert.equal(call('char?', ch('a')), true);
  assert.equal(call('char?', ch('😀')), true);
  assert.equal(call('char?', 'a'), false);
  assert.equal(call('char?', 97), false);
});

test('char comparisons are on code points, variadic, and transitive', () => {
  assert.equal(call('char=?', ch('a'), ch('a')), true);
  assert.equal(call('char=?', ch('a'), ch('a'), ch('b')), false);
  assert.equal(call('char<?', ch('a'), ch('b'), ch('c')), true);
  assert.equal(call('char<?', ch('a'), ch('c'), ch('b')), false);
  assert.equal(call('char<?', ch('a'), ch('a')), false);
  assert.equal(call('char<=?', ch('a'), ch('a'), ch('b')), true);
  assert.equal(call('char>?', ch('c'), ch('b'), ch('a')), true);
  assert.equal(call('char>=?', ch('c'), ch('c'), ch('a')), true);
  assert.equal(call('char>=?', ch('a'), ch('b')), false);
  assert.equal(call('char<?', ch('A'), ch('a')), true);
  assert.equal(call('char<?', ch('\uffff'), ch('😀')), true, 'astral characters come after the BMP');
  assert.equal(primitives.get('char<?')?.max, -1);
});

test('char comparisons name themselves and the offending argument', () => {
  assertError(() => call('char<?', ch('a'), 'b'), 'char<?', 'expected a character', ['b'], 'type');
  assertError(() => call('char-ci=?', 1, ch('a')), 'char-ci=?', 'expected a character', [1]);
});

test('char-ci comparisons compare case-folded characters', () => {
  assert.equal(call('char-ci=?', ch('a'), ch('A')), true);
  assert.equal(call('char-ci=?', ch('a'), ch('A'), ch('b')), false);
  assert.equal(call('char-ci<?', ch('a'), ch('B')), true);
  assert.equal(call('char-ci>?', ch('b'), ch('A')), true);
  assert.equal(call('char-ci<=?', ch('a'), ch('A'), ch('b')), true);
  assert.equal(call('char-ci>=?', ch('Z'), ch('z'), ch('a')), true);
  assert.equal(call('char-ci=?', ch('σ'), ch('ς'), ch('Σ')), true, 'the three sigmas fold together');
  assert.equal(call('char-ci=?', ch('ẞ'), ch('ß')), true);
  assert.equal(call('char-ci=?', ch('K'), ch('\u212a')), true, 'Kelvin sign');
  assert.equal(call('char-ci=?', ch('𐐀'), ch('𐐨')), true, 'Deseret (astral)');
  assert.equal(call('char-ci=?', ch('ı'), ch('i')), false, 'dotless i does not fold to i');
});

test('char-alphabetic?, char-numeric? and char-whitespace? follow Unicode properties', () => {
  for (const c of ['a', 'Z', 'λ', 'Ж', '中', 'ß', 'ǅ', '𐐀']) assert.equal(call('char-alphabetic?', ch(c)), true, c);
  for (const c of ['1', ' ', '!', '😀', '٤']) assert.equal(call('char-alphabetic?', ch(c)), false, c);
  for (const c of ['0', '9', '\u0664', '\u0AE6', '𝟎', '\uff15']) assert.equal(call('char-numeric?', ch(c)), true, c);
  for (const c of ['a', '½', '\u2163', '\u0EA6']) assert.equal(call('char-numeric?', ch(c)), false, c);
  for (const c of [' ', '\t', '\n', '\r', '\f', '\u00a0', '\u2003', '\u3000', '\u2028']) assert.equal(call('char-whitespace?', ch(c)), true, JSON.stringify(c));
  for (const c of ['a', '\u200b', '_']) assert.equal(call('char-whitespace?', ch(c)), false, JSON.stringify(c));
});

test('char-upper-case? and char-lower-case? follow Unicode; a titlecase letter is neither', () => {
  for (const c of ['A', 'Σ', 'Ж', '𐐀']) assert.equal(call('char-upper-case?', ch(c)), true, c);
  for (const c of ['a', '1', 'ǅ', 'σ']) assert.equal(call('char-upper-case?', ch(c)), false, c);
  for (const c of ['a', 'ß', 'σ', 'ς', '𐐨']) assert.equal(call('char-lower-case?', ch(c)), true, c);
  for (const c of ['A', '1', 'ǅ', '中']) assert.equal(call('char-lower-case?', ch(c)), false, c);
  assertError(() => call('char-upper-case?', 'A'), 'char-upper-case?', 'expected a character', ['A']);
});

test('digit-value gives the results of the R7RS examples and works for any script', () => {
  assert.equal(call('digit-value', ch('3')), 3);
  assert.equal(call('digit-value', Char.of(0x0664)), 4);
  assert.equal(call('digit-value', Char.of(0x0ae6)), 0);
  assert.equal(call('digit-value', Char.of(0x0ea6)), false);
  assert.equal(call('digit-value', ch('a')), false);
  assert.equal(call('digit-value', Char.of(0x1d7d7)), 9, 'MATHEMATICAL BOLD DIGIT NINE');
  assert.equal(call('digit-value', Char.of(0x1d7d8)), 0, 'MATHEMATICAL DOUBLE-STRUCK DIGIT ZERO follows the bold nine');
  assert.equal(call('digit-value', Char.of(0x1d7ff)), 9);
  assert.equal(call('digit-value', Char.of(0xff17)), 7, 'FULLWIDTH DIGIT SEVEN');
  assert.equal(call('digit-value', ch('½')), false, 'a numeric character that is not a decimal digit');
});

test('char->integer and integer->char convert Unicode scalar values both ways', () => {
  assert.equal(call('char->integer', ch('a')), 97);
  assert.equal(call('char->integer', ch('😀')), 0x1f600);
  assert.equal(call('integer->char', 97), ch('a'));
  assert.equal(call('integer->char', 0), Char.of(0));
  assert.equal(call('integer->char', 0xd7ff), Char.of(0xd7ff));
  assert.equal(call('integer->char', 0xe000), Char.of(0xe000));
  assert.equal(call('integer->char', 0x10ffff), Char.of(0x10ffff));
  for (const c of [0, 65, 0xfffd, 0x1f600]) assert.equal(call('char->integer', call('integer->char', c)), c);
  assertError(() => call('char->integer', 97), 'char->integer', 'expected a character', [97]);
});

test('integer->char rejects surrogates, values above #x10FFFF, negatives and inexact numbers', () => {
  const msg = 'not a Unicode scalar value (0 to #x10FFFF, not a surrogate)';
  assertError(() => call('integer->char', 0xd800), 'integer->char', msg, [0xd800], 'range');
  assertError(() => call('integer->char', 0xdfff), 'integer->char', msg, [0xdfff], 'range');
  assertError(() => call('integer->char', 0x110000), 'integer->char', msg, [0x110000], 'range');
  assertError(() => call('integer->char', -1), 'integer->char', msg, [-1], 'range');
  assertError(() => call('integer->char', 2n ** 64n), 'integer->char', msg, undefined, 'range');
  const f = new Flonum(65);
  assertError(() => call('integer->char', f), 'integer->char', 'expected an exact integer', [f], 'type');
});

test('char-upcase, char-downcase and char-foldcase use simple one-to-one Unicode mappings', () => {
  const up = (/** @type {string} */ c) => String.fromCodePoint(call('char-upcase', ch(c)).code);
  const down = (/** @type {string} */ c) => String.fromCodePoint(call('char-downcase', ch(c)).code);
  const fold = (/** @type {string} */ c) => String.fromCodePoint(call('char-foldcase', ch(c)).code);
  assert.equal(up('a'), 'A');
  assert.equal(up('A'), 'A');
  assert.equal(up('1'), '1');
  assert.equal(down('A'), 'a');
  assert.equal(up('λ'), 'Λ');
  assert.equal(down('Σ'), 'σ');
  assert.equal(up('ς'), 'Σ');
  assert.equal(up('ß'), 'ß', 'uppercase ß is "SS", two characters: unchanged');
  assert.equal(up('ﬃ'), 'ﬃ');
  assert.equal(down('İ'), 'İ', 'lowercase İ is i + combining dot, two characters: unchanged');
  assert.equal(up('ǆ'), 'Ǆ');
  assert.equal(down('ǅ'), 'ǆ');
  assert.equal(up('𐐨'), '𐐀');
  assert.equal(down('𐐀'), '𐐨');
  assert.equal(fold('A'), 'a');
  assert.equal(fold('Σ'), 'σ');
  assert.equal(fold('ς'), 'σ');
  assert.equal(fold('σ'), 'σ');
  assert.equal(fold('ß'), 'ß', 'ß has only a full folding ("ss")');
  assert.equal(fold('ẞ'), 'ß');
  assert.equal(fold('\u212a'), 'k');
  assert.equal(fold('µ'), 'μ', 'MICRO SIGN folds to GREEK SMALL LETTER MU');
  assert.equal(fold('ſ'), 's');
  assert.equal(fold('ı'), 'ı');
  assert.equal(fold('İ'), 'İ');
  assert.equal(fold('\uab70'), '\u13a0', 'Cherokee folds to the uppercase letters');
  assert.equal(fold('\u13a0'), '\u13a0');
  assert.equal(fold('𐐀'), '𐐨');
  assertError(() => call('char-upcase', 'a'), 'char-upcase', 'expected a character', ['a']);
});
