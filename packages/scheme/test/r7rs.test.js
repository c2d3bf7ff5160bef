// @ts-check
/**
 * The R7RS conformance suite: every test/r7rs/<section>-*.scm file runs through the real
 * pipeline (read, expand, compile, run) as one node:test test. The files use the test
 * library test/r7rs/test-lib.scm and end with (test-summary); a failing check is reported
 * with its group, expression, expected and actual value (or the exception it raised).
 *
 * Checks marked (test-xfail "bug" ...) are known bugs in the compiler or engine: they
 * must fail, and one that passes is reported so that its mark is removed.
 *
 * The files may write temporary files under the directory named by the environment
 * variable TERMITE_R7RS_TMP (made fresh here, removed afterwards).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProgramText, writeString, describeError, listToArray, boot, rtEnv } from '../src/index.js';
import { STANDARD_LIBRARIES } from '../src/expand/stdlib.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'r7rs');
const tmp = mkdtempSync(path.join(tmpdir(), 'termite-r7rs-'));
process.env.TERMITE_R7RS_TMP = tmp;
after(() => rmSync(tmp, { recursive: true, force: true }));

/** "6.10-control.scm" → [6, 10] for ordering */
const sectionKey = (/** @type {string} */ f) => f.split('-')[0].split('.').map(Number);
const files = readdirSync(dir)
  .filter((f) => /^\d[\d.]*-.*\.scm$/.test(f))
  .sort((a, b) => {
    const ka = sectionKey(a);
    const kb = sectionKey(b);
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
      const d = (ka[i] ?? -1) - (kb[i] ?? -1);
      if (d !== 0) return d;
    }
    return 0;
  });

/** @param {string} p */
function readText(p) {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

/** @param {any} kind @param {any} v */
function show(kind, v) {
  return kind.name === 'raised' ? `raised ${describeError(v)}` : writeString(v);
}

/** Totals over all files, printed at the end. */
const totals = { checks: 0, passed: 0, xfail: 0 };

for (const file of files) {
  test(`R7RS ${file.replace(/\.scm$/, '')}`, (t) => {
    const full = path.join(dir, file);
    const out = [];
    const r = runProgramText(readFileSync(full, 'utf8'), { file: full, readFile: readText, stdout: (s) => out.push(s) });
    if (!r.ok) assert.fail(`${file} did not run to its end: ${r.message}`);
    const summary = r.value;
    assert.ok(Array.isArray(summary) && summary.length === 2, `${file} must end with (test-summary)`);
    const passed = summary[0];
    const results = listToArray(summary[1]);
    const problems = [];
    let xfail = 0;
    for (const rec of results) {
      const [status, group, index, expr, ek, ev, ak, av, bug] = listToArray(rec);
      const where = `#${index}${group ? ` [${group}]` : ''}`;
      if (status.name === 'xfail') {
        xfail++;
        t.diagnostic(`expected failure ${where} ${writeString(expr)} (${bug})`);
      } else if (status.name === 'xpass') {
        problems.push(`${where} ${writeString(expr)}\n    passes now: remove its test-xfail mark (${bug})`);
      } else {
        problems.push(`${where} ${writeString(expr)}\n    expected: ${show(ek, ev)}\n    actual:   ${show(ak, av)}`);
      }
    }
    const checks = passed + results.length;
    totals.checks += checks;
    totals.passed += passed;
    totals.xfail += xfail;
    t.diagnostic(`${file}: ${checks} checks, ${passed} passed, ${xfail} expected failures, ${problems.length} failed`);
    if (problems.length > 0) assert.fail(`${problems.length} of ${checks} checks failed in ${file}:\n  ${problems.join('\n  ')}`);
  });
}

/** Run a small program; its output and result. @param {string} text */
function runSmall(text) {
  const out = [];
  const r = runProgramText(text, { file: 'exit.scm', stdout: (s) => out.push(s) });
  return { r, out: out.join('') };
}

test('R7RS 6.14 exit: runs the outstanding dynamic-wind after thunks, then ends the program with its code', () => {
  const { r, out } = runSmall(`
    (dynamic-wind (lambda () (display "before "))
                  (lambda () (dynamic-wind (lambda () #f) (lambda () (exit 3)) (lambda () (display "inner-after "))))
                  (lambda () (display "outer-after")))
    (display "not reached")`);
  assert.ok(r.ok);
  assert.equal(out, 'before inner-after outer-after');
  assert.equal(/** @type {any} */ (r).exitCode, 3);
  const plain = runSmall('(display "a") (exit) (display "b")');
  assert.equal(plain.out, 'a');
  assert.equal(/** @type {any} */ (plain.r).exitCode, true);
  assert.equal(/** @type {any} */ (runSmall('(exit #f)').r).exitCode, false);
});

test('R7RS 6.14 emergency-exit: ends the program without running after thunks', () => {
  const { r, out } = runSmall(`
    (dynamic-wind (lambda () (display "before "))
                  (lambda () (emergency-exit 4))
                  (lambda () (display "after")))`);
  assert.ok(r.ok);
  assert.equal(out, 'before ');
  assert.equal(/** @type {any} */ (r).exitCode, 4);
});

test('error messages name the procedure and the offending argument', () => {
  /** @type {[string, string][]} */
  const cases = [
    ['(car 5)', 'car: expected a pair: 5'],
    ['(vector-ref (vector 1 2 3) 10)', 'vector-ref: index out of range: 10 3'],
    ['(+ 1 "2")', '+: expected a number: "2"'],
    ['(map car 5)', 'map: expected a list: 5'],
    ['(string-ref "abc" 3)', 'string-ref: index out of range: 3 3'],
    ['(symbol->string "s")', 'symbol->string: expected a symbol: "s"'],
    ['(string-set! "aa" 0 #\\b)', 'string-set!: cannot mutate an immutable string (a literal, or from symbol->string, number->string or a tuple space; string-copy makes a mutable one): "aa"'],
    ['(exact +inf.0)', 'exact: '],
    ['((lambda (x) x))', 'expected 1 argument, got 0'],
  ];
  for (const [program, expected] of cases) {
    const { r } = runSmall(program);
    assert.equal(r.ok, false, program);
    const message = /** @type {any} */ (r).message;
    assert.ok(message.includes(expected), `${program}: ${message} should contain ${expected}`);
    assert.match(message, /\(at exit\.scm:1:\d+\)$/, `${program}: ${message} should give the location`);
  }
});

test('a program nested too deeply for the compiler is a clean error, not a crash', () => {
  // far beyond the documented limit (about 2,000 levels of nested operands)
  const nested = '(+ 1 '.repeat(50000) + '0' + ')'.repeat(50000);
  const { r } = runSmall(`(define x ${nested})`);
  assert.equal(r.ok, false);
  assert.match(/** @type {any} */ (r).message, /nested too deeply/);
});

test('every procedure the R7RS standard libraries export is defined', () => {
  boot();
  for (const [key, lib] of Object.entries(STANDARD_LIBRARIES)) {
    if (!key.startsWith('(scheme ')) continue;
    const missing = lib.procedures.filter((name) => !rtEnv.has(name));
    assert.deepEqual(missing, [], `${key} exports undefined procedures`);
  }
});

test('R7RS suite totals', (t) => {
  t.diagnostic(`${files.length} sections, ${totals.checks} checks, ${totals.passed} passed, ${totals.xfail} expected failures`);
  assert.ok(files.length > 0);
});
