// @ts-check
// R7RS §6.4 Pairs and lists, with the (scheme cxr) accessors and %member / %assoc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pair, Sym, Flonum, SchemeError, VOID, list, listToArray, freezeLiteral } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import { runBuiltin } from '../src/engine/resumable.js';
import { builtinUnit } from '../src/engine/builtins.js';
import '../src/primitives/prims-lists.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  if (!p && builtinUnit.lamsByName.has(name)) return runBuiltin(name, args); // a resumable builtin
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
const sym = (/** @type {string} */ s) => Sym.intern(s);

/**
 * Write a datum as text, enough for the assertions here (lists, symbols, numbers, strings).
 * @param {any} x @returns {string}
 */
function show(x) {
  if (x === null) return '()';
  if (x === true) return '#t';
  if (x === false) return '#f';
  if (x instanceof Sym) return x.name;
  if (x instanceof Flonum) return Number.isInteger(x.v) ? `${x.v}.0` : String(x.v);
  if (typeof x === 'string') return JSON.stringify(x);
  if (Array.isArray(x)) return `#(${x.map(show).join(' ')})`;
  if (x instanceof Pair) {
    const parts = [show(x.car)];
    let p = x.cdr;
    for (; p instanceof Pair; p = p.cdr) parts.push(show(p.car));
    return `(${parts.join(' ')}${p === null ? '' : ` . ${show(p)}`})`;
  }
  return String(x);
}

/**
 * Read a small datum: lists, dotted pairs, symbols, integers, strings (no escapes).
 * Literal data are frozen, as the compiler freezes quoted constants.
 * @param {string} text @returns {any}
 */
function read(text) {
  const tokens = text.match(/"[^"]*"|[()]|[^\s()]+/g) ?? [];
  let i = 0;
  /** @returns {any} */
  function datum() {
    const t = tokens[i++];
    if (t === '(') {
      /** @type {any[]} */ const items = [];
      let tail = null;
      while (tokens[i] !== ')') {
        if (tokens[i] === '.') {
          i++;
          tail = datum();
        } else items.push(datum());
      }
      i++;
      return list(...items) === null && tail !== null ? tail : listWithTail(items, tail);
    }
    if (t.startsWith('"')) return t.slice(1, -1);
    if (/^-?\d+$/.test(t)) return Number(t);
    if (t === '#t') return true;
    if (t === '#f') return false;
    return sym(t);
  }
  return freezeLiteral(datum());
}
/** @param {any[]} items @param {any} tail */
function listWithTail(items, tail) {
  let l = tail;
  for (let j = items.length - 1; j >= 0; j--) l = new Pair(items[j], l);
  return l;
}

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

test('the R7RS example of set-cdr! turning a list into an improper then cyclic one', () => {
  const x = list(sym('a'), sym('b'), sym('c'));
  const y = x;
  assert.equal(show(y), '(a b c)');
  assert.equal(call('list?', y), true);
  assert.equal(call('set-cdr!', x, 4), VOID);
  assert.equal(show(x), '(a . 4)');
  assert.equal(call('eqv?', x, y), true);
  assert.equal(show(y), '(a . 4)');
  assert.equal(call('list?', y), false);
  call('set-cdr!', x, x);
  assert.equal(call('list?', x), false);
});

test('pair? gives the results of the R7RS examples', () => {
  assert.equal(call('pair?', read('(a . b)')), true);
  assert.equal(call('pair?', read('(a b c)')), true);
  assert.equal(call('pair?', null), false);
  assert.equal(call('pair?', [sym('a'), sym('b')]), false);
});

test('cons gives the results of the R7RS examples', () => {
  assert.equal(show(call('cons', sym('a'), null)), '(a)');
  assert.equal(show(call('cons', read('(a)'), read('(b c d)'))), '((a) b c d)');
  assert.equal(show(call('cons', 'a', read('(b c)'))), '("a" b c)');
  assert.equal(show(call('cons', sym('a'), 3)), '(a . 3)');
  assert.equal(show(call('cons', read('(a b)'), sym('c'))), '((a b) . c)');
  assert.equal(Object.isFrozen(call('cons', 1, 2)), false, 'a new pair is mutable');
});

test('car and cdr give the results of the R7RS examples and name themselves on error', () => {
  assert.equal(show(call('car', read('(a b c)'))), 'a');
  assert.equal(show(call('car', read('((a) b c d)'))), '(a)');
  assert.equal(call('car', read('(1 . 2)')), 1);
  assertError(() => call('car', null), 'car', 'expected a pair', [null], 'type');
  assertError(() => call('car', 5), 'car', 'expected a pair', [5], 'type');
  assert.equal(show(call('cdr', read('((a) b c d)'))), '(b c d)');
  assert.equal(call('cdr', read('(1 . 2)')), 2);
  assertError(() => call('cdr', null), 'cdr', 'expected a pair', [null], 'type');
});

test('set-car! on a fresh list works, on a literal constant it is a Scheme error', () => {
  const f = () => list(sym('not-a-constant-list'));
  const g = () => read('(constant-list)');
  const l = f();
  assert.equal(call('set-car!', l, 3), VOID);
  assert.equal(l.car, 3);
  const c = g();
  assertError(() => call('set-car!', c, 3), 'set-car!', 'cannot mutate a literal constant', [c], 'immutable');
  assertError(() => call('set-cdr!', c, 3), 'set-cdr!', 'cannot mutate a literal constant', [c], 'immutable');
  assert.equal(show(c), '(constant-list)', 'the literal is unchanged');
  assertError(() => call('set-car!', 1, 3), 'set-car!', 'expected a pair', [1]);
});

test('all 28 c[ad]r accessors of two to four levels follow their letters', () => {
  // Tree where every position holds its own path name.
  /** @param {string} path @param {number} depth @returns {any} */
  const build = (path, depth) => (depth === 0 ? sym(path || 'root') : new Pair(build(`a${path}`, depth - 1), build(`d${path}`, depth - 1)));
  const tree = build('', 4);
  let n = 0;
  for (const len of [2, 3, 4]) {
    for (let bits = 0; bits < 1 << len; bits++) {
      let path = '';
      for (let i = len - 1; i >= 0; i--) path += bits & (1 << i) ? 'd' : 'a';
      const got = call(`c${path}r`, tree);
      // At depth 4 the leaf names the full 4-letter path; shorter paths give subtrees.
      let expected = tree;
      for (const c of [...path].reverse()) expected = c === 'a' ? expected.car : expected.cdr;
      assert.equal(got, expected, `c${path}r`);
      n++;
    }
  }
  assert.equal(n, 28);
  assert.equal(show(call('caddr', read('(1 2 3)'))), '3');
  assert.equal(call('cadr', read('(1 2)')), 2);
  assert.equal(call('cddddr', read('(1 2 3 4 5)')).car, 5);
  const bad = read('(1)');
  assertError(() => call('cadr', bad), 'cadr', 'incorrect list structure', [bad]);
  assertError(() => call('cadr', 7), 'cadr', 'expected a pair', [7]);
});

test('null? and list? give the results of the R7RS examples', () => {
  assert.equal(call('null?', null), true);
  assert.equal(call('null?', read('(a)')), false);
  assert.equal(call('null?', false), false);
  assert.equal(call('list?', read('(a b c)')), true);
  assert.equal(call('list?', null), true);
  assert.equal(call('list?', read('(a . b)')), false);
  const x = list(sym('a'));
  call('set-cdr!', x, x);
  assert.equal(call('list?', x), false);
  const y = list(1, 2, 3, 4, 5);
  /** @type {any} */ (y).cdr.cdr.cdr.cdr.cdr = y.cdr;
  assert.equal(call('list?', y), false, 'a cycle that does not start at the head');
});

test('make-list and list build fresh lists', () => {
  assert.equal(show(call('make-list', 2, 3)), '(3 3)');
  assert.equal(call('length', call('make-list', 4)), 4);
  assert.equal(call('make-list', 0, 1), null);
  assertError(() => call('make-list', -1), 'make-list', 'expected an exact non-negative integer', [-1]);
  assertError(() => call('make-list', new Flonum(2)), 'make-list', 'expected an exact non-negative integer');
  assert.equal(show(call('list', sym('a'), 7, sym('c'))), '(a 7 c)');
  assert.equal(call('list'), null);
});

test('length counts proper lists and rejects improper and cyclic ones', () => {
  assert.equal(call('length', read('(a b c)')), 3);
  assert.equal(call('length', read('(a (b) (c d e))')), 3);
  assert.equal(call('length', null), 0);
  const dotted = read('(a b . c)');
  assertError(() => call('length', dotted), 'length', 'expected a proper list', [dotted], 'type');
  const x = list(1, 2, 3);
  /** @type {any} */ (x).cdr.cdr.cdr = x;
  assertError(() => call('length', x), 'length', 'expected a proper list, got a cyclic list', [x]);
  assertError(() => call('length', 5), 'length', 'expected a proper list', [5]);
});

test('append gives the results of the R7RS examples and shares its last argument', () => {
  assert.equal(show(call('append', read('(x)'), read('(y)'))), '(x y)');
  assert.equal(show(call('append', read('(a)'), read('(b c d)'))), '(a b c d)');
  assert.equal(show(call('append', read('(a (b))'), read('((c))'))), '(a (b) (c))');
  assert.equal(show(call('append', read('(a b)'), read('(c . d)'))), '(a b c . d)');
  assert.equal(show(call('append', null, sym('a'))), 'a');
  assert.equal(call('append'), null);
  assert.equal(call('append', 5), 5);
  const last = list(3, 4);
  const first = list(1, 2);
  const r = call('append', first, null, list(), last);
  assert.equal(show(r), '(1 2 3 4)');
  assert.equal(r.cdr.cdr, last, 'the last list is shared');
  assert.notEqual(r, first, 'the others are copied');
  assert.equal(show(first), '(1 2)');
  const bad = read('(1 . 2)');
  assertError(() => call('append', bad, list(3)), 'append', 'expected a proper list', [bad]);
});

test('append of many long lists is iterative', () => {
  const big = call('make-list', 200_000, 1);
  const r = call('append', big, big, list(2));
  assert.equal(call('length', r), 400_001);
});

test('reverse gives the results of the R7RS examples', () => {
  assert.equal(show(call('reverse', read('(a b c)'))), '(c b a)');
  assert.equal(show(call('reverse', read('(a (b c) d (e (f)))'))), '((e (f)) d (b c) a)');
  assert.equal(call('reverse', null), null);
  assertError(() => call('reverse', read('(a . b)')), 'reverse', 'expected a proper list');
});

test('list-tail and list-ref give the results of the R7RS examples and check the index', () => {
  assert.equal(show(call('list-tail', read('(a b c d)'), 2)), '(c d)');
  assert.equal(show(call('list-tail', read('(a b c d)'), 4)), '()');
  assert.equal(show(call('list-ref', read('(a b c d)'), 2)), 'c');
  const l = read('(a b c d)');
  assertError(() => call('list-ref', l, 4), 'list-ref', 'index out of range', [4, l], 'range');
  assertError(() => call('list-tail', l, 5), 'list-tail', 'index out of range', [5, l], 'range');
  assertError(() => call('list-ref', l, -1), 'list-ref', 'expected an exact non-negative integer', [-1]);
  assertError(() => call('list-ref', l, new Flonum(1)), 'list-ref', 'expected an exact non-negative integer');
  assertError(() => call('list-ref', l, 2n ** 70n), 'list-ref', 'index out of range', undefined, 'range');
});

test('list-set! gives the result of the R7RS example and refuses literal constants', () => {
  const ls = list(sym('one'), sym('two'), sym('five!'));
  call('list-set!', ls, 2, sym('three'));
  assert.equal(show(ls), '(one two three)');
  const c = read('(0 1 2)');
  assertError(() => call('list-set!', c, 1, 'oops'), 'list-set!', 'cannot mutate a literal constant', undefined, 'immutable');
  assertError(() => call('list-set!', list(1), 1, 0), 'list-set!', 'index out of range');
});

test('memq, memv and %member give the results of the R7RS examples', () => {
  assert.equal(show(call('memq', sym('a'), read('(a b c)'))), '(a b c)');
  assert.equal(show(call('memq', sym('b'), read('(a b c)'))), '(b c)');
  assert.equal(call('memq', sym('a'), read('(b c d)')), false);
  assert.equal(call('memq', list(sym('a')), read('(b (a) c)')), false);
  assert.equal(show(call('%member', list(sym('a')), read('(b (a) c)'))), '((a) c)');
  assert.equal(show(call('memq', 101, read('(100 101 102)'))), '(101 102)');
  assert.equal(show(call('memv', 101, read('(100 101 102)'))), '(101 102)');
  assert.equal(show(call('memv', new Flonum(1.5), list(1, new Flonum(1.5)))), '(1.5)');
  assert.equal(call('memq', new Flonum(1.5), list(1, new Flonum(1.5))), false);
  assert.equal(show(call('%member', 'b', list('a', 'b', 'c'))), '("b" "c")');
});

test('memq and assq stop with an error on an improper or cyclic list instead of looping', () => {
  const dotted = read('(a b . c)');
  assertError(() => call('memq', sym('z'), dotted), 'memq', 'expected a proper list', [dotted]);
  const cyc = list(1, 2, 3);
  /** @type {any} */ (cyc).cdr.cdr.cdr = cyc;
  assertError(() => call('memv', 9, cyc), 'memv', 'expected a proper list, got a cyclic list', [cyc]);
  assert.equal(show(call('memv', 3, cyc).car), '3', 'an element in the cycle is still found');
  const acyc = list(list(1), list(2));
  /** @type {any} */ (acyc).cdr.cdr = acyc;
  assertError(() => call('assq', 9, acyc), 'assq', 'expected a proper list, got a cyclic list');
});

test('assq, assv and %assoc give the results of the R7RS examples', () => {
  const e = read('((a 1) (b 2) (c 3))');
  assert.equal(show(call('assq', sym('a'), e)), '(a 1)');
  assert.equal(show(call('assq', sym('b'), e)), '(b 2)');
  assert.equal(call('assq', sym('d'), e), false);
  assert.equal(call('assq', list(sym('a')), read('(((a)) ((b)) ((c)))')), false);
  assert.equal(show(call('%assoc', list(sym('a')), read('(((a)) ((b)) ((c)))'))), '((a))');
  assert.equal(show(call('assq', 5, read('((2 3) (5 7) (11 13))'))), '(5 7)');
  assert.equal(show(call('assv', 5, read('((2 3) (5 7) (11 13))'))), '(5 7)');
  assertError(() => call('assq', sym('x'), read('((a 1) b)')), 'assq', 'expected an association list (a list of pairs)', [sym('b')]);
});

test('list-copy gives the result of the R7RS example, copies improper lists, returns non-lists', () => {
  const a = read('(1 8 2 8)');
  const b = call('list-copy', a);
  call('set-car!', b, 3);
  assert.equal(show(b), '(3 8 2 8)');
  assert.equal(show(a), '(1 8 2 8)');
  const d = read('(1 2 . 3)');
  const dc = call('list-copy', d);
  assert.equal(show(dc), '(1 2 . 3)');
  assert.notEqual(dc, d);
  assert.equal(call('list-copy', 7), 7);
  assert.equal(call('list-copy', null), null);
  const cyc = list(1, 2);
  /** @type {any} */ (cyc).cdr.cdr = cyc;
  assertError(() => call('list-copy', cyc), 'list-copy', 'expected a list, got a cyclic list');
});

test('allocating list procedures are not marked pure, accessors are', () => {
  for (const name of ['cons', 'list', 'set-car!']) assert.equal(primitives.get(name)?.pure, false, name);
  for (const name of ['car', 'cdr', 'caddr', 'pair?', 'null?', 'list?']) assert.equal(primitives.get(name)?.pure, true, name);
  // the walks over a whole list are resumable builtins: never primitives (never folded or called directly)
  for (const name of ['make-list', 'append', 'reverse', 'list-copy', 'length', 'memq', 'assv']) {
    assert.equal(primitives.has(name), false, name);
    assert.ok(builtinUnit.lamsByName.has(name), name);
  }
});
