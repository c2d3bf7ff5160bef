// @ts-check
/**
 * Standard input under `termite-node run`: the console input port reads it (`read`,
 * `read-line`, `read-char`, `peek-char`, `char-ready?`), piped all at once or arriving
 * line by line; a process waiting for input is suspended while the node's other
 * processes run; a datum split across two writes is read whole; the end of input is
 * the eof object. Each test runs the real CLI in a child process with a time limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'termite-node.js');

/** @param {string} source @param {string} input */
function runWith(source, input) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-stdin-'));
  const file = path.join(dir, 'prog.scm');
  writeFileSync(file, source);
  try {
    const r = spawnSync(process.execPath, [bin, 'run', file], { input, encoding: 'utf8', timeout: 30000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SUM = `(import (scheme base) (scheme read) (scheme write))
(let loop ((x (read)) (sum 0))
  (if (eof-object? x) (begin (display sum) (newline)) (loop (read) (+ sum x))))
`;

test('echo 1 2 | termite-node run sum.scm prints 3', () => {
  const r = runWith(SUM, '1 2\n');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '3\n');
});

test('read-line, read-char, peek-char, read-string and read share one stream; the end is the eof object', () => {
  const r = runWith(
    `(write (list (read-line) (peek-char) (read-char) (read-string 3) (read) (read) (read-line) (read-line) (read-char) (read)))`,
    'first line\nxabc(1 "two" #\\3) sym rest\nlast',
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '("first line" #\\x #\\x "abc" (1 "two" #\\3) sym " rest" "last" #!eof #!eof)');
});

test('with no input at all, read gives the eof object, and char-ready? is then #t', () => {
  const r = runWith(`(let* ((a (read)) (b (read-line)) (c (read-char))) (write (list a b c (char-ready?))))`, '');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '(#!eof #!eof #!eof #t)');
});

test('a read error in standard input is raised in the program once the input has ended', () => {
  const r = runWith(`(write (guard (e ((read-error? e) 'read-error)) (read)))`, '(1 2');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'read-error');
});

test('a process waiting for a line is suspended while another runs; a datum split across writes is read whole', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-stdin-'));
  const file = path.join(dir, 'prog.scm');
  writeFileSync(
    file,
    `(import (scheme base) (scheme read) (scheme write) (termite))
     (define ticker (spawn (lambda () (let loop ((i 0)) (if (< i 1000000) (begin (if (= i 5) (begin (display "ticked") (newline))) (sleep 0.01) (loop (+ i 1))))))))
     (display "ready") (newline)
     (define line (read-line))
     (display (string-append "got " line)) (newline)
     (define n (read))
     (display (list 'number n (char-ready?))) (newline)`,
  );
  const child = spawn(process.execPath, [bin, 'run', file], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  /** @type {(() => void)[]} */
  const waiters = [];
  child.stdout.on('data', (s) => {
    out += s;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.on('data', (s) => (err += s));
  /** @param {string} text */
  const until = (text) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${text}" within 20 s; out: ${out}; err: ${err}`)), 20000);
      const check = () => {
        if (out.includes(text)) {
          clearTimeout(timer);
          resolve(undefined);
        } else waiters.push(check);
      };
      check();
    });
  try {
    await until('ready');
    // nothing written yet: the main process waits, the ticker keeps running
    await until('ticked');
    assert.ok(!out.includes('got'), out);
    child.stdin.write('hello');
    child.stdin.write(' world\n12');
    await until('got hello world');
    assert.ok(!out.includes('number'), `12 may still go on: ${out}`);
    child.stdin.write('34 ');
    await until('(number 1234');
    child.stdin.end();
    const status = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(status, 0, err);
    assert.match(out, /\(number 1234 #t\)/);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
