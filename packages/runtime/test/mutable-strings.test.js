// @ts-check
/**
 * Mutable strings between processes: a mutable string sent in a message is copied (the
 * sender's later string-set! is invisible to the receiver and the other way round), in
 * the small-message fast path and in the general copy (a big message, shared structure);
 * in a tuple it is stored by value, matched as the string it holds, and read back
 * immutable; a process's own strings stay mutable across a snapshot of its thread.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, SHOW } from './harness.js';

/** @param {string} program @param {string[]} lines */
async function expectLines(program, lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

const ECHO = `(define me (self))
  (define echo (spawn (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
  (define (round-trip x) (! echo (cons me x)) (?))
`;

describe('mutable strings in messages', () => {
  test('a mutable string sent, then changed by the sender, is unchanged for the receiver', async () => {
    await expectLines(
      `(define s (make-string 3 #\\a))
       (define keeper (spawn (lambda () (let ((got (?))) (recv ((from 'show) (! from got)))))))
       (! keeper s)
       (string-set! s 0 #\\z)
       (! keeper (list (self) 'show))
       (show (?) s)`,
      ['"aaa" "zaa"'],
    );
  });

  test('what the receiver changes is its own copy, and the copy is still mutable', async () => {
    await expectLines(
      `${ECHO}
       (define s (string-copy "hello"))
       (define mutator (spawn (lambda () (let ((m (?))) (string-set! (cdr m) 0 #\\J) (! (car m) (cdr m))))))
       (! mutator (cons me s))
       (define got (?))
       (show got s (eq? got s))`,
      ['"Jello" "hello" #f'],
    );
  });

  test('in a big message (the general copy) strings are copied once each, sharing kept', async () => {
    await expectLines(
      `${ECHO}
       (define s (make-string 2 #\\x))
       (define big (let loop ((i 0) (acc '())) (if (= i 200) acc (loop (+ i 1) (cons s acc)))))
       (define big2 (round-trip (vector big s)))
       (string-set! s 0 #\\y)
       (define s2 (vector-ref big2 1))
       (string-set! s2 1 #\\q)
       (show s s2 (car (vector-ref big2 0)) (eq? s2 (list-ref (vector-ref big2 0) 150)))`,
      ['"yx" "xq" "xq" #t'],
    );
  });

  test('literal strings are shared (immutable), and stay immutable on arrival', async () => {
    await expectLines(
      `${ECHO}
       (define got (round-trip "lit"))
       (show got (guard (e (#t 'refused)) (string-set! got 0 #\\x)))`,
      ['"lit" refused'],
    );
  });
});

describe('mutable strings in tuples', () => {
  test('a mutable string in a tuple matches a literal template and the string formal; it is stored by value', async () => {
    await expectLines(
      `(define s (string-copy "key"))
       (out s (list s 1))
       (string-set! s 0 #\\m)
       (show (rd "key" ?list) (rdp "mey" ?any))
       (show (in ?string (list "key" 1)))
       (define t (string-copy "abc"))
       (out 'nested (vector t))
       (show (in 'nested (vector "abc")))`,
      ['("key" ("key" 1)) #f', '("key" ("key" 1))', '(nested #("abc"))'],
    );
  });

  test('a mutable string names a space like the literal with its characters', async () => {
    await expectLines(
      `(define name (string-append "my" "space"))
       (out (make-space name) 'k 1)
       (show (equal? (make-space "myspace") (make-space name)) (rd (make-space "myspace") 'k ?integer))`,
      ['#t (k 1)'],
    );
  });

  test('a string read back from a tuple space is immutable; string-copy gives a mutable one', async () => {
    await expectLines(
      `(out 'word (make-string 2 #\\w))
       (define w (cadr (in 'word ?string)))
       (define c (string-copy w))
       (string-set! c 0 #\\v)
       (show w c (guard (e ((error-object? e) 'immutable)) (string-set! w 0 #\\x)))`,
      ['"ww" "vw" immutable'],
    );
  });
});
