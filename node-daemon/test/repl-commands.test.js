// @ts-check
/**
 * The REPL's comma commands, fed from a pipe (one result a line, so the whole output
 * can be compared): ,trace / ,untrace of a recursive procedure, ,time, ,bt (and the
 * frames of an error that carries them), ,kill and ,ps with bad arguments, an unknown
 * command; and in a pseudo-terminal, a second Ctrl-C stops an evaluation that catches
 * the interrupt, and the session goes on with its definitions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { bin } from './helpers/daemons.js';
import { startPty } from './helpers/pty.js';
import { backtrace } from '../src/repl/commands.js';

/** @param {string[]} lines */
function repl(lines) {
  const r = spawnSync(process.execPath, [bin, 'repl'], { input: lines.join('\n') + '\n', encoding: 'utf8', timeout: 30000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test(',trace prints each call and result of a global procedure, ,untrace stops it', () => {
  const r = repl(['(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))', ',trace fact', '(fact 2)', ',untrace fact', '(fact 3)', ',trace car']);
  assert.equal(r.status, 0, r.stderr);
  const [head, err] = r.stdout.split('Error: ');
  assert.equal(head, 'tracing fact\n(fact 2)\n  (fact 1)\n    (fact 0)\n    => 1\n  => 1\n=> 2\n2\nfact no longer traced\n6\n');
  assert.match(err, /cannot assign car/);
});

test(',time prints the result and the time taken; ,bt the last error and where it was raised', () => {
  const r = repl(['(define (f l) (car l))', ',time (+ 1 2)', ',bt', '(f 5)', ',bt']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], '3');
  assert.match(lines[1], /^;; \d+\.\d+ ms$/);
  assert.equal(lines[2], 'no error yet');
  assert.match(lines[3], /^Error: car: expected a pair: 5 \(at repl:1:\d+\)$/);
  assert.equal(lines[4], lines[3]);
  assert.match(lines[5], /^ {2}raised at repl:1:\d+ in car/);
});

test(',bt prints the frames an error carries (schemeBacktrace), innermost first', () => {
  const error = { message: 'boom', schemeBacktrace: ['car (at a.scm:2:3)', 'process-all (at a.scm:5:1)'] };
  assert.equal(backtrace(error).split('\n').slice(1).join('\n'), '  car (at a.scm:2:3)\n  process-all (at a.scm:5:1)');
  assert.equal(backtrace(null), 'no error yet');
});

test('bad command arguments get a precise error and the session goes on', () => {
  const r = repl([',kill 99999', ',kill abc', ',ps elsewhere', ',frob', '(+ 40 2)']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0], /^Error: no process 99999 on node \w+$/);
  assert.equal(lines[1], 'Error: abc is not a pid (give N, N@NODE or #<pid N@NODE>)');
  assert.match(lines[2], /^Error: no node elsewhere is known here/);
  assert.equal(lines[3], 'Error: unknown command ,frob (,help lists the commands)');
  assert.equal(lines[4], '42');
});

test('a second Ctrl-C stops an evaluation that catches the interrupt; definitions stay', async () => {
  const t = startPty(process.execPath, [bin, 'repl'], { env: { TERMITE_HISTORY: '/dev/null' } });
  try {
    await t.expect(/termite> $/);
    t.type('(define (stubborn) (guard (e (#t (stubborn))) (let spin () (spin))))\r');
    await t.expect(/termite> .*\ntermite> $/);
    let at = t.mark();
    t.type('(stubborn)\r');
    await new Promise((r) => setTimeout(r, 300));
    t.type('\x03');
    await new Promise((r) => setTimeout(r, 300));
    assert.doesNotMatch(t.text().slice(at), /termite> $/, 'the guard caught the first interrupt');
    t.type('\x03');
    await t.expect(/stopped the REPL's process/, 15000, at);
    await t.expect(/termite> $/, 15000, at);
    at = t.mark();
    t.type('(procedure? stubborn)\r');
    await t.expect(/#t\ntermite> $/, 15000, at);
    t.type('\x04');
    assert.equal(await t.exited, 0);
  } finally {
    t.kill();
  }
});
