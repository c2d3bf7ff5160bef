// @ts-check
// R7RS §6.3 Booleans: not, boolean?, boolean=?.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sym, SchemeError, list, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import '../src/primitives/prims-lists.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}

test('not gives the results of the R7RS examples: only #f is false', () => {
  assert.equal(call('not', true), false);
  assert.equal(call('not', 3), false);
  assert.equal(call('not', list(3)), false);
  assert.equal(call('not', false), true);
  assert.equal(call('not', null), false);
  assert.equal(call('not', list()), false);
  assert.equal(call('not', Sym.intern('nil')), false);
  assert.equal(call('not', 0), false);
  assert.equal(call('not', ''), false);
});

test('boolean? gives the results of the R7RS examples', () => {
  assert.equal(call('boolean?', false), true);
  assert.equal(call('boolean?', true), true);
  assert.equal(call('boolean?', 0), false);
  assert.equal(call('boolean?', null), false);
});

test('boolean=? compares two or more booleans', () => {
  assert.equal(call('boolean=?', true, true), true);
  assert.equal(call('boolean=?', false, false), true);
  assert.equal(call('boolean=?', true, false), false);
  assert.equal(call('boolean=?', false, false, false), true);
  assert.equal(call('boolean=?', false, false, true), false);
  assert.equal(primitives.get('boolean=?')?.max, -1);
});

test('boolean=? names itself and the offending value when an argument is not a boolean', () => {
  assert.throws(
    () => call('boolean=?', true, 1),
    (e) => e instanceof SchemeError && e.payload.who === 'boolean=?' && e.payload.message === 'expected a boolean' && listToArray(e.payload.irritants)[0] === 1,
  );
});
