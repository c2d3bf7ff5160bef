// @ts-check
// The expander's extension point (src/expand/extension.js): a host package defines a
// library of its own — special forms and procedure names — as the process runtime
// defines (termite)'s. Here a toy library with one form, `(twice e)` ⇒ (+ e e).
import test from 'node:test';
import assert from 'node:assert/strict';
import { core, expand, syntaxErrorOf } from './fixtures/expand/helpers.js';
import { runProgramText } from '../src/index.js';
import { expander } from '../src/internal.js';
import { isKeywordName } from '../src/expand/special-forms.js';

/** `(twice e)`: e expanded twice (two nodes, not one shared), added. @type {import('../src/expand/extension.js').SpecialFormHandler} */
function* twice(form, env, u, loc) {
  const [e] = expander.operands(form, 'twice', loc, 1, 1, '(twice expression)');
  const a = yield expander.expandExpr(e, env, u, loc);
  const b = yield expander.expandExpr(e, env, u, loc);
  return expander.rtCall('+', [a, b], loc);
}

expander.defineHostLibrary('(toy)', { syntax: { twice }, procedures: ['toy-proc'] });

test('a host library\'s form and procedure names are imported like a standard library\'s', () => {
  assert.equal(core('(import (scheme base) (toy)) (twice 21)'), '(rt::+ (quote 21) (quote 21))');
  assert.equal(core('(import (only (toy) toy-proc)) (toy-proc)'), '(rt::toy-proc)');
  assert.equal(core('(import (scheme base) (rename (toy) (twice double))) (let ((x 2)) (double (double x)))'), '(let ((x.1 (quote 2))) (rt::+ (rt::+ x.1 x.1) (rt::+ x.1 x.1)))');
  assert.match(syntaxErrorOf(() => expand('(import (toy)) (twice)')).message, /twice: expected \(twice expression\)/);
});

test('a host form runs: compiled and run like the language\'s own', () => {
  const out = [];
  const r = runProgramText('(import (scheme base) (scheme write) (toy)) (display (twice 21))', { stdout: (s) => out.push(s) });
  assert.ok(r.ok);
  assert.equal(out.join(''), '42');
});

test('a host library is imported by default only when it says so', () => {
  assert.match(syntaxErrorOf(() => expand('(twice 1)')).message, /twice: unbound variable/);
  assert.equal(expander.isDefaultImport('(toy)'), false);
  expander.defineHostLibrary('(toy default)', { procedures: ['toy-default-proc'], defaultImport: true });
  assert.equal(core('(toy-default-proc)'), '(rt::toy-default-proc)');
  assert.ok(expander.isDefaultImport('(toy default)'));
});

test('defining a library again is harmless, and a later definition adds the names it lacks', () => {
  expander.defineHostLibrary('(toy)', { syntax: { twice }, procedures: ['toy-proc'] });
  assert.deepEqual(expander.libraryExports('(toy)'), { syntax: ['twice'], procedures: ['toy-proc'] });
  expander.defineHostLibrary('(toy)', { procedures: ['toy-proc', 'toy-more'] });
  assert.deepEqual(expander.libraryExports('(toy)'), { syntax: ['twice'], procedures: ['toy-proc', 'toy-more'] });
  assert.equal(core('(import (toy)) (toy-more)'), '(rt::toy-more)', 'a program expanded afterwards sees the added name');
  assert.equal(expander.libraryExports('(no such library)'), null);
});

test('a keyword is defined once: the language\'s own and another handler for a host form are refused', () => {
  assert.throws(() => expander.defineHostLibrary('(toy bad)', { syntax: { if: twice } }), /\(toy bad\): if is already a keyword/);
  assert.throws(() => expander.defineHostLibrary('(toy bad)', { syntax: { twice: function* () { return null; } } }), /twice is already a keyword/);
  assert.throws(() => expander.defineHostLibrary('(toy bad)', { syntax: { thrice: twice }, procedures: ['thrice'] }), /thrice is both a keyword and a procedure/);
  assert.throws(() => expander.defineHostLibrary('(toy bad)', { syntax: { thrice: twice, if: twice } }), /if is already a keyword/);
  assert.equal(isKeywordName('thrice'), false, 'all or none: thrice was not defined when if was refused');
  assert.throws(() => expander.defineHostLibrary('toy', {}), /a library key such as "\(termite\)"/);
  assert.throws(() => expander.defineHostLibrary('(scheme base)', { procedures: ['toy-proc'] }), /\(scheme base\) is an R7RS library/);
  assert.equal(expander.libraryExports('(scheme base)')?.procedures.includes('toy-proc'), false);
  assert.equal(expander.libraryExports('(toy bad)'), null, 'a refused definition defines nothing');
  assert.equal(core('(if 1 2 3)'), '(if (quote 1) (quote 2) (quote 3))');
});
