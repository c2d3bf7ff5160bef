// @ts-check
// R7RS §6.7 Strings. Strings are immutable JS strings indexed by code point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Char, Pair, Sym, SchemeError, list, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import '../src/primitives/prims-strings.js';
import '../src/primitives/prims-lists.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
/** @param {string} s */
const ch = (s) => Char.of(/** @type {number} */ (s.codePointAt(0)));
/** The characters of a Scheme list of chars, as a JS string. @param {any} l */
const chars = (l) => listToArray(l).map((c) => String.fromCodePoint(c.code)).join('');

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

const IMMUTABLE = 'strings are immutable in Termite Scheme';

test('string? recognises strings only', () => {
  assert.equal(call('string?', ''), true);
  assert.equal(call('string?', 'abc'), true);
  assert.equal(call('string?', Sym.intern('abc')), false);
  assert.equal(call('string?', ch('a')), false);
});

test('make-string and string build strings of characters, astral ones included', () => {
  assert.equal(call('make-string', 3, ch('*')), '***');
  assert.equal(call('make-string', 2), '  ');
  assert.equal(call('make-string', 0, ch('x')), '');
  assert.equal(call('make-string', 2, ch('😀')), '😀😀');
  assert.equal(call('string-length', call('make-string', 2, ch('😀'))), 2);
  assert.equal(call('string', ch('a'), ch('😀'), ch('b')), 'a😀b');
  assert.equal(call('string'), '');
  assertError(() => call('make-string', -1), 'make-string', 'expected an exact non-negative integer', [-1], 'type');
  assertError(() => call('make-string', 2, 'x'), 'make-string', 'expected a character', ['x']);
  assertError(() => call('make-string', 2 ** 31), 'make-string', 'string too long', [2 ** 31], 'range');
  assertError(() => call('string', ch('a'), 'b'), 'string', 'expected a character', ['b']);
});

test('string-length and string-ref count code points, not UTF-16 units', () => {
  assert.equal(call('string-length', ''), 0);
  assert.equal(call('string-length', 'abc'), 3);
  assert.equal(call('string-length', '😀'), 1);
  assert.equal(call('string-length', 'a😀b😀'), 4);
  assert.equal(call('string-ref', 'abc', 0), ch('a'));
  assert.equal(call('string-ref', 'a😀b', 1), ch('😀'));
  assert.equal(call('string-ref', 'a😀b', 2), ch('b'));
  assertError(() => call('string-ref', 'abc', 3), 'string-ref', 'index out of range', [3, 3], 'range');
  assertError(() => call('string-ref', 'a😀', 2), 'string-ref', 'index out of range', [2, 2], 'range');
  assertError(() => call('string-ref', 'abc', -1), 'string-ref', 'index out of range', [-1, 3], 'range');
  assertError(() => call('string-ref', 'abc', 'x'), 'string-ref', 'expected an exact integer index', ['x'], 'type');
  assertError(() => call('string-length', ch('a')), 'string-length', 'expected a string', [ch('a')], 'type');
});

test('long strings: length and a string-ref loop are fast, with and without astral characters', () => {
  const n = 200_000;
  const bmp = 'abcdefghij'.repeat(n / 10);
  const astral = 'ab😀de'.repeat(n / 5);
  for (const s of [bmp, astral]) {
    const len = call('string-length', s);
    assert.equal(len, n);
    const started = Date.now();
    let count = 0;
    for (let i = 0; i < call('string-length', s); i++) if (call('string-ref', s, i) === ch('😀')) count++;
    assert.equal(count, s === astral ? n / 5 : 0);
    assert.ok(Date.now() - started < 2000, `a loop over ${n} characters took ${Date.now() - started} ms`);
  }
  // Alternating between more long strings than the cache holds still gives right answers.
  const many = Array.from({ length: 12 }, (_, i) => `${'😀'.repeat(100)}${String.fromCharCode(65 + i)}`);
  for (let round = 0; round < 3; round++) for (const [i, s] of many.entries()) assert.equal(call('string-ref', s, 100), ch(String.fromCharCode(65 + i)));
});

test('string comparisons are variadic and order by code point', () => {
  assert.equal(call('string=?', 'abc', 'abc'), true);
  assert.equal(call('string=?', 'abc', 'abc', 'abd'), false);
  assert.equal(call('string=?', '', ''), true);
  assert.equal(call('string<?', 'abc', 'abd'), true);
  assert.equal(call('string<?', 'ab', 'abc'), true);
  assert.equal(call('string<?', 'abc', 'abc'), false);
  assert.equal(call('string<?', 'a', 'b', 'c'), true);
  assert.equal(call('string<?', 'a', 'c', 'b'), false);
  assert.equal(call('string>?', 'b', 'a'), true);
  assert.equal(call('string<=?', 'a', 'a', 'b'), true);
  assert.equal(call('string>=?', 'b', 'b', 'a'), true);
  assert.equal(call('string>=?', 'a', 'b'), false);
  assert.equal(call('string<?', 'Z', 'a'), true);
  // UTF-16 order would put U+FFFF after U+1F600; code-point order puts it before.
  assert.equal(call('string<?', '\uffff', '😀'), true);
  assert.equal(call('string<?', 'x\ue000', 'x😀'), true);
  assert.equal(call('string>?', '😀', '\uffff'), true);
  assertError(() => call('string<?', 'a', 1), 'string<?', 'expected a string', [1], 'type');
});

test('string-ci comparisons compare full case foldings', () => {
  assert.equal(call('string-ci=?', 'Hello', 'hELLO'), true);
  assert.equal(call('string-ci=?', 'Straße', 'STRASSE'), true);
  assert.equal(call('string-ci=?', 'ΧΑΟΣ', 'χαος'), true);
  assert.equal(call('string-ci=?', 'a', 'A', 'b'), false);
  assert.equal(call('string-ci<?', 'apple', 'BANANA'), true);
  assert.equal(call('string-ci>?', 'apple', 'BANANA'), false);
  assert.equal(call('string-ci<=?', 'a', 'A'), true);
  assert.equal(call('string-ci>=?', 'B', 'a'), true);
});

test('string-upcase, string-downcase and string-foldcase apply the full Unicode algorithms', () => {
  assert.equal(call('string-upcase', 'Straße'), 'STRASSE');
  assert.equal(call('string-downcase', 'Straße'), 'straße');
  assert.equal(call('string-foldcase', 'Straße'), 'strasse');
  assert.equal(call('string-downcase', 'STRASSE'), 'strasse');
  assert.equal(call('string-downcase', 'ΧΑΟΣ'), 'χαος', 'final sigma');
  assert.equal(call('string-downcase', 'ΧΑΟΣΣ'), 'χαοσς');
  assert.equal(call('string-downcase', 'ΧΑΟΣ Σ'), 'χαος σ');
  assert.equal(call('string-foldcase', 'ΧΑΟΣΣ'), 'χαοσσ');
  assert.equal(call('string-upcase', 'χαος'), 'ΧΑΟΣ');
  assert.equal(call('string-upcase', 'a😀𐐨'), 'A😀𐐀');
  assert.equal(call('string-foldcase', ''), '');
  assertError(() => call('string-upcase', ch('a')), 'string-upcase', 'expected a string', [ch('a')]);
});

test('substring and string-copy take code-point indices and check them', () => {
  assert.equal(call('substring', 'hello', 1, 3), 'el');
  assert.equal(call('substring', 'hello', 0, 5), 'hello');
  assert.equal(call('substring', 'hello', 5, 5), '');
  assert.equal(call('substring', 'a😀b😀c', 1, 4), '😀b😀');
  assert.equal(call('string-copy', 'hello'), 'hello');
  assert.equal(call('string-copy', 'hello', 2), 'llo');
  assert.equal(call('string-copy', 'hello', 1, 3), 'el');
  assert.equal(call('string-copy', '😀😀😀', 1), '😀😀');
  assertError(() => call('substring', 'abc', 2, 1), 'substring', 'index out of range', [1, 3], 'range');
  assertError(() => call('substring', 'abc', 0, 4), 'substring', 'index out of range', [4, 3], 'range');
  assertError(() => call('string-copy', 'abc', 4), 'string-copy', 'index out of range', [4, 3], 'range');
  assertError(() => call('string-copy', 'a😀', 0, 3), 'string-copy', 'index out of range', [3, 2], 'range');
});

test('string-append concatenates any number of strings', () => {
  assert.equal(call('string-append'), '');
  assert.equal(call('string-append', 'abc'), 'abc');
  assert.equal(call('string-append', 'a', '', 'b😀', 'c'), 'ab😀c');
  assertError(() => call('string-append', 'a', ch('b')), 'string-append', 'expected a string', [ch('b')], 'type');
});

test('string->list and list->string convert with optional start and end', () => {
  assert.equal(chars(call('string->list', 'abc')), 'abc');
  assert.equal(call('string->list', ''), null);
  assert.equal(chars(call('string->list', 'abcde', 2)), 'cde');
  assert.equal(chars(call('string->list', 'abcde', 1, 3)), 'bc');
  assert.equal(chars(call('string->list', 'a😀b', 1)), '😀b');
  assert.equal(call('length', call('string->list', 'a😀b')), 3);
  assert.equal(call('list->string', list(ch('a'), ch('😀'))), 'a😀');
  assert.equal(call('list->string', null), '');
  assert.equal(call('list->string', call('string->list', 'round trip')), 'round trip');
  assertError(() => call('list->string', list(ch('a'), 1)), 'list->string', 'expected a character', [1]);
  const dotted = new Pair(ch('a'), ch('b'));
  assertError(() => call('list->string', dotted), 'list->string', 'expected a proper list of characters', [dotted]);
  assertError(() => call('string->list', 'abc', 2, 1), 'string->list', 'index out of range');
});

test('string-set!, string-fill! and string-copy! signal that strings are immutable', () => {
  // R7RS: (string-set! (g) 0 #\?) where g returns a literal is an error; in Termite Scheme
  // every string is immutable, including (make-string 3 #\*) and (string-copy "abcde").
  const f = call('make-string', 3, ch('*'));
  assertError(() => call('string-set!', f, 0, ch('?')), 'string-set!', IMMUTABLE, [f], 'immutable');
  assertError(() => call('string-set!', '***', 0, ch('?')), 'string-set!', IMMUTABLE, ['***'], 'immutable');
  const sym = call('symbol->string', Sym.intern('immutable'));
  assertError(() => call('string-set!', sym, 0, ch('?')), 'string-set!', IMMUTABLE, [sym], 'immutable');
  const b = call('string-copy', 'abcde');
  assertError(() => call('string-copy!', b, 1, '12345', 0, 2), 'string-copy!', IMMUTABLE, [b], 'immutable');
  assert.equal(b, 'abcde');
  assertError(() => call('string-fill!', 'abc', ch('x')), 'string-fill!', IMMUTABLE, ['abc'], 'immutable');
  assertError(() => call('string-set!', 5, 0, ch('?')), 'string-set!', 'expected a string', [5], 'type');
});

test('string procedures that return strings are pure, mutators and list builders are not', () => {
  for (const name of ['string-append', 'substring', 'string-upcase', 'string-length', 'string-ref', 'string=?', 'list->string']) assert.equal(primitives.get(name)?.pure, true, name);
  for (const name of ['string-set!', 'string->list', 'string->vector']) assert.equal(primitives.get(name)?.pure, false, name);
});
