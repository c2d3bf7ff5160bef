// @ts-check
/**
 * Complex numbers between processes and in tuple spaces: a complex number sent in a
 * message arrives equal (it is immutable, so shared); in a tuple it matches a template
 * holding the same number, and comes back with its exactness.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, SHOW } from './harness.js';

/** @param {string} program @param {string[]} lines */
async function expectLines(program, lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

test('complex numbers in messages and tuples', async () => {
  await expectLines(
    `(define me (self))
     (define echo (spawn (lambda () (let ((m (?))) (! (car m) (list (cdr m) (* (cdr m) (cdr m))))))))
     (! echo (cons me 1+2i))
     (show (?))
     (out 'z 1/2-3i -1.5+0.5i (sqrt -4))
     (show (in 'z 1/2-3i ?any +2i))
     (out 'w (make-polar 2.0 1.0))
     (show (exact? (cadr (in 'w ?any))))`,
    ['(1+2i -3+4i)', '(z 1/2-3i -1.5+0.5i +2i)', '#f'],
  );
});
