// @ts-check
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, displayString, writeSharedString, writeSimpleString, registerPrinter, symbolNeedsBars } from '../src/printer.js';
import { readAll } from '../src/reader.js';
import {
  Pair, Sym, Char, Flonum, Ratnum, Closure, Record, RecordType, ErrorObject, Values, VOID, EOF, DEFAULT,
  SchemeError, list, arrayToList,
} from '../src/values.js';

const sym = Sym.intern;
/** Read one datum. @param {string} s */
const read1 = (s) => readAll(s)[0];

describe('atoms', () => {
  test('numbers: exact integers, bigints, rationals and flonums in R7RS style', () => {
    assert.equal(writeString(42), '42');
    assert.equal(writeString(-7), '-7');
    assert.equal(writeString(12345678901234567890n), '12345678901234567890');
    assert.equal(writeString(new Ratnum(-1n, 3n)), '-1/3');
    assert.equal(writeString(new Flonum(1)), '1.0');
    assert.equal(writeString(new Flonum(-0)), '-0.0');
    assert.equal(writeString(new Flonum(1e21)), '1e21');
    assert.equal(writeString(new Flonum(NaN)), '+nan.0');
    assert.equal(writeString(new Flonum(-Infinity)), '-inf.0');
    assert.equal(displayString(new Flonum(2.5)), '2.5');
  });

  test('booleans, the empty list and the special objects', () => {
    assert.equal(writeString(true), '#t');
    assert.equal(writeString(false), '#f');
    assert.equal(writeString(null), '()');
    assert.equal(writeString(VOID), '#!void');
    assert.equal(writeString(EOF), '#!eof');
    assert.equal(writeString(DEFAULT), '#!default');
  });

  test('strings escape quotes, backslashes and control characters when written', () => {
    assert.equal(writeString('plain'), '"plain"');
    assert.equal(writeString('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(writeString('\n\t\r\x07\b'), '"\\n\\t\\r\\a\\b"');
    assert.equal(writeString('\x7f\x01\x85'), '"\\x7f;\\x1;\\x85;"');
    assert.equal(writeString('λ😀'), '"λ😀"');
    assert.equal(displayString('a"b\n'), 'a"b\n');
    assert.equal(displayString(list('a"', 'b')), '(a" b)');
  });

  test('characters print by name, as hex when not printable, raw with display', () => {
    const cases = [
      [97, '#\\a'], [32, '#\\space'], [10, '#\\newline'], [9, '#\\tab'], [0, '#\\null'], [7, '#\\alarm'],
      [8, '#\\backspace'], [127, '#\\delete'], [27, '#\\escape'], [13, '#\\return'], [1, '#\\x1'],
      [0x85, '#\\x85'], [0xa0, '#\\xa0'], [0x200b, '#\\x200b'], [0x3bb, '#\\λ'], [0x1f600, '#\\😀'], [40, '#\\('],
    ];
    for (const [code, text] of cases) {
      assert.equal(writeString(Char.of(/** @type {number} */ (code))), text);
      assert.equal(read1(/** @type {string} */ (text)), Char.of(/** @type {number} */ (code)), `${text} reads back`);
    }
    assert.equal(displayString(Char.of(0x1f600)), '😀');
    assert.equal(displayString(list(Char.of(97), Char.of(32))), '(a  )');
  });

  test('symbols are bar-quoted exactly when needed to read back', () => {
    const bare = ['abc', '+', '-', '...', '->x', 'a.b', '<=?', 'λ', '1+', 'a#b', '-a', '+.x', '.foo', 'set-car!', 'Abc', '@x'];
    for (const name of bare) assert.equal(writeString(sym(name)), name, name);
    const barred = [
      ['a b', '|a b|'], ['', '||'], ['1', '|1|'], ['+1', '|+1|'], ['.', '|.|'], ['a|b', '|a\\|b|'],
      ['a\\b', '|a\\\\b|'], ['#foo', '|#foo|'], ['(', '|(|'], ['a;b', '|a;b|'], ['"', '|"|'], ["'a", "|'a|"],
      ['1/2', '|1/2|'], ['1e3', '|1e3|'], ['+inf.0', '|+inf.0|'], ['-nan.0', '|-nan.0|'], ['1+2i', '|1+2i|'],
      ['+i', '|+i|'], ['1/0', '|1/0|'], ['a\nb', '|a\\nb|'], ['\x01', '|\\x1;|'], ['a\u00a0b', '|a\u00a0b|'],
      ['#!eof', '|#!eof|'], ['[x]', '|[x]|'], ['a,b', '|a,b|'], ['`', '|`|'],
    ];
    for (const [name, text] of barred) {
      assert.equal(writeString(sym(name)), text, JSON.stringify(name));
      assert.equal(read1(text), sym(name), `${text} reads back`);
    }
    assert.equal(displayString(sym('a b')), 'a b');
    assert.equal(symbolNeedsBars('x'), false);
  });

  test('procedures, records, error objects and multiple values', () => {
    const lam = /** @type {any} */ ({ name: 'fib' });
    assert.equal(writeString(new Closure(() => 0, lam, [])), '#<procedure fib>');
    assert.equal(writeString(new Closure(() => 0, /** @type {any} */ ({ name: '' }), [])), '#<procedure>');
    assert.equal(writeString(function car() {}), '#<procedure car>');
    const point = new RecordType('<point>', ['x', 'y'], 'uid-point');
    assert.equal(writeString(new Record(point, [1, 'two'])), '#<point 1 "two">');
    assert.equal(displayString(new Record(point, [1, 'two'])), '#<point 1 two>');
    assert.equal(writeString(new Record(new RecordType('empty', [], 'u'), [])), '#<empty>');
    const err = new ErrorObject('expected a pair', list(5, 'x'), 'type', 'car');
    assert.equal(writeString(err), '#<error "car: expected a pair" 5 "x">');
    assert.equal(writeString(new ErrorObject('boom', null)), '#<error "boom">');
    assert.equal(writeString(new Values([1, 'a', sym('b')])), '1 "a" b');
    assert.equal(writeString(new Values([])), '');
  });

  test('registered printers handle other packages\' types and receive the mode', () => {
    class Pid {
      /** @param {number} n */
      constructor(n) {
        this.n = n;
      }
    }
    registerPrinter(Pid, (x, mode) => `#<pid ${x.n} ${mode}>`);
    assert.equal(writeString(new Pid(3)), '#<pid 3 write>');
    assert.equal(displayString(list(new Pid(4))), '(#<pid 4 display>)');
    assert.equal(writeSharedString(new Pid(5)), '#<pid 5 shared>');
    assert.equal(writeSimpleString(new Pid(6)), '#<pid 6 simple>');
  });
});

describe('compound data', () => {
  test('lists, dotted lists, vectors, bytevectors and quote forms', () => {
    assert.equal(writeString(list(1, list(2, 3), 'x')), '(1 (2 3) "x")');
    assert.equal(writeString(new Pair(1, new Pair(2, 3))), '(1 2 . 3)');
    assert.equal(writeString([1, [2], []]), '#(1 #(2) #())');
    assert.equal(writeString(new Uint8Array([0, 255])), '#u8(0 255)');
    assert.equal(writeString(new Uint8Array(0)), '#u8()');
    assert.equal(writeString(read1("'(a `b ,c ,@d)")), '(quote (a (quasiquote b) (unquote c) (unquote-splicing d)))');
    assert.equal(writeString(new Pair(1, [2])), '(1 . #(2))');
    assert.equal(writeString(list(new Flonum(1), new Ratnum(1n, 2n))), '(1.0 1/2)');
  });

  test('write labels only what is on a cycle; shared acyclic data print twice', () => {
    const shared = list(1);
    assert.equal(writeString(list(shared, shared)), '((1) (1))');
    const c = list(1, 2);
    c.cdr.cdr = c;
    assert.equal(writeString(c), '#0=(1 2 . #0#)');
    assert.equal(writeString(list(c, c)), '(#0=(1 2 . #0#) #0#)');
    const v = [1, null];
    v[1] = v;
    assert.equal(writeString(v), '#0=#(1 #0#)');
    const car = new Pair(null, null);
    car.car = car;
    assert.equal(writeString(car), '#0=(#0#)');
  });

  test('write-shared labels every shared pair and vector, numbering labels in order', () => {
    const a = list(1);
    const b = [2];
    assert.equal(writeSharedString(list(a, b, a, b)), '(#0=(1) #1=#(2) #0# #1#)');
    const c = list(1, 2);
    c.cdr.cdr = c;
    assert.equal(writeSharedString(c), '#0=(1 2 . #0#)');
    assert.equal(writeSharedString(list(1, 2)), '(1 2)');
  });

  test('a shared tail is printed after a dot', () => {
    const tail = list(2, 3);
    assert.equal(writeSharedString(list(new Pair(1, tail), tail)), '((1 . #0=(2 3)) #0#)');
  });

  test('display also labels cycles, so it terminates', () => {
    const c = list('a');
    c.cdr = c;
    assert.equal(displayString(c), '#0=(a . #0#)');
  });

  test('cycles through records, error irritants and values terminate', () => {
    const rt = new RecordType('node', ['next'], 'u');
    const r = new Record(rt, [null]);
    r.f[0] = list(r);
    assert.equal(writeString(r), '#0=#<node (#0#)>');
    const err = new ErrorObject('m', null);
    err.irritants = list(err);
    assert.equal(writeString(err), '#0=#<error "m" #0#>');
  });

  test('write-simple never labels and refuses a cyclic datum instead of running out of memory', () => {
    const a = list(1);
    assert.equal(writeSimpleString(list(a, a)), '((1) (1))');
    const c = list(1);
    c.cdr = c;
    assert.throws(() => writeSimpleString(c), (e) => e instanceof SchemeError && e.payload.who === 'write-simple');
  });
});

describe('large data (no JS recursion)', () => {
  test('a list of 1,000,000 elements', () => {
    const arr = new Array(1_000_000).fill(7);
    const s = writeString(arrayToList(arr));
    assert.equal(s.length, 2 * 1_000_000 + 1);
    assert.ok(s.startsWith('(7 7 7') && s.endsWith('7 7)'));
    const v = writeSharedString(arrayToList(arr.map((_, i) => list(i))));
    assert.ok(v.startsWith('((0) (1) (2)'));
  });

  test('lists nested 100,000 deep, and a deep car chain with a cycle', () => {
    let x = null;
    for (let i = 0; i < 100_000; i++) x = list(x);
    const s = writeString(x);
    assert.equal(s.length, 100_000 * 2 + 2);
    let y = new Pair(null, null);
    const top = y;
    for (let i = 0; i < 100_000; i++) y = y.car = new Pair(null, null);
    y.car = top;
    const w = writeString(top);
    assert.ok(w.startsWith('#0=((((') && w.includes('#0#'));
  });

  test('vectors nested 100,000 deep', () => {
    let x = [];
    for (let i = 0; i < 100_000; i++) x = [x];
    assert.equal(displayString(x).length, 100_000 * 3 + 3);
  });
});
