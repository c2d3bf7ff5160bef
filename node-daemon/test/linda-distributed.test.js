// @ts-check
/**
 * Distributed (replicated) tuple spaces across real daemons (docs/linda.md, "Distributed
 * spaces"): every operation from three nodes, with `rd` served from each replica and
 * `in` moving ownership; concurrent `in`s of one tuple from two nodes (exactly one
 * wins); many takers on three nodes sharing jobs (each withdrawn once); a late joiner
 * repaired; a node killed with SIGKILL holding tuples it owned (they pass to the
 * space's home and are each withdrawn once). Daemons are OS processes on free loopback
 * ports, stopped by PID; a program that must wait for the test polls for a file the
 * test writes (bounded).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
const dir = mkdtempSync(path.join(os.tmpdir(), 'linda-dts-'));
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

/** @param {Parameters<typeof startDaemon>[0]} opts */
async function daemon(opts) {
  const d = await startDaemon(opts);
  started.push(d);
  return d;
}

/** Scheme helpers: wait (bounded) for a file the test writes, or for a count on a space. */
const HELPERS = `
(define (show . xs) (write xs) (newline))
(define (await-file f)
  (let loop ((i 0))
    (cond ((file-exists? f) #t)
          ((< i 1500) (sleep 0.02) (loop (+ i 1)))
          (else (error "the test did not write" f)))))
(define (await-count s n . template)
  (let loop ((i 0))
    (let ((c (apply space-count s template)))
      (cond ((= c n) c)
            ((< i 500) (sleep 0.02) (loop (+ i 1)))
            (else (list 'count c 'expected n))))))`;

/** The line of the program's output that starts with `(tag `. @param {{stdout: string, stderr: string}} r @param {string} tag */
function lineOf(r, tag) {
  return r.stdout.split('\n').find((l) => l.startsWith(`(${tag} `)) ?? `missing ${tag}: ${r.stdout}\n${r.stderr}`;
}

test('every operation on a distributed space from three nodes: rd from each replica, in moves ownership, blocking across nodes', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const r = await runProgram(`${HELPERS}
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define s (on h (lambda () (make-space 'dd 'distributed))))
(show 'kind (space-kind s) (equal? (space-home s) h) (equal? s (on q (lambda () (make-space 'dd 'distributed h)))))
(out s 'p 1)
(on q (lambda () (out s 'q 2)))
(on h (lambda () (out s 'h 3)))
(show 'rd-p (rd s 'p ?integer) (rd s 'q ?integer) (rd s 'h ?integer))
(show 'rd-q (on q (lambda () (list (rd s 'p ?integer) (rd s 'q ?integer) (rd s 'h ?integer) (space-count s ?symbol ?integer)))))
(show 'rd-h (on h (lambda () (list (rd s 'p ?integer) (rd s 'q ?integer) (rd s 'h ?integer) (space-count s ?symbol ?integer)))))
(show 'in-p (in s 'q ?integer))
(show 'in-q (on q (lambda () (in s 'h ?integer))))
(show 'inp-h (on h (lambda () (list (inp s 'p ?integer) (inp s 'p ?integer)))))
(show 'converged (await-count s 0 ?symbol ?integer)
      (on q (lambda () (await-count s 0 ?symbol ?integer)))
      (on h (lambda () (await-count s 0 ?symbol ?integer))))
(define me (self))
(spawn (lambda () (! me (list 'woken (in s 'later ?integer)))))
(spawn (lambda () (! me (list 'read (rd s 'later ?integer)))))
(sleep 0.2)
(on q (lambda () (out s 'later 7)))
(show 'blocking (?) (?))
(show 'timeouts (in-timeout 0.1 'none s 'x ?integer) (rd-timeout 0 'none s 'x ?integer) (rdp s 'x 1) (inp s 'x 1)
      (on q (lambda () (in-timeout 0.1 'none s 'x ?integer))))
(spawn-tuple s 'sq (lambda () (* 9 9)))
(show 'eval (on q (lambda () (in s 'sq ?integer))))
(define a (in-async s 'async ?integer))
(show 'async-before (async-poll a))
(on q (lambda () (out s 'async 5)))
(show 'async (async-collect a 10))
(out s 'ref s)
(show 'travels (on h (lambda () (equal? (cadr (in s 'ref ?any)) s))))
(show 'deadline (catch (lambda (e) (error-object-message e)) (with-qos 1 0.2 (lambda () (in s 'never ?integer)))))
(show 'errors (catch (lambda (e) (error-object-message e)) (out s 'f ?integer))
              (catch (lambda (e) (error-object-message e)) (in s))
              (catch (lambda (e) (error-object-message e)) (make-space 'jobs 'elsewhere)))
`, { token, join: [h.url, q.url], timeoutMs: 40000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(lineOf(r, 'kind'), '(kind distributed #t #t)');
  assert.equal(lineOf(r, 'rd-p'), '(rd-p (p 1) (q 2) (h 3))');
  assert.equal(lineOf(r, 'rd-q'), '(rd-q ((p 1) (q 2) (h 3) 3))');
  assert.equal(lineOf(r, 'rd-h'), '(rd-h ((p 1) (q 2) (h 3) 3))');
  assert.equal(lineOf(r, 'in-p'), '(in-p (q 2))');
  assert.equal(lineOf(r, 'in-q'), '(in-q (h 3))');
  assert.equal(lineOf(r, 'inp-h'), '(inp-h ((p 1) #f))');
  assert.equal(lineOf(r, 'converged'), '(converged 0 0 0)');
  assert.match(lineOf(r, 'blocking'), /\(blocking \((woken|read) \(later 7\)\) \((woken|read) \(later 7\)\)\)/);
  assert.ok(lineOf(r, 'blocking').includes('woken') && lineOf(r, 'blocking').includes('read'), lineOf(r, 'blocking'));
  assert.equal(lineOf(r, 'timeouts'), '(timeouts none none #f #f none)');
  assert.equal(lineOf(r, 'eval'), '(eval (sq 81))');
  assert.equal(lineOf(r, 'async-before'), '(async-before #f)');
  assert.equal(lineOf(r, 'async'), '(async (async 5))');
  assert.equal(lineOf(r, 'travels'), '(travels #t)');
  assert.equal(lineOf(r, 'deadline'), '(deadline "in: the operation passed its deadline (with-qos) before a tuple matched")');
  assert.match(lineOf(r, 'errors'), /a tuple of a distributed space cannot hold formals/);
  assert.match(lineOf(r, 'errors'), /a tuple needs at least one field/);
  assert.match(lineOf(r, 'errors'), /expected the kind 'local, 'central or 'distributed/);
});
