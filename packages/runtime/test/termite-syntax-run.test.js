// @ts-check
// End to end: programs using the (termite) forms match and catch, expanded, compiled
// and run once the runtime has loaded the Termite library, checking what they print.
// These pin the meaning of the expansions (termite-syntax.test.js pins their shape);
// recv is run by the process tests (messages.test.js and others).
import test from 'node:test';
import assert from 'node:assert/strict';
import { runProgramText } from '@termite/scheme';
import { loadTermiteLibrary } from '../src/index.js';

loadTermiteLibrary();

/**
 * Run `src`; its output, or "ERROR: message".
 * @param {string} src
 */
function run(src) {
  const out = [];
  const r = runProgramText(src, { file: 'e2e.scm', stdout: (s) => out.push(s) });
  return r.ok ? out.join('') : `${out.join('')}ERROR: ${r.message}`;
}

test('match: bindings, repeated variables, guards, quoted data and the no-match error', () => {
  assert.equal(run("(display (list (match '(1 1) ((x x) 'same) (_ 'diff)) (match '(1 2) ((x x) 'same) (_ 'diff)) (match (list 1 2) ((a b) (where (> a 5)) 'big) ((a b) (+ a b)))))"), '(same diff 3)');
  assert.equal(run("(define tag 'k) (display (match (list 'k 'reply 7) ((,tag 'reply v) v) (_ 'other)))"), '7');
  assert.match(run('(match 42 ((a) a))'), /^ERROR: match: no clause matches: 42/);
});

test('catch resumes after the handler at the catch', () => {
  assert.equal(run("(display (catch (lambda (e) (list 'caught e)) (raise 42) 123))"), '(caught 42)');
});
