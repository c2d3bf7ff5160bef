// @ts-check
// R7RS §6.5 Symbols: symbol?, symbol=?, symbol->string, string->symbol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sym, SchemeError, Pair, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import '../src/primitives/prims-lists.js';
import '../src/primitives/prims-strings.js'; // string=?

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}
const sym = (/** @type {string} */ s) => Sym.intern(s);

/** @param {() => any} fn @param {string} who @param {string} message @param {any} irritant */
function assertError(fn, who, message, irritant) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof SchemeError, String(e));
    assert.equal(e.payload.who, who);
    assert.equal(e.payload.message, message);
    assert.equal(listToArray(e.payload.irritants)[0], irritant);
    return true;
  });
}

test('symbol? gives the results of the R7RS examples', () => {
  assert.equal(call('symbol?', sym('foo')), true);
  assert.equal(call('symbol?', call('car', new Pair(sym('a'), sym('b')))), true);
  assert.equal(call('symbol?', 'bar'), false);
  assert.equal(call('symbol?', sym('nil')), true);
  assert.equal(call('symbol?', null), false);
  assert.equal(call('symbol?', false), false);
});

test('symbol=? compares two or more symbols and rejects non-symbols', () => {
  assert.equal(call('symbol=?', sym('a'), sym('a')), true);
  assert.equal(call('symbol=?', sym('a'), sym('a'), sym('a')), true);
  assert.equal(call('symbol=?', sym('a'), sym('a'), sym('b')), false);
  assert.equal(call('symbol=?', Sym.gensym(), Sym.gensym()), false);
  assertError(() => call('symbol=?', sym('a'), 'a'), 'symbol=?', 'expected a symbol', 'a');
});

test('symbol->string gives the results of the R7RS examples', () => {
  assert.equal(call('symbol->string', sym('flying-fish')), 'flying-fish');
  assert.equal(call('symbol->string', sym('Martin')), 'Martin');
  assert.equal(call('symbol->string', call('string->symbol', 'Malvina')), 'Malvina');
  assertError(() => call('symbol->string', 'abc'), 'symbol->string', 'expected a symbol', 'abc');
});

test('string->symbol interns: the R7RS examples, odd names and astral characters', () => {
  assert.equal(call('string->symbol', 'mISSISSIppi'), sym('mISSISSIppi'));
  assert.equal(call('string->symbol', 'mISSISSIppi').name, 'mISSISSIppi');
  assert.equal(call('eq?', sym('bitBlt'), call('string->symbol', 'bitBlt')), true);
  assert.equal(call('eq?', sym('LollyPop'), call('string->symbol', call('symbol->string', sym('LollyPop')))), true);
  assert.equal(call('string=?', 'K. Harper, M.D.', call('symbol->string', call('string->symbol', 'K. Harper, M.D.'))), true);
  assert.equal(call('string->symbol', ''), sym(''));
  assert.equal(call('string->symbol', 'λ😀'), sym('λ😀'));
  assertError(() => call('string->symbol', sym('a')), 'string->symbol', 'expected a string', sym('a'));
});
