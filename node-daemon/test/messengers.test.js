// @ts-check
/**
 * The (termite messengers) library across real daemons (docs/messengers.md): logical
 * nodes placed on other physical nodes, hops that migrate, replication across physical
 * nodes, node variables and mailboxes reached from elsewhere, predicate waits, virtual
 * time over two physical nodes, the shortest-path example on three physical nodes
 * against Dijkstra, the convex hull's tree placed by the system, Wa-Tor's stripes on
 * two physical nodes, a hop to a logical node deleted meanwhile, a hop to a
 * physical node that went away (raised, nothing duplicated by the retry), a replicating
 * hop one of whose copies cannot reach its physical node (that copy lost, logged and
 * its credit given back; nothing raised, so nothing to retry), and a
 * messenger injected from the command line outliving its program. Each test
 * starts daemons as OS processes on free ports and runs a program with `termite-node
 * run --join`; every process is stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProgram, newToken, waitFor } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';

const { daemon, started } = daemonScope();

const token = newToken();
/** @type {Promise<import('./helpers/daemons.js').Daemon>} */
const first = daemon({ token });

/** @param {string} program */
async function run(program) {
  const a = await first;
  const r = await runProgram(`(define a (make-node "127.0.0.1" ${a.port}))\n(define me (self))\n(define root (lnet-root))\n${program}`, { token, join: [a.url], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').slice(0, -1);
}

/** The address of the node at the end of this physical node's root's first link. */
const FAR = `(define (far) (vector-ref (car (vector-ref (car (lnet-describe)) 3)) 2))\n`;

test('create places a node on another daemon and the messenger migrates there; hop brings it back by name', async () => {
  const lines = await run(`${FAR}
(inject-and-wait
  (lambda ()
    (create 'node 'far 'link 'x 'weight 4 'physical a)
    (! me (list (lnode-name) (last-link) (last-weight) (equal? (current-node) a)))
    (node-set! 'mark 'set-on-a)
    (hop 'link 'x)
    (! me (list (lnode-name) (last-weight) (equal? (current-node) a)))
    (hop 'node 'far)
    (! me (list (lnode-name) (equal? (current-node) a)))))
(write (list (?) (?) (?) (node-ref-at (far) 'mark))) (newline)
`);
  assert.deepEqual(lines, ['((far x 4 #t) (init 4 #f) (far #t) set-on-a)']);
});

test('a hop replicates the messenger to matching nodes on both physical nodes; mailboxes and waits work across them', async () => {
  const lines = await run(`
(inject-and-wait
  (lambda ()
    (create 'node 'b 'link 's 'physical a) (hop 'node 'init)
    (create 'node 'b 'link 's 'physical (current-node)) (hop 'node 'init)
    (create 'node 'b 'link 's 'physical a) (hop 'node 'init)))
(inject-and-wait
  (lambda ()
    (hop 'node 'b)
    (m-send root (if (equal? (current-node) a) 'on-a 'here))))
(define (drain) (let ((m (m-recv 0 #f))) (if m (cons m (drain)) '())))
(inject-and-wait (lambda () (! me (list-sort (lambda (x y) (string<? (symbol->string x) (symbol->string y))) (drain)))) root)
(write (?)) (newline)
;; on each of a's two nodes b: a waiter (the original, which waits first), woken by its copy's writes
(inject-and-wait
  (lambda ()
    (hop 'node 'b 'physical a 'link 's)
    (if (not (fork))
        (! me (list 'woke (wait-until 'n (lambda (v) (and v (> v 10)))) (equal? (current-node) a)))
        (let loop ((i 0)) (when (< i 12) (node-update! 'n (lambda (v) (+ v 1)) 0) (loop (+ i 1)))))))
(define woke (recv (('woke v on-a) (list v on-a))))
(write woke) (newline)
`);
  assert.deepEqual(lines, ['(here on-a on-a)', '(11 #t)']);
});

test('virtual time orders messengers on two physical nodes (one global virtual time)', async () => {
  const lines = await run(`
(inject-and-wait
  (lambda ()
    (let ((k (if (fork) 2 3)))
      (when (= k 2) (create 'node 'two 'physical a))
      (let loop ((i 0))
        (when (< i 3)
          (sched-time-delta k)
          (! me (list (virtual-time) k (equal? (current-node) a)))
          (loop (+ i 1)))))))
(define (all) (let ((m (?? pair? 0 #f))) (if m (cons m (all)) '())))
;; messengers resumed at the same virtual time run concurrently: order by (time k)
(write (list-sort (lambda (x y) (or (< (car x) (car y)) (and (= (car x) (car y)) (< (cadr x) (cadr y))))) (all))) (newline)
`);
  assert.deepEqual(lines, ['((2 2 #t) (3 3 #f) (4 2 #t) (6 2 #t) (6 3 #f) (9 3 #f))']);
});

test('a hop to a logical node deleted meanwhile ends the messenger with a log line, once; the computation still ends', async () => {
  const a = await first;
  const lines = await run(`
(inject-and-wait (lambda () (create 'node 'gone 'link 'g 'physical a) (! me (current-lnode))))
(define gone (?))
;; delete it from there: the messenger leaves by the only link, the node is left empty
(inject-and-wait (lambda () (hop 'node gone) (delete 'link 'g)) root)
(write (inject-and-wait (lambda () (hop 'node gone) (! me 'arrived)) root 20)) (newline)
(write (?? (lambda (m) (eq? m 'arrived)) 0.5 'never)) (newline)
`);
  assert.deepEqual(lines, ['#t', 'never']);
  await waitFor(() => /arrived at a logical node that no longer exists/.test(a.log()), 5000, 'the log line');
  assert.equal(a.log().match(/arrived at a logical node that no longer exists/g)?.length, 1);
});

test('a hop is one frame, and location transparency holds: messages sent to the messenger\'s pid before and after it left reach it there, in order', async () => {
  const lines = await run(`
(define m
  (inject (lambda ()
            (create 'node 'far-mail 'link 'fm 'physical a)
            (hop 'link 'fm)                 ; back on this node
            (hop 'link 'fm)                 ; one way to a: this node forwards its messages
            (! me 'there)
            (let* ((x (?)) (y (?))) (! me (list x y (equal? (current-node) a)))))
          root))
(! m 'early)
(recv ('there #t))
(! m 'late)
(write (recv ((x y on-a) (list x y on-a)))) (newline)
`);
  assert.deepEqual(lines, ['(early late #t)']);
});

test('a messenger the other node cannot take (its mailbox over that node\'s limit) is lost there, logged, and its credit comes back: the computation ends, nothing arrives twice', async () => {
  const a = await first;
  const small = await daemon({ token, join: [a.url], args: ['--max-mailbox', '10'] });
  const lines = await run(`
(define small (make-node "127.0.0.1" ${small.port}))
(inject-and-wait (lambda () (create 'node 'tight 'link 't 'physical small) (hop 'link 't)) root 20)
(define ended
  (inject-and-wait
    (lambda ()
      (let fill ((i 0)) (when (< i 20) (! (self) i) (fill (+ i 1))))
      (hop 'link 't)                        ; 20 messages travel with it: over the limit of 10
      (! me 'arrived))
    root 20))
(write (list ended (?? (lambda (m) (eq? m 'arrived)) 0.5 'never))) (newline)
`);
  assert.deepEqual(lines, ['(#t never)']);
  await waitFor(() => /\(HOP\) was lost/.test(small.log()), 5000, 'the log line');
  assert.equal(small.log().match(/\(HOP\) was lost/g)?.length, 1);
  assert.match(small.log(), /mailbox holds 20 messages, over the limit of 10/);
});

test('shortest path on an 8×8 mesh striped over three physical nodes equals Dijkstra run sequentially', async () => {
  // two daemons of their own: the example stripes over every node the program can reach,
  // and the shared daemon still knows the ones earlier tests started
  const a = await daemon({ token });
  const b = await daemon({ token, join: [a.url] });
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'messengers', 'shortest-path.scm');
  const r = await runProgram({ file }, { token, join: [a.url, b.url], timeoutMs: 90000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(mesh 8 x 8 on 3 physical nodes\)/);
  assert.match(r.stdout, /\(same as sequential #t\)/);
});

test('the convex hull places its tree over the physical nodes by itself and equals the sequential hull', async () => {
  const a = await first;
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'messengers', 'convex-hull.scm');
  const r = await runProgram({ file }, { token, join: [a.url], timeoutMs: 90000 });
  assert.equal(r.status, 0, r.stderr);
  // every physical node of the mesh may take part (this test file's daemons joined so far)
  assert.ok(Number(/physical nodes (\d+)\)/.exec(r.stdout)?.[1]) >= 2, r.stdout);
  assert.match(r.stdout, /\(same as sequential #t\)/);
});

test('Wa-Tor with its stripes on two physical nodes ends in the same ocean as the sequential run', async () => {
  const a = await first;
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'messengers', 'wator.scm');
  const r = await runProgram({ file }, { token, join: [a.url], timeoutMs: 120000 });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Number(/on (\d+) physical nodes/.exec(r.stdout)?.[1]) >= 2, r.stdout);
  assert.match(r.stdout, /\(same as sequential #t\)/);
});

test('a hop to a physical node that went away raises in the messenger, which is still on its node: a retry duplicates nothing', async () => {
  const a = await first;
  const c = await daemon({ token, join: [a.url] });
  // a logical node on c, linked from daemon a's root node (the network outlives this program)
  await run(`
(define c (make-node "127.0.0.1" ${c.port}))
(define a-root (on a (lambda () (lnet-root))))
(inject-and-wait (lambda () (create 'node 'doomed 'link 'd 'physical c)) a-root)
`);
  await c.stop('SIGKILL');
  const lines = await run(`
(define a-root (on a (lambda () (lnet-root))))
(inject-and-wait
  (lambda ()
    (let try ((n 0))
      (when (< n 2)
        (guard (e (#t (! me (list 'failed n (lnode-name)))))
          (hop 'link 'd)
          (! me 'arrived))
        (try (+ n 1))))
    (! me (list 'still-here (lnode-name) (equal? (current-node) a))))
  a-root 60)
(write (list (?) (?) (?) (?? (lambda (m) #t) 0 'nothing-else))) (newline)
`);
  assert.deepEqual(lines, ['((failed 0 init) (failed 1 init) (still-here init #t) nothing-else)']);
});

test('a hop replicating onto a physical node that went away loses only that copy: logged, its credit back, the other arrives once, nothing raised', async () => {
  const a = await first;
  const c = await daemon({ token, join: [a.url] });
  await run(`
(define c (make-node "127.0.0.1" ${c.port}))
(define a-root (on a (lambda () (lnet-root))))
(inject-and-wait (lambda () (create 'node 'lost 'link 'r 'physical c)) a-root)
(inject-and-wait (lambda () (create 'node 'kept 'link 'r 'physical a)) a-root)
`);
  await c.stop('SIGKILL');
  const lines = await run(`
(define a-root (on a (lambda () (lnet-root))))
(define ended
  (inject-and-wait
    (lambda ()
      (guard (e (#t (! me (list 'raised (error-object-message e)))))
        (hop 'link 'r)
        (! me (list 'arrived (lnode-name)))))
    a-root 60))
(write (list ended (?) (?? (lambda (m) #t) 0.5 'nothing-else))) (newline)
`);
  assert.deepEqual(lines, ['(#t (arrived kept) nothing-else)']);
  await waitFor(() => /copies lost, their physical node cannot be reached/.test(a.log()), 5000, 'the log line');
  assert.equal(a.log().match(/copies lost, their physical node cannot be reached/g)?.length, 1);
});

test('a program injects a messenger into a daemon\'s network from the command line; it goes on after the program ends', async () => {
  await run(`
(define a-root (on a (lambda () (lnet-root))))
(inject (lambda () (wait-until 'go (lambda (v) v)) (node-set! 'left-by 'the-injected-messenger)) a-root)
`);
  const lines = await run(`
(define a-root (on a (lambda () (lnet-root))))
;; wake it, and wait (no polling) for what it leaves
(inject-and-wait (lambda () (node-set! 'go #t) (! me (wait-until 'left-by (lambda (v) v)))) a-root 20)
(write (?? symbol? 0 'nothing)) (newline)
`);
  assert.deepEqual(lines, ['the-injected-messenger']);
});
