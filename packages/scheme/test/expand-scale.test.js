// @ts-check
// Size and depth: large programs expand quickly; long lists and deep nesting do not
// overflow the JS stack; quoted data passes through untouched.
import test from 'node:test';
import assert from 'node:assert/strict';
import { read } from './fixtures/expand/helpers.js';
import { expandProgram } from '../src/expand/index.js';

/** A program of `blocks` × 10 lines of ordinary definitions. @param {number} [blocks] */
function thousandLines(blocks = 100) {
  const lines = [];
  for (let i = 0; i < blocks; i++) {
    lines.push(
      `(define (walk-${i} tree acc)`,
      `  (cond ((null? tree) acc)`,
      `        ((pair? tree) (walk-${i} (cdr tree) (walk-${i} (car tree) acc)))`,
      `        (else (cons \`(leaf ,tree ,@acc) acc))))`,
      `(define-record-type node-${i} (make-node-${i} left right) node-${i}? (left node-${i}-left) (right node-${i}-right set-node-${i}-right!))`,
      `(define (loop-${i} n)`,
      `  (let loop ((k 0) (sum 0))`,
      `    (if (< k n) (loop (+ k 1) (+ sum (* k ${i}))) sum)))`,
      `(define-syntax inc-${i}! (syntax-rules () ((_ v) (set! v (+ v ${i})))))`,
      `(let ((x 0)) (inc-${i}! x) (when (> x 0) (display (loop-${i} x))))`,
    );
  }
  return lines.join('\n');
}

/** The best of `n` warm expansions of `datums`, in ms. @param {any[]} datums @param {number} n */
function bestOf(datums, n) {
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    expandProgram(datums, { file: 'big.scm' });
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

// Speed itself is a benchmark's business (a shared machine makes absolute bounds flaky);
// what a test can hold is the shape: expansion time grows linearly with the program.
test('a 1,000-line program expands completely, and 4,000 lines take about four times as long, not sixteen', (ctx) => {
  const small = read(thousandLines(100), 'big.scm');
  const large = read(thousandLines(400), 'bigger.scm');
  const { units } = expandProgram(small, { file: 'big.scm' });
  assert.equal(units[0].body.es.length, 100 * 9, 'per block: 2 procedures, 6 record definitions, 1 expression');
  bestOf(large, 1); // warm
  const t1 = bestOf(small, 5);
  const t4 = bestOf(large, 5);
  ctx.diagnostic(`1,000 lines: ${t1.toFixed(1)} ms warm; 4,000 lines: ${t4.toFixed(1)} ms (${(t4 / t1).toFixed(1)}×)`);
  assert.ok(t4 < 10 * t1, `4,000 lines took ${(t4 / t1).toFixed(1)}× as long as 1,000 (linear is 4×, quadratic 16×)`);
});

test('a quoted 100,000-element list is passed through as the very datum read', () => {
  const src = `'(${Array.from({ length: 100000 }, (_, i) => i).join(' ')})`;
  const datums = read(src);
  const { units } = expandProgram(datums, {});
  assert.equal(units[0].body.t, 'Const');
  assert.equal(units[0].body.value, datums[0].cdr.car);
});

test('a call with 100,000 arguments expands', () => {
  const { units } = expandProgram(read(`(list ${Array.from({ length: 100000 }, (_, i) => i).join(' ')})`), {});
  assert.equal(units[0].body.args.length, 100000);
});

test('10,000 nested lets expand without overflowing the stack', () => {
  let src = '';
  for (let i = 0; i < 10000; i++) src += `(let ((x${i} ${i})) `;
  src += 'x0' + ')'.repeat(10000);
  const { units } = expandProgram(read(src), {});
  let n = units[0].body;
  let depth = 0;
  while (n.t === 'Let') {
    depth++;
    n = n.body;
  }
  assert.equal(depth, 10000);
  assert.equal(n.t, 'LocalRef');
  assert.equal(n.v, units[0].body.vars[0], 'the innermost x0 is the outermost binding');
});

test('10,000 nested lambdas, ifs and calls expand without overflowing the stack', () => {
  let src = '';
  for (let i = 0; i < 10000; i++) src += `(if (lambda (y) (car (list y))) `;
  src += '1' + ' 2)'.repeat(10000);
  const { units } = expandProgram(read(src), {});
  let n = units[0].body;
  let depth = 0;
  while (n.t === 'If') {
    depth++;
    n = n.then;
  }
  assert.equal(depth, 10000);
});

test('a 10,000-deep quoted datum and a 10,000-deep quasiquote expand', () => {
  const deep = '('.repeat(10000) + 'x' + ')'.repeat(10000);
  let { units } = expandProgram(read(`'${deep}`), {});
  assert.equal(units[0].body.t, 'Const');
  ({ units } = expandProgram(read(`(define x 1) \`${'('.repeat(10000)},x${')'.repeat(10000)}`), {}));
  assert.equal(units[0].body.es[1].fn.g.name, 'list');
});

test('a cond with 10,000 clauses expands', () => {
  const clauses = Array.from({ length: 10000 }, (_, i) => `((= n ${i}) ${i})`).join(' ');
  const { units } = expandProgram(read(`(define (f n) (cond ${clauses} (else -1)))`), {});
  let n = units[0].body.e.body;
  let depth = 0;
  while (n.t === 'If') {
    depth++;
    n = n.else;
  }
  assert.equal(depth, 10000);
  assert.equal(n.value, -1);
});
