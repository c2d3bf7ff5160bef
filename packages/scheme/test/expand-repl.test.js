// @ts-check
// REPL / eval environments: state kept across inputs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { read, show, memoryReadFile, syntaxErrorOf } from './fixtures/expand/helpers.js';
import { createEnvironment, expandInEnvironment } from '../src/expand/index.js';

/** Expand each input in turn; the printed REPL unit bodies. @param {any} env @param {...string} inputs */
function repl(env, ...inputs) {
  return inputs.map((src) => {
    const { units } = expandInEnvironment(read(src, 'repl')[0], env);
    const last = units[units.length - 1];
    assert.equal(last.kind, 'repl');
    return show(last.body);
  });
}

test('definitions made in one input are globals of "." in later inputs', () => {
  const env = createEnvironment(null);
  assert.deepEqual(repl(env, '(define x 1)', '(+ x 1)'), ['(define .::x (quote 1))', '(rt::+ .::x (quote 1))']);
});

test('an input may refer to a name defined by a later input, and redefine an earlier one', () => {
  const env = createEnvironment(null);
  assert.deepEqual(repl(env, '(define (f) (g))', '(define (g) 1)', '(define (g) 2)'), [
    '(define .::f (lambda:f () (.::g)))',
    '(define .::g (lambda:g () (quote 1)))',
    '(define .::g (lambda:g () (quote 2)))',
  ]);
});

test('macros persist across inputs', () => {
  const env = createEnvironment(null);
  assert.deepEqual(repl(env, '(define-syntax twice (syntax-rules () ((_ e) (begin e e))))', '(twice (newline))'), ["(quote #!void)", '(begin (rt::newline) (rt::newline))']);
});

test('a REPL definition may shadow an imported name; assigning an imported one is an error', () => {
  const env = createEnvironment(null);
  assert.match(syntaxErrorOf(() => repl(env, '(set! car 1)')).message, /set!: cannot assign car: it is imported/);
  assert.deepEqual(repl(env, '(define car 5)', '(set! car 6)', 'car'), ['(define .::car (quote 5))', '(set! .::car (quote 6))', '.::car']);
});

test('an environment made from import specs sees only what they import', () => {
  const env = createEnvironment([read('(only (scheme base) + define)')[0]]);
  assert.deepEqual(repl(env, '(define x (+ 1 2))'), ['(define .::x (rt::+ (quote 1) (quote 2)))']);
  assert.deepEqual(repl(env, '(if 1 2 3)'), ['(.::if (quote 1) (quote 2) (quote 3))'], 'if is not imported: a call of a global the REPL may define later');
});

test('import inside the REPL adds bindings for later inputs', () => {
  const env = createEnvironment([read('(scheme base)')[0]]);
  assert.deepEqual(repl(env, '(import (prefix (scheme write) w:))', '(w:display 1)'), ["(quote #!void)", '(rt::display (quote 1))']);
});

test('library units needed by the environment come with the first input, libraries defined at the REPL with theirs', () => {
  const files = { 'lib/a.sld': '(define-library (a) (export v) (import (scheme base)) (begin (define v 1)))' };
  const env = createEnvironment([read('(scheme base)')[0], read('(a)')[0]], { libraryPath: ['lib'], readFile: memoryReadFile(files) });
  let { units } = expandInEnvironment(read('v')[0], env);
  assert.deepEqual(units.map((u) => `${u.kind} ${u.name}`), ['library (a)', 'repl repl']);
  assert.deepEqual(units[1].requires, ['lib:(a)']);
  ({ units } = expandInEnvironment(read('(define-library (b) (export w) (import (scheme base)) (begin (define w 2)))')[0], env));
  assert.deepEqual(units.map((u) => `${u.kind} ${u.name}`), ['library (b)', 'repl repl']);
  ({ units } = expandInEnvironment(read('(import (b))')[0], env));
  assert.deepEqual(units.map((u) => u.kind), ['repl']);
  ({ units } = expandInEnvironment(read('(list v w)')[0], env));
  assert.equal(show(units[0].body), '(rt::list lib:(a)::v lib:(b)::w)');
  assert.deepEqual(units[0].requires, ['lib:(a)', 'lib:(b)']);
});

test('record type ordinals start at 0 in each REPL unit', () => {
  const env = createEnvironment(null);
  const outs = repl(env, '(define-record-type a (mk-a) a?)', '(define-record-type b (mk-b) b?)');
  assert.match(outs[0], /%make-record-type \(quote a\) \(quote #\(\)\) \(quote 0\)/);
  assert.match(outs[1], /%make-record-type \(quote b\) \(quote #\(\)\) \(quote 0\)/);
});

test('an error in one input leaves the environment usable', () => {
  const env = createEnvironment(null);
  assert.match(syntaxErrorOf(() => repl(env, '(let ((x)) x)')).message, /repl:1:1: let: a binding must be \(variable init\)/);
  assert.deepEqual(repl(env, '(let ((x 1)) x)'), ['(let ((x.1 (quote 1))) x.1)']);
});

test('helpers that macros define at the REPL top level get distinct hidden names across inputs', () => {
  const env = createEnvironment(null);
  const outs = repl(env, '(define-syntax def-c (syntax-rules () ((_ get) (begin (define n 0) (define (get) n)))))', '(def-c a)', '(def-c b)');
  assert.equal(outs[1], '(begin (define .::n%1 (quote 0)) (define .::a (lambda:a () .::n%1)))');
  assert.equal(outs[2], '(begin (define .::n%2 (quote 0)) (define .::b (lambda:b () .::n%2)))');
});
