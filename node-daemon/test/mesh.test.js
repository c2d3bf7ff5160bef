// @ts-check
/**
 * Termite across real daemons on loopback — docs/mesh.md §11 "Termite over the mesh",
 * checked between separate OS processes: each test starts daemons
 * as OS processes on free ports and runs programs with `termite-node run --join`; every
 * process is stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProgram, health, newToken, waitFor } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';

const { daemon, started } = daemonScope();

test('the papers\' migration example: a process moves to another daemon and back, keeping its pid and state', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const r = await runProgram(
    `
(define node1 (current-node))
(define node2 (make-node "127.0.0.1" ${a.port}))
(define migrating
  (spawn
    (lambda ()
      (let loop ((served 0))
        (recv
          ((from tag 'where) (! from (list tag (list (if (equal? (current-node) node1) 'node1 'node2) served))))
          (('migrate to) (migrate to)))
        (loop (+ served 1))))))
(define pid-before migrating)
(display (!? migrating 'where 5)) (newline)
(! migrating (list 'migrate node2))
(display (!? migrating 'where 5)) (newline)
(! migrating (list 'migrate node1))
(display (!? migrating 'where 5)) (newline)
(display (equal? pid-before migrating)) (newline)
`,
    { token, join: [a.url] },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '(node1 0)\n(node2 2)\n(node1 4)\n#t\n');
});

test('on and remote-spawn run closures over local data with code the other daemon has never seen', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${a.port}))
(define (square x) (* x x))
(define table '((one . 1) (two . 2) (three . 3)))
(define offset 100)
(display (on a (lambda () (map (lambda (e) (+ offset (square (cdr e)))) table)))) (newline)
(define worker
  (remote-spawn a (lambda ()
    (let loop ()
      (recv ((from x) (! from (list (square x) (equal? (current-node) a)))))
      (loop)))))
(! worker (list (self) 12))
(display (?)) (newline)
(display (equal? (pid-node worker) a)) (newline)
`,
    { token, join: [a.url] },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '(101 104 109)\n(144 #t)\n#t\n');
});

test('a server on another daemon is updated by sending it a continuation', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${a.port}))
(define server
  (remote-spawn a (lambda ()
    (let loop ()
      (recv
        (('update k) (k #t))
        ((from tag 'ping) (! from (list tag 'gnop))))
      (loop)))))
(define new-server
  (spawn (lambda ()
    (let loop ()
      (recv
        (('update k) (k #t))
        ((from tag 'clone) (call/cc (lambda (k) (! from (list tag k)))))
        ((from tag 'ping) (! from (list tag 'pong))))
      (loop)))))
(display (!? server 'ping 5)) (newline)
(! server (list 'update (!? new-server 'clone 5)))
(display (!? server 'ping 5)) (newline)
`,
    { token, join: [a.url] },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'gnop\npong\n');
});

test('a process linked to one on a daemon killed with SIGKILL gets an exit signal within 5 s', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const b = await daemon({ token, join: [a.url] });
  const run = runProgram(
    `
(define b (make-node "127.0.0.1" ${b.port}))
(define worker (remote-spawn-link b (lambda () (let loop () (? ) (loop)))))
(display "linked") (newline)
(define t0 (current-jiffy))
(display (catch (lambda (e) (if (error-object? e) 'exit-signal e)) (? 30))) (newline)
(display (< (/ (- (current-jiffy) t0) (jiffies-per-second)) 6)) (newline)
`,
    { token, join: [a.url], timeoutMs: 40000 },
  );
  // kill b once the program has linked (its health shows the extra process)
  await waitFor(async () => ((await health(b.url).catch(() => null))?.processes ?? 0) >= 2, 15000, 'the linked worker on b');
  b.child.kill('SIGKILL');
  const r = await run;
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'linked\nexit-signal\n#t\n');
  assert.equal((await health(a.url)).ok, true, 'the other daemon still serves');
});

test('a wrong token is refused with the reason, logged, and the daemon keeps serving', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const r = await runProgram('(display (on (make-node "127.0.0.1" 1) (lambda () 1)))', { token: 'not-the-token', join: [a.url], timeoutMs: 20000 });
  assert.match(r.stderr, /cannot join .*wrong token/i);
  assert.equal(r.status, 1, 'run does not go on alone when its --join fails');
  await waitFor(() => /refused.*token|token.*refused/i.test(a.log()), 5000, 'the refusal in the daemon log');
  const good = await runProgram(`(display (on (make-node "127.0.0.1" ${a.port}) (lambda () 'fine)))`, { token, join: [a.url] });
  assert.equal(good.stdout, 'fine', good.stderr);
});

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'mesh');

test('work dispatch (paper §5.1): meters report load, every job runs on a least-loaded node and its result is right', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const b = await daemon({ token });
  const r = await runProgram({ file: path.join(examples, 'dispatch.scm') }, { token, join: [a.url, b.url], timeoutMs: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const m = /\(jobs 24 correct #t nodes-used (\d+) tabs-used 0 nodes 3\)/.exec(r.stdout);
  assert.ok(m, `unexpected output: ${r.stdout}\n${r.stderr}`);
  assert.ok(Number(m[1]) >= 2, `jobs spread over ${m[1]} nodes`);
});

test('Linda matrix multiplication with workers on two daemons: one killed with SIGKILL mid-work, its rows are redone and the product is right', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const b = await daemon({ token });
  let killed = false;
  const r = await runProgram({ file: path.join(examples, 'matrix-tabs.scm') }, {
    token,
    join: [a.url, b.url],
    env: { MATRIX_N: '12', MATRIX_ROW_DELAY: '0.3' },
    timeoutMs: 60_000,
    onStdout: (out) => {
      if (!killed && out.includes('(rows-done ')) {
        killed = true;
        void b.stop('SIGKILL');
      }
    },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(killed, 'a daemon was killed during the work');
  const m = /\(rows 12 workers 2 reissued (\d+) product-correct #t\)/.exec(r.stdout);
  assert.ok(m, `unexpected output: ${r.stdout}\n${r.stderr}`);
  assert.ok(Number(m[1]) >= 1, 'the killed worker\'s rows were issued again');
});

test('on raises in the caller when the node it runs on dies, and a refused request raises with the other node\'s reason', async () => {
  const token = newToken();
  const a = await daemon({ token });
  let killed = false;
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${a.port}))
(display (guard (e (#t (list 'refused (error-object-message e)))) (remote-service 'nope a))) (newline)
(display (on a (lambda () 'first-call-answered))) (newline)
(display (guard (e ((error-object? e) (list 'raised (error-object-message e))))
  (on a (lambda () (display 'started) (? )))))
(newline)
`,
    {
      token,
      join: [a.url],
      timeoutMs: 30_000,
      onStdout: (out) => {
        if (!killed && out.includes('started')) {
          killed = true;
          void a.stop('SIGKILL');
        }
      },
    },
  );
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0], /^\(refused .*no service named nope/);
  assert.equal(lines[1], 'first-call-answered');
  assert.match(lines[2], /^started\(raised node [a-z2-7]+ is unreachable/);
});
