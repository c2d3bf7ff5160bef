// @ts-check
/**
 * S/Net's formals inside tuples (docs/linda.md, "Formals in tuples"): a tuple `out` with
 * a formal field matches any actual of that field's type in a template, never a formal;
 * the tuple comes back with its formal; blocked `in`s and `rd`s are woken by such a
 * tuple; a formal inside a field of a tuple stays data; an unknown formal is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, SHOW } from './harness.js';

/** @param {string} program @param {string[]} lines */
async function expectLines(program, lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

test('a formal in a tuple matches an actual of its type, and never a formal', async () => {
  await expectLines(
    `(out 'job ?integer)
     (show (rdp 'job "seven") (rdp 'job 2.5) (rdp 'job ?integer) (rdp 'job ?any))
     (show (tuple-count 'job 7) (tuple-count 'job ?any) (tuple-count ?symbol 7))
     (show (match (in 'job -12) ((name f) (list name (equal? f ?integer)))))
     (show (inp 'job 7))`,
    ['#f #f #f #f', '1 0 1', '(job #t)', '#f'],
  );
});

test('formals of every kind in tuples, beside plain tuples, oldest first', async () => {
  await expectLines(
    `(out 'p 1 'one)
     (out 'p ?integer 'any-integer)
     (out 'p 2 'two)
     (out 'q ?symbol) (out 'q ?string) (out 'q ?any) (out 'q (formal 'tagged 40961))
     (show (caddr (in 'p 2 ?symbol)) (caddr (in 'p 2 ?symbol)) (inp 'p 2 ?symbol))
     (show (caddr (in 'p 1 ?symbol)) (inp 'p 5 ?symbol))
     (show (in 'q "text")) (show (in 'q 'sym)) (show (in 'q (list 1 2))) (show (length (in 'q #\\c))) (show (inp 'q 3))`,
    ['any-integer two #f', 'one #f', '(q #<formal string>)', '(q #<formal symbol>)', '(q #<formal any>)', '2', '#f'],
  );
});

test('a blocked in and a blocked rd are woken by a tuple whose formal matches their actual', async () => {
  await expectLines(
    `(define me (self))
     (spawn (lambda () (! me 'ready) (! me (list 'took (in 'task 5)))))
     (spawn (lambda () (! me 'ready) (! me (list 'read (rd 'task 9)))))
     (show (?) (?))
     (out 'task ?integer)
     (define got (list (?) (?)))
     (show (length got) (if (assq 'took got) #t #f) (if (assq 'read got) #t #f) (tuple-count 'task 1))`,
    ['ready ready', '2 #t #t 0'],
  );
});

test('a formal inside a field of a tuple is data; an unknown formal is refused', async () => {
  await expectLines(
    `(define (msg e) (if (error-object? e) (error-object-message e) (list 'raised e)))
     (out 'saved (list 'job ?integer))
     (show (rdp 'saved ?list) (rdp 'saved (list 'job 1)))
     (show (catch msg (out 'x (formal 'nope))))`,
    ['(saved (job #<formal integer>)) #f',
      '"unknown formal type (expected one of any, integer, number, float, string, symbol, bytes, boolean, vector, map, null, tagged, array, list)"'],
  );
});
