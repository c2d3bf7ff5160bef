// @ts-check
// R7RS §6.7 Strings: immutable JS strings and mutable MStrings, indexed by code point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Char, Pair, Sym, MString, SchemeError, VOID, list, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { runBuiltin } from '../src/engine/resumable.js';
import { builtinUnit } from '../src/engine/builtins.js';
import '../src/primitives/prims-strings.js';
import '../src/primitives/prims-lists.js';

/** The primitive's result, as it is. @param {string} name @param {...any} args */
function callRaw(name, ...args) {
  const p = primitives.get(name);
  if (!p && builtinUnit.lamsByName.has(name)) return runBuiltin(name, args); // a resumable builtin
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
/**
 * The primitive's result with a mutable string given as its text, for comparisons with
 * JS strings (which strings are mutable is tested on its own below).
 * @param {string} name @param {...any} args
 */
function call(name, ...args) {
  const r = callRaw(name, ...args);
  return r instanceof MString ? r.text() : r;
}
/** A fresh mutable string holding `s`. @param {string} s */
const mutable = (s) => callRaw('string-copy', s);
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

test('the procedures that make strings return fresh mutable strings; literals and symbol names are immutable', () => {
  /** @type {[string, any[]][]} */
  const makers = [
    ['make-string', [3, ch('*')]], ['string', [ch('a')]], ['string-copy', ['abc']], ['substring', ['abc', 0, 2]],
    ['string-append', ['a', 'b']], ['list->string', [list(ch('a'))]], ['vector->string', [[ch('a')]]],
    ['string-upcase', ['a']], ['string-downcase', ['A']], ['string-foldcase', ['A']],
  ];
  for (const [name, args] of makers) {
    const a = callRaw(name, ...args);
    const b = callRaw(name, ...args);
    assert.ok(a instanceof MString, name);
    assert.notEqual(a, b, `${name} returns a fresh string each time`);
  }
  const IMMUTABLE = 'cannot mutate an immutable string (a literal, or from symbol->string, number->string or a tuple space; string-copy makes a mutable one)';
  assertError(() => call('string-set!', '***', 0, ch('?')), 'string-set!', IMMUTABLE, ['***'], 'immutable');
  const sym = call('symbol->string', Sym.intern('immutable'));
  assertError(() => call('string-set!', sym, 0, ch('?')), 'string-set!', IMMUTABLE, [sym], 'immutable');
  assertError(() => call('string-fill!', 'abc', ch('x')), 'string-fill!', IMMUTABLE, ['abc'], 'immutable');
  assertError(() => call('string-copy!', 'abc', 0, 'x'), 'string-copy!', IMMUTABLE, ['abc'], 'immutable');
  assertError(() => call('string-set!', 5, 0, ch('?')), 'string-set!', 'expected a string', [5], 'type');
});

test('string-set!, string-fill! and string-copy! change a mutable string, astral characters included', () => {
  const f = callRaw('make-string', 3, ch('*'));
  assert.equal(call('string-set!', f, 1, ch('😀')), VOID);
  assert.equal(f.text(), '*😀*');
  assert.equal(call('string-length', f), 3);
  assert.equal(call('string-ref', f, 1), ch('😀'));
  assert.equal(call('string-ref', f, 2), ch('*'));
  assertError(() => call('string-set!', f, 3, ch('x')), 'string-set!', 'index out of range', [3, 3], 'range');
  assertError(() => call('string-set!', f, 0, 'x'), 'string-set!', 'expected a character', ['x'], 'type');
  const b = mutable('abcde');
  call('string-copy!', b, 1, '12345', 0, 2);
  assert.equal(b.text(), 'a12de');
  call('string-fill!', b, ch('x'), 3);
  assert.equal(b.text(), 'a12xx');
  call('string-fill!', b, ch('-'));
  assert.equal(b.text(), '-----');
  assertError(() => call('string-copy!', b, 4, 'xyz'), 'string-copy!', 'the destination is too short', [b, 4], 'range');
  // overlapping copies within one string, both directions (R7RS: as if through a temporary)
  const r = mutable('abcdef');
  call('string-copy!', r, 2, r, 0, 4);
  assert.equal(r.text(), 'ababcd');
  const l = mutable('abcdef');
  call('string-copy!', l, 0, l, 2);
  assert.equal(l.text(), 'cdefef');
  // a string read after a change, then changed again: the text and the code points agree
  const t = mutable('a😀c');
  assert.equal(call('string-append', t, '!'), 'a😀c!');
  call('string-set!', t, 0, ch('z'));
  assert.equal(call('string-append', t, '!'), 'z😀c!');
  assert.equal(call('string=?', t, 'z😀c'), true);
  assert.equal(call('string<?', t, 'zz'), false);
  assert.equal(call('string->symbol', t), Sym.intern('z😀c'));
});

test('a string-set! loop over a long mutable string is linear', () => {
  const n = 300_000;
  const s = callRaw('make-string', n, ch('a'));
  const started = Date.now();
  for (let i = 0; i < n; i++) call('string-set!', s, i, ch(i % 2 ? 'b' : 'c'));
  for (let i = 0; i < n; i++) call('string-ref', s, i);
  assert.equal(call('string-length', s), n);
  assert.equal(s.text().slice(0, 4), 'cbcb');
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
});

test('string procedures that only read are pure; constructors and mutators are not', () => {
  for (const name of ['string=?', 'string?']) assert.equal(primitives.get(name)?.pure, true, name);
  for (const name of ['string-set!', 'string->vector', 'make-string', 'string-append', 'string-copy', 'string-ref', 'string-length']) {
    assert.equal(primitives.get(name)?.pure, false, name);
  }
});
