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
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { newToken } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';
import { runTagged } from './helpers/tagged-lines.js';

const { daemon, dir } = daemonScope('linda-dts-');

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

/** A home daemon h and a member q joined to it, with their token. */
async function twoDaemons() {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  return { token, h, q, nodes: `${HELPERS}
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))` };
}

test('every operation on a distributed space from three nodes: rd from each replica, in moves ownership, blocking across nodes', async () => {
  const { token, h, q, nodes } = await twoDaemons();
  await runTagged(`${nodes}
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
(show 'errors (catch (lambda (e) (error-object-message e)) (in s))
              (catch (lambda (e) (error-object-message e)) (make-space 'jobs 'elsewhere)))
`, { token, join: [h.url, q.url], timeoutMs: 40000 }, {
    'kind': '(kind distributed #t #t)',
    'rd-p': '(rd-p (p 1) (q 2) (h 3))',
    'rd-q': '(rd-q ((p 1) (q 2) (h 3) 3))',
    'rd-h': '(rd-h ((p 1) (q 2) (h 3) 3))',
    'in-p': '(in-p (q 2))',
    'in-q': '(in-q (h 3))',
    'inp-h': '(inp-h ((p 1) #f))',
    'converged': '(converged 0 0 0)',
    'blocking': /^\(blocking \((woken|read) \(later 7\)\) \((?!\1)(woken|read) \(later 7\)\)\)$/,
    'timeouts': '(timeouts none none #f #f none)',
    'eval': '(eval (sq 81))',
    'async-before': '(async-before #f)',
    'async': '(async (async 5))',
    'travels': '(travels #t)',
    'deadline': '(deadline "in: the operation passed its deadline (with-qos) before a tuple matched")',
    'errors': /a tuple needs at least one field.*expected the kind 'local, 'central or 'distributed/,
  }, { blocking: 'the in and the rd each woken once' });
});

test('formals in tuples of a distributed space (S/Net): matched by the replicas, and a withdrawal takes out its own copy, never an actual tuple it would match', async () => {
  const { token, h, q, nodes } = await twoDaemons();
  await runTagged(`${nodes}
(define s (on h (lambda () (make-space 'snet-dd 'distributed))))
(on q (lambda () (out s 'job ?integer) (out s 'job 5)))
;; ('job 5) matches both (the formal one by its type), ('job ?integer) only the actual one
(show 'counts (on h (lambda () (list (await-count s 2 'job 5) (space-count s 'job ?integer))))
              (on q (lambda () (list (space-count s 'job 5) (space-count s 'job ?integer)))))
;; the home takes the older, the formal one (owned by q: asked of it); q's replica must
;; then drop that very tuple, not the actual ('job 5) the formal's bytes would match
(show 'taken (on h (lambda () (let ((t (in s 'job 5))) (list (car t) (formal? (cadr t)))))))
(show 'left (on q (lambda () (list (await-count s 1 'job 5) (rdp s 'job 7) (rdp s 'job ?integer))))
            (on h (lambda () (list (await-count s 1 'job 5) (rdp s 'job 7) (rdp s 'job ?integer)))))
(show 'last (in s 'job ?integer)
            (on q (lambda () (await-count s 0 'job 5)))
            (on h (lambda () (await-count s 0 'job 5))))
`, { token, join: [h.url, q.url], timeoutMs: 40000 }, {
    'counts': '(counts (2 1) (2 1))',
    'taken': '(taken (job #t))',
    'left': '(left (1 #f (job 5)) (1 #f (job 5)))',
    'last': '(last (job 5) 0 0)',
  }, {
    'left': 'both replicas hold the actual tuple, not the formal one',
  });
});

test('concurrent ins of one tuple from two nodes: exactly one wins, announced (RPC) or already replicated; jobs shared by takers on three nodes are each taken once', async () => {
  const { token, h, q, nodes } = await twoDaemons();
  await runTagged(`${nodes}
(define s (on h (lambda () (make-space 'race 'distributed))))
(define me (self))
(on q (lambda () (space-count s ?any)))  ; q joins
(define (taker node tag) (remote-spawn node (lambda () (! me (list tag (in s tag ?integer))))))
(define (winners n) (let loop ((i 0) (acc '())) (if (= i n) acc (loop (+ i 1) (cons (car (cadr (?))) acc)))))
;; announced: both wait (their INs reached every member) before the out
(taker q 'one) (taker h 'one)
(sleep 0.3)
(out s 'one 1)
(show 'first (length (winners 1)) (? 1 'nobody-else))
(out s 'one 2)
(show 'second (length (winners 1)) (? 0.3 'nobody-else))
;; replicated first: every replica holds it, then two nodes take it at once
(out s 'two 1)
(on q (lambda () (rd s 'two 1)))
(on h (lambda () (rd s 'two 1)))
(taker q 'two) (taker h 'two)
(show 'replicated (length (winners 1)) (? 1 'nobody-else))
(out s 'two 2)
(show 'replicated-second (length (winners 1)) (? 0.3 'nobody-else))
;; jobs from three nodes, two takers on each node
(define N 60)
(do ((w 0 (+ w 1))) ((= w 2))
  (for-each (lambda (node) (remote-spawn node (lambda () (let loop () (! me (list 'job (in s 'job ?integer))) (loop))))) (list h q))
  (spawn (lambda () (let loop () (! me (list 'job (in s 'job ?integer))) (loop)))))
(do ((i 0 (+ i 3))) ((>= i N))
  (out s 'job i)
  (on q (lambda () (out s 'job (+ i 1))))
  (on h (lambda () (out s 'job (+ i 2)))))
(define got (let loop ((i 0) (acc '())) (if (= i N) acc (loop (+ i 1) (cons (cadr (cadr (? 10))) acc)))))
(define (count-of x l) (let loop ((l l) (c 0)) (if (null? l) c (loop (cdr l) (if (= (car l) x) (+ c 1) c)))))
(show 'jobs (length got) (let loop ((i 0)) (cond ((= i N) 'each-once) ((= (count-of i got) 1) (loop (+ i 1))) (else (list 'job i (count-of i got))))) (? 0.5 'no-more))
(show 'empty (await-count s 0 'job ?integer) (on q (lambda () (await-count s 0 'job ?integer))) (on h (lambda () (await-count s 0 'job ?integer))))
`, { token, join: [h.url, q.url], timeoutMs: 60000 }, {
    'first': '(first 1 nobody-else)',
    'second': '(second 1 nobody-else)',
    'replicated': '(replicated 1 nobody-else)',
    'replicated-second': '(replicated-second 1 nobody-else)',
    'jobs': '(jobs 60 each-once no-more)',
    'empty': '(empty 0 0 0)',
  });
});

test('a late joiner is repaired with the tuples there are (and not those withdrawn), and can withdraw them', async () => {
  const token = newToken();
  const h = await daemon({ token });
  await runTagged(`${HELPERS}
(define h (make-node "127.0.0.1" ${h.port}))
(define s (on h (lambda () (make-space 'late 'distributed))))
(do ((i 0 (+ i 1))) ((= i 10)) (out s 'pre i))
(in s 'pre 0) (in s 'pre 1) (in s 'pre 2)
(show 'home (on h (lambda () (await-count s 7 'pre ?integer))))
`, { token, join: [h.url], timeoutMs: 30000 }, { home: '(home 7)' });
  // the program that made the tuples has left (its tuples passed to the home); a daemon joins the mesh now
  const l = await daemon({ token, join: [h.url] });
  await runTagged(`${HELPERS}
(define h (make-node "127.0.0.1" ${h.port}))
(define l (make-node "127.0.0.1" ${l.port}))
(define s (make-space 'late 'distributed h))
(show 'late (on l (lambda () (list (space-count s 'pre ?integer) (rdp s 'pre 0) (rdp s 'pre 5) (inp s 'pre 4) (inp s 'pre 4)))))
(show 'here (space-count s 'pre ?integer) (rdp s 'pre 4))
(show 'home (on h (lambda () (await-count s 6 'pre ?integer))))
`, { token, join: [h.url, l.url], timeoutMs: 30000 }, {
    late: '(late (7 #f (pre 5) (pre 4) #f))',
    here: /^\(here [67] #f\)$/, // 7 if the DELETE from l has not reached this replica yet
    home: '(home 6)',
  });
});

test('a node killed with SIGKILL holding tuples it owned: they pass to the home, each withdrawn once', async () => {
  const { token, h, q, nodes } = await twoDaemons();
  const killed = path.join(dir, 'killed-owner');
  let stage = 0;
  await runTagged(`${nodes}
(define s (on h (lambda () (make-space 'orphans 'distributed))))
(on q (lambda () (do ((i 0 (+ i 1))) ((= i 8)) (out s 'owned-by-q i))))
(show 'replicated (await-count s 8 'owned-by-q ?integer))
(show 'kill-me)
(await-file "${killed}")
(show 'taken (let loop ((i 0) (acc '())) (if (= i 8) (reverse acc) (loop (+ i 1) (cons (cadr (in s 'owned-by-q i)) acc)))))
(show 'left (inp s 'owned-by-q ?integer) (on h (lambda () (await-count s 0 'owned-by-q ?integer))))
`, {
    token, join: [h.url, q.url], timeoutMs: 40000,
    onStdout: (out) => {
      if (out.includes('(kill-me)') && stage === 0) {
        stage = 1;
        void q.stop('SIGKILL').then(() => writeFileSync(killed, ''));
      }
    },
  }, { replicated: '(replicated 8)', taken: '(taken (0 1 2 3 4 5 6 7))', left: '(left #f 0)' });
  assert.equal(stage, 1, 'the owner was killed');
});
