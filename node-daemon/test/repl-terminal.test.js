// @ts-check
/**
 * The REPL at a real pseudo-terminal (helpers/pty.js) and from a pipe: output of
 * spawned processes appears as it happens, at the prompt; Ctrl-C interrupts a running
 * loop and the session (its definitions and its process) survives; Ctrl-C clears a
 * half-typed entry; Tab completes names and commands; `,bt` shows the last error with
 * where it was raised; history persists across two sessions, a multi-line entry
 * recalled as one; `(exit N)` leaves with N; a pipe gets one result a line and no
 * prompts. Every wait is for the text expected, bounded in time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { startPty } from './helpers/pty.js';
import { bin } from './helpers/daemons.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-repl-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** @param {string} history @param {string[]} [args] */
function repl(history, args = []) {
  return startPty(process.execPath, [bin, 'repl', ...args], { env: { TERMITE_HISTORY: path.join(dir, history) } });
}

test('spawned output appears at the prompt as it happens; an evaluation streams its output', async () => {
  const t = repl('h1');
  try {
    await t.expect(/termite> $/);
    t.type('(spawn (lambda () (let loop ((i 0)) (if (< i 3) (begin (sleep 0.4) (display i) (loop (+ i 1)))))))\r');
    // each digit is written before the prompt, which is redrawn after it each time
    await t.expect(/012termite> $/, 15000);
    assert.match(t.text(), /#<pid [^>]+>\ntermite> 0termite> 01termite> 012termite> $/, 'the prompt redrawn after each digit');
    const at = t.mark();
    t.type('(begin (display "tick") (sleep 2) (display "tock") 7)\r');
    await t.expect(/tick/, 15000, at);
    assert.doesNotMatch(t.text().slice(at), /ticktock/, 'the output before the sleep is shown before the evaluation ends');
    await t.expect(/ticktock\n7\ntermite> $/, 15000, at);
    t.type('(exit 4)\r');
    assert.equal(await t.exited, 4);
  } finally {
    t.kill();
  }
});

test('Ctrl-C interrupts a loop, keeps definitions and the REPL\'s process; Ctrl-C clears a half-typed line', async () => {
  const t = repl('h2');
  try {
    await t.expect(/termite> $/);
    t.type('(define (double x) (* x 2))\r');
    await t.expect(/termite> .*\ntermite> $/);
    t.type('(define me (self))\r');
    await t.expect(/termite> .*\ntermite> .*\ntermite> $/);
    let at = t.mark();
    t.type('(let loop () (loop))\r');
    await new Promise((r) => setTimeout(r, 300));
    t.type('\x03');
    await t.expect(/Error: interrupted \(Ctrl-C\)\ntermite> $/, 15000, at);
    at = t.mark();
    t.type('(list (double 21) (eq? me (self)))\r');
    await t.expect(/\(42 #t\)\ntermite> $/, 15000, at);
    at = t.mark();
    t.type('(+ 1 (car');
    t.type('\x03');
    await t.expect(/\^C\ntermite> $/, 15000, at);
    t.type('(+ 1 1)\r');
    await t.expect(/\n2\ntermite> $/, 15000, at);
    at = t.mark();
    t.type('\x03');
    await t.expect(/,quit or press Ctrl-D/, 15000, at);
    t.type('\x04');
    assert.equal(await t.exited, 0);
  } finally {
    t.kill();
  }
});

test('Tab completes global names, definitions and commands; ,bt shows the last error and where', async () => {
  const t = repl('h3');
  try {
    await t.expect(/termite> $/);
    t.type('(define (frobnicate-widget x) (vector-ref x 9))\r');
    await t.expect(/termite> .*\ntermite> $/);
    let at = t.mark();
    t.type('(frobnicate-w\t');
    await t.expect(/\(frobnicate-widget$/, 15000, at);
    t.type(' (vector 1))\r');
    await t.expect(/Error: vector-ref/, 15000, at);
    at = t.mark();
    t.type('(string-upc\t');
    await t.expect(/\(string-upcase$/, 15000, at);
    t.type(' "ok")\r');
    await t.expect(/"OK"/, 15000, at);
    at = t.mark();
    t.type(',b\t');
    await t.expect(/,bt$/, 15000, at);
    t.type('\r');
    await t.expect(/Error: vector-ref[^\n]*\n\s+\S/, 15000, at);
    assert.match(t.text().slice(at), /repl:1:/, 'the location of the error');
    at = t.mark();
    t.type(',help\r');
    await t.expect(/,kill PID/, 15000, at);
    t.type(',quit\r');
    assert.equal(await t.exited, 0);
  } finally {
    t.kill();
  }
});

test('history persists across sessions; a multi-line entry comes back as one line', async () => {
  const first = repl('h4');
  try {
    await first.expect(/termite> $/);
    first.type('(define (triple x)\r');
    first.type('  ; three times\r');
    first.type('  (* 3 x))\r');
    first.type('(triple 5)\r');
    await first.expect(/\n15\ntermite> $/);
    first.type(',quit\r');
    assert.equal(await first.exited, 0);
  } finally {
    first.kill();
  }
  assert.match(readFileSync(path.join(dir, 'h4'), 'utf8'), /^\(define \(triple x\)\s+\(\* 3 x\)\)\n\(triple 5\)\n/);
  const second = repl('h4');
  try {
    await second.expect(/termite> $/);
    second.type('\x1b[A\x1b[A\x1b[A'); // ,quit, (triple 5), then the definition
    await second.expect(/termite> \(define \(triple x\)\s+\(\* 3 x\)\)$/);
    second.type('\r(triple 7)\r');
    await second.expect(/\n21\ntermite> $/);
    second.type('\x04');
    assert.equal(await second.exited, 0);
  } finally {
    second.kill();
  }
});

test('from a pipe: one result a line, no banner or prompts, status 0 at the end of input', () => {
  const r = spawnSync(process.execPath, [bin, 'repl'], { input: '(+ 1 2)\n(display "x")\n(define y 5)\n(* y\n 2)\n"s"\n', encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '3\nx\n10\n"s"\n');
  const e = spawnSync(process.execPath, [bin, 'repl'], { input: '(display "a")\n(exit 3)\n(display "b")\n', encoding: 'utf8', timeout: 30000 });
  assert.equal(e.status, 3);
  assert.equal(e.stdout, 'a');
});
