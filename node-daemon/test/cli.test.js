// @ts-check
/**
 * The termite-node command line (node-daemon/README.md, "Command line"): `run` exit statuses and streams, the
 * REPL over a pipe, --help and bad options. Each test runs the real CLI in a child
 * process with a time limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'termite-node.js');

/** @param {string[]} args @param {{input?: string, env?: Record<string,string>}} [opts] */
function cli(args, opts = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { input: opts.input ?? '', encoding: 'utf8', timeout: 30000, env: { ...process.env, ...opts.env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** @param {string} source */
function program(source) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-cli-'));
  const file = path.join(dir, 'prog.scm');
  writeFileSync(file, source);
  return { file, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('run prints what the program displays and exits 0 when it returns', () => {
  const p = program('(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))\n(display (fact 25))\n(newline)\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '15511210043330985984000000\n');
  } finally {
    p.cleanup();
  }
});

test('run exits as soon as the main process returns, with servers still running', () => {
  const p = program('(spawn (lambda () (let loop () (? ) (loop))))\n(spawn (lambda () (let spin () (spin))))\n(display "done")\n');
  try {
    const t0 = Date.now();
    const r = cli(['run', p.file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'done');
    assert.ok(Date.now() - t0 < 20000);
  } finally {
    p.cleanup();
  }
});

test('an uncaught error prints the procedure and the source location on stderr and exits 1', () => {
  const p = program('(display "before")\n(newline)\n(define (f v)\n  (vector-ref v 5))\n(f (vector 1 2))\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, 'before\n');
    assert.match(r.stderr, /vector-ref/);
    assert.match(r.stderr, /prog\.scm:4:3/);
  } finally {
    p.cleanup();
  }
});

test('the death of another process does not change the exit status', () => {
  const p = program('(spawn (lambda () (car 1)))\n(sleep 0.05)\n(display "ok")\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ok');
  } finally {
    p.cleanup();
  }
});

test('exit gives its code to the process', () => {
  const p = program('(display "x")\n(exit 3)\n(display "never")\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 3);
    assert.equal(r.stdout, 'x');
  } finally {
    p.cleanup();
  }
});

test('a syntax error is reported with its location and exit status 1', () => {
  const p = program('(define (f x)\n  (let ((y)) y))\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /prog\.scm:2:3/);
  } finally {
    p.cleanup();
  }
});

test('the REPL keeps definitions, continues incomplete input, survives errors and runs processes', () => {
  const input = [
    '(define x 10)',
    '(+ x',
    '   5)',
    '(car 1)',
    '(define p (spawn (lambda () (let ((m (?))) (! (car m) (* 2 (cdr m)))))))',
    '(! p (cons (self) 21))',
    '(?)',
    '(string-append "a" "b")',
    ',quit',
    '',
  ].join('\n');
  const r = cli(['repl'], { input });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /15/);
  assert.match(r.stdout, /Error: car: expected a pair/);
  assert.match(r.stdout, /42/);
  assert.match(r.stdout, /"ab"/);
});

test('--help documents the commands and options; a bad option exits 2 with the reason', () => {
  const help = cli(['--help']);
  assert.equal(help.status, 0);
  for (const word of ['run', 'repl', '--port', '--join', '--token', '--data']) assert.ok(help.stdout.includes(word), word);
  const bad = cli(['--port', 'eighty']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--port must be an integer/);
});

test('the package entry point (import "termite-node") starts a node that serves /health and stops', async () => {
  const lib = await import('termite-node');
  for (const name of ['startHost', 'startDaemon', 'runFile', 'startRepl', 'main', 'parseCommandLine']) assert.equal(typeof lib[name], 'function', name);
  const host = await lib.startHost({ host: '127.0.0.1', port: 0, join: [], token: undefined, data: undefined, stdout: () => {}, log: () => {} });
  try {
    const health = await (await fetch(`${host.url}/health`, { signal: AbortSignal.timeout(10000) })).json();
    assert.equal(health.ok, true);
    assert.equal(health.id, host.identity.id);
  } finally {
    await host.stop();
  }
});
