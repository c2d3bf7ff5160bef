// @ts-check
// Size and depth: large programs expand quickly; long lists and deep nesting do not
// overflow the JS stack; quoted data passes through untouched.
import test from 'node:test';
import assert from 'node:assert/strict';
import { read } from './fixtures/expand/helpers.js';
import { expandProgram } from '../src/expand/index.js';

/** A 1,000-line program of ordinary definitions. */
function thousandLines() {
  const lines = [];
  for (let i = 0; i < 100; i++) {
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

test('a 1,000-line program expands in tens of milliseconds once warm (and far under a second cold)', (ctx) => {
  const datums = read(thousandLines(), 'big.scm');
  let t = performance.now();
  expandProgram(datums, { file: 'big.scm' });
  const cold = performance.now() - t;
  for (let i = 0; i < 3; i++) expandProgram(datums, { file: 'big.scm' });
  t = performance.now();
  const { units } = expandProgram(datums, { file: 'big.scm' });
  const warm = performance.now() - t;
  assert.equal(units[0].body.es.length, 100 * 9, 'per block: 2 procedures, 6 record definitions, 1 expression');
  ctx.diagnostic(`1,000 lines: ${cold.toFixed(1)} ms cold, ${warm.toFixed(1)} ms warm`);
  assert.ok(cold < 1500, `cold expansion took ${cold.toFixed(0)} ms`);
  assert.ok(warm < 250, `warm expansion took ${warm.toFixed(0)} ms`);
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
