// @ts-check
/**
 * Durable central spaces (docs/linda.md, "Durable central spaces"): on a daemon with
 * `--data`, every `out` that has returned survives `kill -9` of the daemon and a
 * restart, a withdrawal that was acknowledged stays withdrawn, and the tuples come
 * back oldest first. Real daemons on free loopback ports, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProgram, newToken } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';
import { openSpaceStore } from '../src/space-store.js';

const { daemon, dir } = daemonScope('linda-durable-');

test('out N tuples into a central space of a daemon with --data, kill -9 it, restart it: every tuple is there, oldest first, and the withdrawn ones are not', async () => {
  const token = newToken();
  const data = path.join(dir, 'node');
  const N = 300;
  const h1 = await daemon({ token, data });
  const first = await runProgram(`
(define h (make-node "127.0.0.1" ${h1.port}))
(define s (make-space 'durable 'central h))
(do ((i 0 (+ i 1))) ((= i ${N})) (out s 'task i (make-string 20 #\\x)))
;; ten taken by a remote in, acknowledged: they must stay taken
(do ((i 0 (+ i 1))) ((= i 10)) (in s 'task i ?string))
;; five taken on the holder itself
(on h (lambda () (do ((i 10 (+ i 1))) ((= i 15)) (in s 'task i ?string))))
(out (make-space 'scratch 'local h) 'not 'durable)
(write (list 'written (space-count s 'task ?integer ?string))) (newline)
`, { token, join: [h1.url], timeoutMs: 60000 });
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, new RegExp(`\\(written ${N - 15}\\)`), first.stdout + first.stderr);
  await h1.stop('SIGKILL');

  const h2 = await daemon({ token, data });
  assert.equal(h2.id, h1.id, 'the same node (its identity is kept under --data)');
  assert.match(h2.log(), new RegExp(`replayed ${N - 15} tuples`), h2.log());
  const second = await runProgram(`
(define h (make-node "127.0.0.1" ${h2.port}))
(define s (remote-space 'durable h))
(write (list 'kind (on h (lambda () (space-kind (make-space 'durable))))
             'scratch (on h (lambda () (tuple-count (make-space 'scratch) ?any ?any))))) (newline)
(write (list 'first (cadr (in s 'task ?integer ?string)))) (newline)
(write (list 'all (let loop ((i 16) (ok #t)) (if (= i ${N}) ok (loop (+ i 1) (and ok (inp s 'task i ?string) #t)))))) (newline)
(write (list 'left (space-count s ?any ?any ?any))) (newline)
`, { token, join: [h2.url], timeoutMs: 60000 });
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /\(kind central scratch 0\)/, second.stdout + second.stderr);
  assert.match(second.stdout, /\(first 15\)/, 'the oldest tuple is taken first after the replay: ' + second.stdout);
  assert.match(second.stdout, /\(all #t\)/, second.stdout + second.stderr);
  assert.match(second.stdout, /\(left 0\)/, second.stdout + second.stderr);
  await h2.stop('SIGKILL');

  // and the log agrees: nothing left in it
  const store = openSpaceStore(path.join(data, 'spaces.sqlite'));
  try {
    assert.deepEqual(store.load().map((x) => [x.space, x.tuples.length]), [['durable', 0]]);
  } finally {
    store.close();
  }
});

test('the job-queue example: jobs submitted to a daemon with --data survive its kill -9 and restart, then every one is done', async () => {
  const token = newToken();
  const data = path.join(dir, 'queue');
  const example = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'mesh', 'job-queue.scm');
  const h1 = await daemon({ token, data });
  const submit = await runProgram({ file: example }, { token, join: [h1.url], env: { QUEUE_PORT: String(h1.port), JOB_STEP: 'submit', JOBS: '25' }, timeoutMs: 30000 });
  assert.equal(submit.status, 0, submit.stderr);
  assert.match(submit.stdout, /\(queued 25\)/, submit.stdout + submit.stderr);
  await h1.stop('SIGKILL');
  const h2 = await daemon({ token, data });
  const work = await runProgram({ file: example }, { token, join: [h2.url], env: { QUEUE_PORT: String(h2.port), JOB_STEP: 'work', JOBS: '25' }, timeoutMs: 60000 });
  assert.equal(work.status, 0, work.stderr);
  assert.match(work.stdout, /\(results 25 correct #t\)/, work.stdout + work.stderr);
});
