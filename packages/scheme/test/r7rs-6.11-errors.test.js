// @ts-check
// R7RS §6.11 Exceptions: error and the error-object procedures (raise, guard and
// with-exception-handler are control primitives, tested with the driver).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorObject, SchemeError, Sym, list, listToArray } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';
import '../src/primitives/prims-errors.js';
import '../src/primitives/prims-lists.js';
import '../src/primitives/ports.js';
import '../src/primitives/console-input.js';
import { builtinUnit } from '../src/engine/builtins.js';
import { rtEnv } from '../src/engine/linker.js';

/** @param {string} name @param {...any} args */
function call(name, ...args) {
  // read is a builtin (it may wait for console input: console-input.js)
  const lam = builtinUnit.lamsByName.get(name);
  if (!primitives.has(name) && lam) return lam.fast.call(rtEnv.cell(name).v, 0, ...args);
  const p = primitives.get(name);
  assert.ok(p, `${name} is registered`);
  return p.fn(...args);
}

/** The error object `fn` raises. @param {() => any} fn @returns {ErrorObject} */
function caught(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SchemeError, `a SchemeError, not ${e}`);
    assert.ok(e.payload instanceof ErrorObject);
    return e.payload;
  }
  assert.fail('expected an error');
}

test('error raises an error object with the message and the irritants, as in the R7RS example', () => {
  // (define (null-list? l) (cond ((pair? l) #f) ((null? l) #t)
  //   (else (error "null-list?: argument out of domain" l))))
  const l = Sym.intern('not-a-list');
  const e = caught(() => call('error', 'null-list?: argument out of domain', l));
  assert.equal(call('error-object?', e), true);
  assert.equal(call('error-object-message', e), 'null-list?: argument out of domain');
  assert.deepEqual(listToArray(call('error-object-irritants', e)), [l]);
  assert.equal(e.kind, 'error');
  assert.equal(e.who, null);
});

test('error without irritants has an empty irritant list; several irritants keep their order', () => {
  assert.equal(call('error-object-irritants', caught(() => call('error', 'plain'))), null);
  const e = caught(() => call('error', 'many', 1, 'two', list(3)));
  const irritants = listToArray(call('error-object-irritants', e));
  assert.equal(irritants.length, 3);
  assert.equal(irritants[0], 1);
  assert.equal(irritants[1], 'two');
  assert.deepEqual(listToArray(irritants[2]), [3]);
});

test('a message that is not a string is converted as display prints it', () => {
  assert.equal(caught(() => call('error', Sym.intern('my-proc'), 'details')).message, 'my-proc');
  assert.equal(caught(() => call('error', 42)).message, '42');
  assert.equal(caught(() => call('error', list(Sym.intern('a'), 'b'))).message, '(a b)');
});

test('error-object? is true only for error objects, including those signalled by primitives', () => {
  assert.equal(call('error-object?', 'message'), false);
  assert.equal(call('error-object?', list(1)), false);
  const e = caught(() => call('car', 5));
  assert.equal(call('error-object?', e), true);
  assert.equal(call('error-object-message', e), 'expected a pair');
  assert.deepEqual(listToArray(call('error-object-irritants', e)), [5]);
  assert.equal(e.who, 'car');
});

test('error-object-message and error-object-irritants name themselves when given something else', () => {
  for (const who of ['error-object-message', 'error-object-irritants']) {
    const e = caught(() => call(who, 'oops'));
    assert.equal(e.who, who);
    assert.equal(e.message, 'expected an error object');
    assert.deepEqual(listToArray(e.irritants), ['oops']);
  }
});

test('read-error? is true for errors signalled by read on malformed input, false otherwise', () => {
  const e = caught(() => call('read', call('open-input-string', '(1 2')));
  assert.equal(call('read-error?', e), true);
  assert.equal(call('file-error?', e), false);
  assert.equal(call('read-error?', caught(() => call('error', 'x'))), false);
  assert.equal(call('read-error?', 'x'), false);
});

test('file-error? is true for errors signalled when a file cannot be opened or deleted', () => {
  const missing = '/nonexistent-directory-for-termite-tests/file.txt';
  const e = caught(() => call('open-input-file', missing));
  assert.equal(call('file-error?', e), true);
  assert.equal(call('read-error?', e), false);
  assert.equal(e.who, 'open-input-file');
  assert.match(e.message, /^cannot open file \(no such file or directory\)$/);
  assert.deepEqual(listToArray(e.irritants), [missing]);
  assert.equal(call('file-error?', caught(() => call('delete-file', missing))), true);
  assert.equal(call('file-error?', caught(() => call('open-output-file', missing))), true);
  assert.equal(call('file-error?', caught(() => call('error', 'x'))), false);
});
