// @ts-check
/**
 * The per-call limits of numbers as text (numbers/syntax.js, docs/processes.md
 * "Fairness"): decimal conversion of an exact integer is superlinear and happens in one
 * JS call no slice can interrupt, so `number->string` (and `display`, `write`) refuse an
 * exact integer of more than 131,072 bits in decimal, and more than 1,048,576 digits in
 * radix 2, 8 or 16, and `string->number` a numeral of more than 65,536 characters, each
 * with a `resource-limit` error naming the primitive, before converting anything. At
 * the limits each call works; a report of an error whose irritant is too big to write
 * names it instead of failing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { runProgramText } from '@termite/scheme';
import { MAX_DECIMAL_BITS, numberToString } from '../src/numbers.js';

/** @param {string} text */
function run(text) {
  return /** @type {any} */ (runProgramText(text));
}

/** @param {string} text @param {string} who @param {RegExp} message */
function refused(text, who, message) {
  const r = run(text);
  assert.equal(r.ok, false, `${text} was not refused`);
  assert.equal(r.error.kind, 'resource-limit', r.message);
  assert.equal(r.error.who, who);
  assert.match(r.error.message, message);
}

const DECIMAL = /^cannot write an exact integer of more than 131072 bits in decimal in one call/;

test('the decimal limit is 131,072 bits', () => {
  assert.equal(MAX_DECIMAL_BITS, 131_072);
});

test('number->string, display and write refuse an exact integer past the decimal limit, naming themselves', () => {
  refused('(number->string (expt 2 131072))', 'number->string', DECIMAL);
  refused('(number->string (- (expt 3 90000)))', 'number->string', DECIMAL);
  refused('(number->string (/ 1 (expt 3 90000)))', 'number->string', DECIMAL); // a ratio's denominator
  refused('(number->string (make-rectangular 1 (expt 2 200000)))', 'number->string', DECIMAL);
  refused('(display (expt 2 200000))', 'display', DECIMAL);
  refused('(write (list 1 (expt 2 200000)))', 'write', DECIMAL);
  // arithmetic makes no exact integer past 1,048,576 bits; one can arrive in a message
  assert.throws(() => numberToString(1n << 1048576n, 2), (/** @type {any} */ e) =>
    e.payload.kind === 'resource-limit' && e.payload.who === 'number->string' && /more than 1048576 digits in radix 2/.test(e.payload.message));
  assert.equal(numberToString(1n << 1048575n, 2).length, 1048576);
});

test('string->number refuses a numeral past 65,536 characters; text that is no numeral is still #f', () => {
  refused('(string->number (make-string 65537 #\\7))', 'string->number', /^cannot read a numeral of 65537 characters in one call: at most 65536/);
  assert.equal(run('(string->number (make-string 65537 #\\a))').value, false);
  assert.equal(run('(string->number (make-string 70000 #\\f) 16)').ok, true); // not digit-led: linear, read
});

test('at the limits every call works, and reads back what it wrote', () => {
  const r = run(`(let* ((x (- (expt 2 131072) 1))
                        (s (number->string x)))
                   (list (string-length s) (= x (string->number s))
                         (string-length (number->string (expt 2 1048575) 16))
                         (string-length (number->string (- (expt 2 1048575)) 2))))`);
  assert.ok(r.ok, r.message);
  assert.equal(String(r.value.car), '39457');
  assert.equal(r.value.cdr.car, true);
  assert.equal(r.value.cdr.cdr.car, 262144);
  assert.equal(r.value.cdr.cdr.cdr.car, 1048577);
  const n = run('(string->number (make-string 65536 #\\7))');
  assert.ok(n.ok && typeof n.value === 'bigint');
});

test('one call at the limits takes a bounded time', () => {
  const x = (1n << 131072n) - 1n;
  const s = '7'.repeat(65536);
  /** @param {() => void} f */
  const median = (f) => {
    const ts = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      f();
      ts.push(performance.now() - t0);
    }
    return ts.sort((a, b) => a - b)[2];
  };
  const write = median(() => x.toString());
  const read = median(() => BigInt(s));
  console.log(`# at the limits: decimal text of 131,072 bits ${write.toFixed(1)} ms, reading 65,536 digits ${read.toFixed(1)} ms (load average ${os.loadavg()[0].toFixed(1)})`);
  // a quiet machine takes a few ms; the bound leaves room for a loaded one
  const bound = 50 * Math.max(1, os.loadavg()[0] / os.cpus().length);
  assert.ok(write < bound && read < bound, `write ${write.toFixed(1)} ms, read ${read.toFixed(1)} ms (bound ${bound.toFixed(0)} ms)`);
});

test('an error whose irritant is too big to write is still reported, naming it', () => {
  const r = run('(error "too big:" (expt 2 200000))');
  assert.equal(r.ok, false);
  assert.match(r.message, /^too big:: #<a value too large to write: cannot write an exact integer of more than 131072 bits/);
  const raised = run('(raise (expt 2 200000))');
  assert.match(raised.message, /^uncaught exception: #<a value too large to write: /);
});
