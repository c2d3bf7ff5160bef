// @ts-check
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Reader, readAll, locationOf } from '../src/reader.js';
import { writeString } from '../src/printer.js';
import { Pair, Sym, Char, Flonum, Ratnum, EOF, VOID, DEFAULT, SchemeError } from '../src/values.js';

/** Read one datum. @param {string} text @param {object} [opts] */
const read1 = (text, opts) => new Reader(text, opts).read();
/** Read and write back. @param {string} text */
const rw = (text) => readAll(text).map(writeString).join(' ');
const sym = Sym.intern;

/**
 * Assert a read error whose message contains `message` and whose loc is `loc`.
 * @param {string} text @param {string} message @param {string} [loc]
 */
function assertReadError(text, message, loc) {
  assert.throws(
    () => readAll(text, { file: 'f.scm' }),
    (e) => {
      assert.ok(e instanceof SchemeError, `expected a SchemeError, got ${e}`);
      assert.equal(e.payload.kind, 'read');
      assert.ok(e.payload.message.includes(message), `message "${e.payload.message}" lacks "${message}"`);
      if (loc !== undefined) {
        assert.equal(e.payload.loc, loc);
        assert.ok(e.payload.message.includes(loc), 'the message names the location');
      }
      return true;
    },
  );
}

describe('lists, vectors and bytevectors', () => {
  test('proper, dotted and nested lists', () => {
    const x = read1('(a (b c) . d)');
    assert.ok(x instanceof Pair);
    assert.equal(x.car, sym('a'));
    assert.equal(x.cdr.car.cdr.car, sym('c'));
    assert.equal(x.cdr.cdr, sym('d'));
    assert.equal(read1('()'), null);
    assert.equal(rw('(a . (b . (c . ())))'), '(a b c)');
    assert.equal(rw('( a  .  b )'), '(a . b)');
  });

  test('brackets are parentheses but must match', () => {
    assert.equal(rw('[a [b] (c)]'), '(a (b) (c))');
    assertReadError('(a]', 'unexpected `]`', 'f.scm:1:3');
    assertReadError('[a)', 'unexpected `)`', 'f.scm:1:3');
    assertReadError('#(a]', 'unexpected `]`');
  });

  test('misplaced dots and parentheses are errors with positions', () => {
    assertReadError(')', 'unexpected `)`', 'f.scm:1:1');
    assertReadError('(. a)', 'unexpected `.`', 'f.scm:1:2');
    assertReadError('(a . )', 'expected a datum after `.`', 'f.scm:1:6');
    assertReadError('(a . b c)', 'expected `)`', 'f.scm:1:8');
    assertReadError('(a . b . c)', 'unexpected `.`');
    assertReadError('#(a . b)', 'unexpected `.`');
    assertReadError('.', 'unexpected `.`');
    assertReadError('(a\n  (b c)', 'unterminated list starting at f.scm:1:1', 'f.scm:1:1');
  });

  test('vectors and bytevectors', () => {
    const v = read1('#(1 "two" #(3))');
    assert.ok(Array.isArray(v));
    assert.equal(v.length, 3);
    assert.equal(v[1], 'two');
    assert.deepEqual(read1('#()'), []);
    const b = read1('#u8(0 1 255)');
    assert.ok(b instanceof Uint8Array);
    assert.deepEqual([...b], [0, 1, 255]);
    assert.equal(read1('#u8()').length, 0);
    assertReadError('#u8(256)', 'bytevector element', 'f.scm:1:5');
    assertReadError('#u8(-1)', 'bytevector element');
    assertReadError('#u8(1.0)', 'bytevector element');
    assertReadError('#u8(a)', 'bytevector element');
    assertReadError('#u8(1 2', 'unterminated bytevector');
  });

  test('data read are mutable (the compiler freezes constants, not the reader)', () => {
    const x = read1('(a #(1))');
    assert.equal(Object.isFrozen(x), false);
    assert.equal(Object.isFrozen(x.cdr.car), false);
    x.car = 1;
    assert.equal(x.car, 1);
  });

  test('quote, quasiquote, unquote and unquote-splicing abbreviations', () => {
    assert.equal(rw("'a"), '(quote a)');
    assert.equal(rw('`(a ,b ,@c)'), '(quasiquote (a (unquote b) (unquote-splicing c)))');
    assert.equal(rw("''a"), '(quote (quote a))');
    assert.equal(rw("(a . 'b)"), '(a quote b)');
    assert.equal(rw(", @x"), '(unquote @x)');
    assertReadError("(a ')", 'expected a datum after `\'`');
    assertReadError("'", 'expected a datum after');
  });
});

describe('strings', () => {
  test('all the R7RS escapes', () => {
    assert.equal(read1('"\\a\\b\\t\\n\\r\\"\\\\\\|"'), '\x07\b\t\n\r"\\|');
    assert.equal(read1('"\\x41;\\x3bb;\\x1F600;"'), 'Aλ😀');
    assert.equal(read1('"plain"'), 'plain');
    assert.equal(read1('""'), '');
  });

  test('line continuations swallow the line ending and the whitespace around it', () => {
    assert.equal(read1('"a\\\n   b"'), 'ab');
    assert.equal(read1('"a\\   \t\n\t  b"'), 'ab');
    assert.equal(read1('"a\\\r\n   b"'), 'ab');
    assert.equal(read1('"a\\\r b"'), 'ab');
    assert.equal(read1('"a\\\n\nb"'), 'a\nb', 'only one line ending is swallowed');
  });

  test('raw line endings in a string are read as a linefeed', () => {
    assert.equal(read1('"a\r\nb\rc\nd"'), 'a\nb\nc\nd');
  });

  test('bad escapes and unterminated strings are errors with the starting position', () => {
    assertReadError('"\\q"', 'unknown escape `\\q`', 'f.scm:1:2');
    assertReadError('"\\x41"', 'bad hex escape');
    assertReadError('"\\x;"', 'bad hex escape');
    assertReadError('"\\xD800;"', 'not a Unicode scalar value');
    assertReadError('"\\x110000;"', 'not a Unicode scalar value');
    assertReadError('\n\n    "abc', 'unterminated string starting at f.scm:3:5', 'f.scm:3:5');
    assertReadError('"abc\\', 'unterminated string');
  });
});

describe('characters', () => {
  test('single characters, hex characters and #\\x alone', () => {
    assert.equal(read1('#\\a'), Char.of(97));
    assert.equal(read1('#\\A'), Char.of(65));
    assert.equal(read1('#\\x41'), Char.of(0x41));
    assert.equal(read1('#\\x'), Char.of(120));
    assert.equal(read1('#\\x3bb'), Char.of(0x3bb));
    assert.equal(read1('#\\('), Char.of(40));
    assert.equal(read1('#\\)'), Char.of(41));
    assert.equal(read1('#\\ '), Char.of(32));
    assert.equal(read1('#\\;'), Char.of(59));
    assert.equal(read1('#\\"'), Char.of(34));
    assert.equal(rw('(#\\a #\\b)'), '(#\\a #\\b)');
    assert.equal(rw('(#\\()'), '(#\\()');
  });

  test('named characters', () => {
    const names = { alarm: 7, backspace: 8, delete: 127, escape: 27, newline: 10, null: 0, return: 13, space: 32, tab: 9 };
    for (const [name, code] of Object.entries(names)) assert.equal(read1(`#\\${name}`), Char.of(code), name);
  });

  test('characters outside the BMP are one character', () => {
    const data = readAll('#\\😀 #\\𝄞');
    assert.equal(data.length, 2);
    assert.equal(data[0], Char.of(0x1f600));
    assert.equal(data[1], Char.of(0x1d11e));
  });

  test('bad character names are errors', () => {
    assertReadError('#\\foo', 'bad character name #\\foo', 'f.scm:1:1');
    assertReadError('#\\Space', 'bad character name #\\Space');
    assertReadError('#\\x110000', 'not a Unicode scalar value');
    assertReadError('#\\xd800', 'not a Unicode scalar value');
    assertReadError('#\\', 'unexpected end of file');
  });
});

describe('identifiers', () => {
  test('ordinary and peculiar identifiers', () => {
    for (const name of ['abc', 'a->b', '+', '-', '...', '->x', '<=?', 'a.b', '.foo', '..', '+.x', '-a', 'λ', '😀x', 'set-car!', 'a#b', '1+', '-1a', '+5x']) {
      assert.equal(read1(name), sym(name), name);
    }
  });

  test('identifiers are case sensitive unless folded', () => {
    assert.equal(read1('ABC'), sym('ABC'));
    assert.equal(read1('ABC', { foldCase: true }), sym('abc'));
  });

  test('|symbols| with spaces and escapes', () => {
    assert.equal(read1('|a b|'), sym('a b'));
    assert.equal(read1('||'), sym(''));
    assert.equal(read1('|a\\|b|'), sym('a|b'));
    assert.equal(read1('|\\x41;\\n|'), sym('A\n'));
    assert.equal(read1('|1|'), sym('1'));
    assert.deepEqual(readAll('a|b c|d'), [sym('a'), sym('b c'), sym('d')]);
    assertReadError('|abc', 'unterminated symbol');
  });

  test('#!fold-case and #!no-fold-case affect identifiers and character names only', () => {
    const data = readAll('#!fold-case ABC |XyZ| "Str" #\\SPACE #\\A #!no-fold-case ABC');
    assert.deepEqual(data, [sym('abc'), sym('XyZ'), 'Str', Char.of(32), Char.of(65), sym('ABC')]);
  });
});

describe('booleans, numbers and special objects', () => {
  test('booleans in all spellings', () => {
    assert.deepEqual(readAll('#t #f #true #false #T #F'), [true, false, true, false, true, false]);
    assertReadError('#truth', 'bad syntax `#truth`');
  });

  test('numbers of every kind', () => {
    assert.equal(read1('42'), 42);
    assert.equal(read1('-17'), -17);
    assert.equal(read1('12345678901234567890'), 12345678901234567890n);
    const r = read1('6/4');
    assert.ok(r instanceof Ratnum);
    assert.equal(writeString(r), '3/2');
    assert.ok(read1('1.0') instanceof Flonum);
    assert.ok(Object.is(read1('-0.0').v, -0));
    assert.equal(read1('#xff'), 255);
    assert.equal(read1('#x-ff'), -255);
    assert.equal(read1('#b101'), 5);
    assert.equal(read1('#o17'), 15);
    assert.equal(writeString(read1('#e1.5')), '3/2');
    assert.equal(writeString(read1('#i3')), '3.0');
    assert.equal(writeString(read1('.5')), '0.5');
    assert.equal(writeString(read1('+inf.0')), '+inf.0');
  });

  test('numeric syntax without a supported value is an error, other numeric-looking tokens are identifiers', () => {
    assertReadError('1/0+i', 'division by zero');
    assertReadError('1/0', 'division by zero');
    assertReadError('#x1g', 'bad number syntax `#x1g`');
    assertReadError('#e+inf.0', 'no exact representation');
    assertReadError('#e#x#e1', 'bad number syntax');
    assert.equal(read1('1+'), sym('1+'));
  });

  test('#!eof, #!default and #!void read as the printer writes them', () => {
    assert.deepEqual(readAll('#!eof #!default #!void 1'), [EOF, DEFAULT, VOID, 1]);
    assertReadError('#!bogus', 'unknown directive `#!bogus`');
  });
});

describe('comments', () => {
  test('line, nested block and datum comments', () => {
    assert.deepEqual(readAll('; line\n1 #| block #| nested |# still |# 2 #;3 4'), [1, 2, 4]);
    assert.equal(rw('(a #;b c)'), '(a c)');
    assert.equal(rw('(a #;(b (c)) . #;x d)'), '(a . d)');
    assert.deepEqual(readAll('#; #; 1 2 3'), [3]);
    assert.deepEqual(readAll('1;comment'), [1]);
    assert.deepEqual(readAll('(a)#|c|#b').map(writeString), ['(a)', 'b']);
  });

  test('unterminated comments are errors', () => {
    assertReadError('#| #| |#', 'unterminated block comment', 'f.scm:1:1');
    assertReadError('(a #;)', 'expected a datum after `#;`');
    assertReadError('#;', 'expected a datum after `#;`');
  });

  test('a script line at the start is skipped, as is a byte order mark', () => {
    assert.deepEqual(readAll('#!/usr/bin/env termite-node run\n(display 1)').map(writeString), ['(display 1)']);
    assert.deepEqual(readAll('\ufeff42'), [42]);
  });
});

describe('datum labels', () => {
  test('shared structure', () => {
    const x = read1('(#0=(a b) #0# #0#)');
    assert.equal(x.car, x.cdr.car);
    assert.equal(x.car, x.cdr.cdr.car);
  });

  test('a cyclic list', () => {
    const x = read1('#0=(a b . #0#)');
    assert.equal(x.cdr.cdr, x);
    assert.equal(x.car, sym('a'));
  });

  test('a cycle through a car, a vector and a quote', () => {
    const x = read1('#1=(a #1# #(#1#) \'#1#)');
    assert.equal(x.cdr.car, x);
    assert.equal(x.cdr.cdr.car[0], x);
    assert.equal(x.cdr.cdr.cdr.car.cdr.car, x);
    const v = read1('#2=#(1 #2#)');
    assert.equal(v[1], v);
  });

  test('labels are local to one datum and must be defined before use', () => {
    assertReadError('#1#', 'datum label #1# is not defined', 'f.scm:1:1');
    assertReadError('(#0=a) #0#', 'datum label #0# is not defined', 'f.scm:1:8');
    assertReadError('(#0=a #0=b)', 'datum label #0= is defined twice');
    assertReadError('#0=#0#', 'refers only to itself');
    assertReadError('#0x', 'bad syntax `#0x`');
  });

  test('a label may name an atom', () => {
    assert.deepEqual(readAll('(#5="s" #5#)').map(writeString), ['("s" "s")']);
  });
});

describe('line endings, positions and locations', () => {
  test('LF, CRLF and CR each end one line; columns count code points', () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      const [a, b, , c] = readAll(`(a)${nl}  (b)${nl}😀😀 (c)`, { file: 'x.scm' });
      assert.deepEqual(locationOf(a), { file: 'x.scm', line: 1, col: 1 });
      assert.deepEqual(locationOf(b), { file: 'x.scm', line: 2, col: 3 });
      assert.deepEqual(locationOf(c), { file: 'x.scm', line: 3, col: 4 });
    }
  });

  test('whitespace includes CR, form feed and Unicode spaces', () => {
    assert.deepEqual(readAll('(a\r\nb)').map(writeString), ['(a b)']);
    assert.deepEqual(readAll('a\fb\u00a0c\u2003d'), [sym('a'), sym('b'), sym('c'), sym('d')]);
  });

  test('every list, quoted form and vector has a location', () => {
    const x = read1("(define (f x)\n  '(1 2)\n  #(3))", { file: 'loc.scm' });
    assert.deepEqual(locationOf(x), { file: 'loc.scm', line: 1, col: 1 });
    assert.deepEqual(locationOf(x.cdr.car), { file: 'loc.scm', line: 1, col: 9 });
    const quoted = x.cdr.cdr.car;
    assert.deepEqual(locationOf(quoted), { file: 'loc.scm', line: 2, col: 3 });
    assert.deepEqual(locationOf(quoted.cdr.car), { file: 'loc.scm', line: 2, col: 4 });
    assert.deepEqual(locationOf(x.cdr.cdr.cdr.car), { file: 'loc.scm', line: 3, col: 3 });
    assert.equal(locationOf(sym('f')), undefined);
    assert.equal(locationOf(null), undefined);
  });

  test('locations: false records no locations', () => {
    const x = read1('(a (b) #(c))', { locations: false });
    assert.equal(locationOf(x), undefined);
    assert.equal(locationOf(x.cdr.car), undefined);
    assert.equal(locationOf(x.cdr.cdr.car), undefined);
    assertReadError('(a (b]', 'the list opened with `(` at f.scm:1:4', 'f.scm:1:6');
  });

  test('the locations of the newest data survive reading more than 500,000 other lists', () => {
    readAll('(x) '.repeat(600_000));
    const last = readAll('(a)\n  (b (c))', { file: 'new.scm' });
    assert.deepEqual(locationOf(last[1].cdr.car), { file: 'new.scm', line: 2, col: 6 });
    assert.deepEqual(locationOf(last[0]), { file: 'new.scm', line: 1, col: 1 });
  });

  test('the default file name is <string>', () => {
    assert.deepEqual(locationOf(read1('(a)')), { file: '<string>', line: 1, col: 1 });
  });

  test('errors after astral characters report columns in code points', () => {
    assertReadError('😀😀 )', 'unexpected `)`', 'f.scm:1:4');
  });
});

describe('the Reader API', () => {
  test('read returns successive data, then the EOF object; pos is just after the datum', () => {
    const r = new Reader(' 1 (2) "three" ');
    assert.equal(r.read(), 1);
    assert.equal(r.pos, 2);
    assert.equal(writeString(r.read()), '(2)');
    assert.equal(r.pos, 6);
    assert.equal(r.read(), 'three');
    assert.equal(r.read(), EOF);
    assert.equal(r.read(), EOF);
  });

  test('readAll does not stop at a #!eof datum', () => {
    assert.deepEqual(readAll('1 #!eof 2'), [1, EOF, 2]);
  });

  test('an error leaves the reader usable for locating later errors', () => {
    const r = new Reader('(a) )\n(b', { file: 'g.scm' });
    assert.equal(writeString(r.read()), '(a)');
    assert.throws(() => r.read(), (e) => e.payload.loc === 'g.scm:1:5');
  });
});

describe('large inputs (no JS recursion)', () => {
  test('a list of 1,000,000 elements', () => {
    const text = '(' + '1 '.repeat(1_000_000) + ')';
    let x = read1(text, { locations: false });
    let n = 0;
    while (x !== null) {
      n++;
      x = x.cdr;
    }
    assert.equal(n, 1_000_000);
  });

  test('lists and vectors nested 1,000,000 deep', () => {
    const depth = 1_000_000;
    let x = read1('('.repeat(depth) + 'x' + ')'.repeat(depth), { locations: false });
    let d = 0;
    while (x instanceof Pair) {
      d++;
      x = x.car;
    }
    assert.equal(d, depth);
    assert.equal(x, sym('x'));
    let v = read1('#('.repeat(100_000) + ')'.repeat(100_000), { locations: false });
    let dv = 0;
    while (Array.isArray(v) && v.length > 0) {
      dv++;
      v = v[0];
    }
    assert.equal(dv, 100_000 - 1);
  });

  test('a cyclic datum label on a long list is patched without recursion', () => {
    const x = read1('#0=(' + 'a '.repeat(200_000) + '. #0#)');
    let p = x;
    for (let i = 0; i < 200_000; i++) p = p.cdr;
    assert.equal(p, x);
    const y = read1('#0=(' + '(a) '.repeat(100_000) + '#0#)');
    let q = y;
    for (let i = 0; i < 100_000; i++) q = q.cdr;
    assert.equal(q.car, y);
  });
});
