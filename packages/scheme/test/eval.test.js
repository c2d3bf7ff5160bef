// @ts-check
// runtime/eval.js from JavaScript: the REPL sharing the interaction environment, the
// host's hooks (evalOptions), and eval from a program (the Scheme side is tested by
// test/r7rs/6.12-eval.scm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Evaluator, runProgramText, evalOptions, interactionEnvironment, EvalEnvironment, writeString } from '../src/index.js';

test('an Evaluator made with interaction: true evaluates in the interaction environment', () => {
  const ev = new Evaluator({ interaction: true });
  assert.deepEqual(ev.evalText('(define eval-test-shared 41)').outputs, []);
  assert.deepEqual(ev.evalText('(eval \'(+ eval-test-shared 1) (interaction-environment))').outputs, ['42']);
  assert.ok(interactionEnvironment() instanceof EvalEnvironment);
  assert.equal(writeString(interactionEnvironment()), '#<environment interaction>');
  // an ordinary Evaluator has an environment of its own
  const other = new Evaluator();
  assert.equal(other.evalText('eval-test-shared').ok, false);
});

test('evalOptions.onUnit sees every unit eval instantiates', () => {
  const seen = [];
  evalOptions.onUnit = (inst) => seen.push(inst.hash);
  try {
    const r = runProgramText("(eval '(+ 1 2) (environment '(scheme base)))");
    assert.ok(r.ok);
    assert.equal(r.value, 3);
    assert.equal(seen.length, 1);
    assert.match(seen[0], /^[0-9a-f]{64}$/);
  } finally {
    evalOptions.onUnit = null;
  }
});

test('evalOptions.libraryPath is where environment finds library files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'termite-eval-'));
  try {
    mkdirSync(path.join(dir, 'evallib'));
    writeFileSync(path.join(dir, 'evallib', 'triple.sld'),
      '(define-library (evallib triple) (export triple) (import (scheme base)) (begin (define (triple x) (* 3 x))))');
    const program = "(eval '(triple 5) (environment '(scheme base) '(evallib triple)))";
    assert.equal(runProgramText(program).ok, false);
    evalOptions.libraryPath = [dir];
    const r = runProgramText(program);
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.equal(r.value, 15);
  } finally {
    evalOptions.libraryPath = [];
    rmSync(dir, { recursive: true, force: true });
  }
});
