// @ts-check
/**
 * The resume forms of a unit are generated when one of its frames is first resumed
 * (engine/linker.js). What a bug there would break: a resumed frame continuing at all
 * (the right code, with the unit's constants and its closed closures, the same objects
 * as the fast forms'), and the source location of an error signalled in code that runs
 * in a resume form (its generated source has a name of its own).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgramText, linkProgram, Thread, runToCompletion } from '../src/index.js';
import { generateJs } from '../src/passes/generate-js.js';
import { writeString } from '../src/printer.js';

/** @param {string} text */
function run(text) {
  const prog = linkProgram(compileProgramText(text, { file: 'resumed.scm' }));
  return runToCompletion(new Thread(prog.top, []));
}

// The top level calls `spin` (not a tail call) long enough to be pre-empted, so the rest
// of the top level runs in its resume form.
const SPIN = '(define (spin n) (let loop ((i 0)) (if (< i n) (loop (+ i 1)) i)))';

test('the fast part has no resume form, the resume part no fast form', () => {
  const wire = /** @type {any} */ (compileProgramText(`${SPIN} (define x (spin 3)) x`, { file: 'x.scm' }).at(-1)).wire;
  const fast = generateJs(wire, 'fast');
  const resume = generateJs(wire, 'resume');
  assert.doesNotMatch(fast, /function L\d+\$r/);
  assert.match(resume, /function L0\$r/);
  assert.doesNotMatch(resume, /function L\d+\(/);
  assert.match(resume, /const L1 = \$\.L\[1\];/);
});

test('a resumed frame continues with the same closed closures and constants', () => {
  const r = run(`${SPIN}
    (define (k) 'same)
    (define before k)
    (define x (spin 300000))
    (list x (eq? before k) (k) "text")`);
  assert.ok(r.ok);
  assert.equal(writeString(r.value), '(300000 #t same "text")');
});

test('an error in code running in a resume form is located in the source', () => {
  const r = run(`${SPIN}
(define x (spin 300000))
(car x)`);
  assert.equal(r.ok, false);
  assert.equal(/** @type {any} */ (r).error.loc, 'resumed.scm:3:1');
});

test('a resumed frame generates the resume form of its own lambda only', async () => {
  const { generateResumeOf } = await import('../src/passes/generate-js.js');
  const wire = /** @type {any} */ (compileProgramText(`${SPIN} (define (other y) (+ (spin y) 1)) (define x (spin 3)) x`, { file: 'x.scm' }).at(-1)).wire;
  const one = generateResumeOf(wire, 0);
  assert.match(one, /function L0\$r/);
  assert.doesNotMatch(one, /function L[1-9]\d*\$r/, 'no other lambda\'s resume form');
  assert.ok(one.length < generateJs(wire, 'resume').length / 2, 'a fraction of the whole resume part');
});
