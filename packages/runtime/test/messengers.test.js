// @ts-check
/**
 * The (termite messengers) library on one node (docs/messengers.md): create/hop/delete
 * with names, weights and wildcards, replication, network and node variables, fork,
 * duplicate, predicate waits (no polling), node mailboxes, virtual time, termination
 * detection, the shortest-path, convex-hull and Wa-Tor examples against sequential runs, and bad input (clear,
 * catchable errors; the node keeps working). Across real daemons:
 * node-daemon/test/messengers.test.js.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { schemeOut, runScheme, withNode, SHOW } from './harness.js';
import { logicalNetworkSnapshot } from '../src/index.js';

/** @param {string} program @param {string[]} lines */
async function expectLines(program, lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

/** Scheme: the message of an error object (or the raised value). */
const MSG = `(define (msg e) (if (error-object? e) (error-object-message e) (list 'raised e)))\n`;

/** A star: init —spoke/1→ b, —spoke/2→ b, —spoke/2→ b, —other/2→ c (all undirected). */
const STAR = `
(define root (lnet-root))
(inject-and-wait
  (lambda ()
    (create 'node 'b 'link 'spoke 'weight 1) (hop 'link 'spoke)
    (create 'node 'b 'link 'spoke 'weight 2) (hop 'link 'spoke)
    (create 'node 'b 'link 'spoke 'weight 2) (hop 'link 'spoke)
    (create 'node 'c 'link 'other 'weight 2) (hop 'node 'init))
  root 5)
;; every message of root's mailbox, sorted by their printed form
(define (drain)
  (let ((me (self)))
    (inject-and-wait (lambda () (let loop ((acc '())) (let ((m (m-recv 0 #f))) (if m (loop (cons m acc)) (! me acc))))) root 5)
    (list-sort (lambda (a b) (string<? (show-string a) (show-string b))) (recv (x x)))))
(define (show-string x) (let ((p (open-output-string))) (write x p) (get-output-string p)))
`;

describe('navigation', () => {
  test('create makes a named node and link with a weight and moves the messenger; hop follows it back by name', async () => {
    await expectLines(
      `(inject-and-wait
         (lambda ()
           (show (lnode-name) (last-link) (last-weight))
           (create 'node 'a 'link 'l1 'weight 3)
           (show (lnode-name) (last-link) (last-weight) (lnode-address? (current-lnode)))
           (hop 'link 'l1)
           (show (lnode-name) (last-link) (last-weight))
           (hop 'node 'a 'weight 3)
           (show (lnode-name))))`,
      ['init #f #f', 'a l1 3 #t', 'init l1 3', 'a'],
    );
  });

  test('a hop with wildcards sends one copy per matching link; names, weights and link names select; physical without link reaches every node of that name there', async () => {
    await expectLines(
      `${STAR}
       (inject-and-wait (lambda () (hop 'node 'b) (m-send root (list 'b (lnode-name) (last-weight)))) root 5)
       (show (drain))
       (inject-and-wait (lambda () (hop 'weight 2) (m-send root (list 'w2 (lnode-name)))) root 5)
       (show (drain))
       (inject-and-wait (lambda () (hop 'link 'other) (m-send root (lnode-name))) root 5)
       (inject-and-wait (lambda () (hop) (m-send root 'any)) root 5)
       (show (drain))
       (inject-and-wait (lambda () (hop 'node 'c) (hop 'node 'b 'physical (current-node)) (m-send root (list (lnode-name) (last-link)))) root 5)
       (show (drain))`,
      ['((b b 1) (b b 2) (b b 2))', '((w2 b) (w2 b) (w2 c))', '(any any any any c)', '((b #f) (b #f) (b #f))'],
    );
  });

  test('a hop matching nothing ends the messenger (and its computation); a direct jump goes to an address', async () => {
    await expectLines(
      `${STAR}
       (define me (self))
       (show (inject-and-wait (lambda () (hop 'node 'nowhere) (! me 'reached)) root 5) (?? (lambda (m) #t) 0 'none))
       (define c #f)
       (inject-and-wait (lambda () (hop 'node 'c) (! me (current-lnode))) root 5)
       (set! c (?))
       (inject-and-wait (lambda () (hop 'node c) (! me (list (lnode-name) (last-link)))) root 5)
       (show (?))`,
      ['#t none', '(c #f)'],
    );
  });

});

describe('delete', () => {
  test('delete removes the traversed links, and the node it leaves once it has no link and no messenger', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define (names) (map (lambda (n) (vector-ref n 1)) (lnet-describe)))
       (define me (self))
       (inject-and-wait
         (lambda ()
           (create 'node 'd1 'link 'c1)
           (create 'node 'd2 'link 'c2)
           (! me (names))
           (delete 'link 'c2)
           (! me (list (lnode-name) (names)))
           (delete 'link 'c1)
           (! me (list (lnode-name) (names) (length (vector-ref (car (lnet-describe)) 3)))))
         root 5)
       (show (?)) (show (?)) (show (?))`,
      ['(init d1 d2)', '(d1 (init d1))', '(init (init) 0)'],
    );
  });

  test('delete keeps a node another messenger is on', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define me (self))
       (inject-and-wait
         (lambda ()
           (create 'node 'keep 'link 'k)
           (if (fork)
               (begin (node-set! 'ready #t) (wait-until 'go (lambda (v) v)))
               (begin (wait-until 'ready (lambda (v) v))
                      (let ((here (current-lnode)))
                        (delete 'link 'k)
                        (! me (map (lambda (n) (vector-ref n 1)) (lnet-describe)))
                        (inject (lambda () (node-set! 'go #t)) here)))))
         root 5)
       (show (?))`,
      ['(init keep)'],
    );
  });
});

describe('messengers and node variables', () => {
  test('node variables are shared by the messengers on a node; node-update! loses no update under pre-emption', async () => {
    await expectLines(
      `(define root (lnet-root))
       (inject-and-wait
         (lambda ()
           (let spawn-more ((k 0)) (when (< k 5) (fork) (spawn-more (+ k 1))))
           (let loop ((i 0))
             (when (< i 300)
               (node-update! 'count (lambda (c) (+ c 1)) 0)
               (loop (+ i 1)))))
         root 20)
       (show (node-ref-at root 'count))`,
      ['9600'],
    );
  });

  test('fork continues after the call in a copy; duplicate starts the procedure over', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define me (self))
       (inject-and-wait (lambda () (! me (if (fork) 'copy 'original))) root 5)
       (show (list-sort (lambda (a b) (string<? (symbol->string a) (symbol->string b))) (list (?) (?))))
       (inject-and-wait (lambda () (when (< (node-update! 'runs (lambda (c) (+ c 1)) 0) 3) (duplicate))) root 5)
       (show (node-ref-at root 'runs))`,
      ['(copy original)', '4'],
    );
  });

  test('a value put in a node variable is a copy: a messenger mutating its vector does not change the node', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define me (self))
       (inject-and-wait (lambda () (let ((v (vector 1 2))) (node-set! 'v v) (vector-set! v 0 99) (! me (node-ref 'v)))) root 5)
       (show (?))`,
      ['#(1 2)'],
    );
  });

  test('wait-until resumes when a write makes the predicate hold, evaluating it only at writes (no polling)', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define me (self))
       (inject-and-wait
         (lambda ()
           (if (fork)
               (! me (list 'woke (wait-until 'level (lambda (v) (! me 'checked) (and v (>= v 3))))))
               (begin
                 (sleep 0.05)
                 (let loop ((i 1)) (when (<= i 5) (node-set! 'level i) (loop (+ i 1)))))))
         root 5)
       (define (count-checked n) (if (?? (lambda (m) (eq? m 'checked)) 0 #f) (count-checked (+ n 1)) n))
       (show (?? pair?) (count-checked 0))`,
      ['(woke 3) 4'],
    );
  });

  test('mailboxes: m-send queues in order, m-recv waits for a message, and times out with a default', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define me (self))
       (inject-and-wait
         (lambda ()
           (if (fork)
               (! me (list (m-recv 5) (m-recv 5) (m-recv 0.05 'empty)))
               (begin (sleep 0.05) (m-send root 'one) (m-send root 'two))))
         root 5)
       (show (?))`,
      ['(one two empty)'],
    );
  });
});

describe('virtual time and termination', () => {
  test('messengers resume in virtual-time order; the global virtual time advances only when all are parked', async () => {
    await expectLines(
      `(define me (self))
       (inject-and-wait
         (lambda ()
           (let ((k (cond ((fork) 1) ((fork) 2) (else 3))))
             (let loop ((i 0))
               (when (< i 3)
                 (if (= k 1) (sleep 0.01))
                 (sched-time-delta k)
                 (! me (list (virtual-time) k))
                 (loop (+ i 1)))))))
       (define (all acc) (let ((m (?? pair? 0 #f))) (if m (all (cons m acc)) (reverse acc))))
       (show (all '()))`,
      ['((1 1) (2 1) (2 2) (3 1) (3 3) (4 2) (6 2) (6 3) (9 3))'],
    );
  });

  test('inject-and-wait returns only when every copy has ended', async () => {
    await expectLines(
      `(define me (self))
       (show (inject-and-wait
               (lambda ()
                 (let tree ((depth 0)) (when (< depth 6) (fork) (tree (+ depth 1))))
                 (sleep 0.01)
                 (! me 'leaf))))
       (define (count n) (if (?? (lambda (m) (eq? m 'leaf)) 0 #f) (count (+ n 1)) n))
       (show (count 0))`,
      ['#t', '64'],
    );
  });
});

test('shortest path on an 8×8 mesh of logical nodes equals Dijkstra run sequentially', async () => {
  const program = readFileSync(new URL('../../../examples/messengers/shortest-path.scm', import.meta.url), 'utf8');
  const out = await schemeOut(program);
  assert.match(out, /\(mesh 8 x 8 on 1 physical nodes\)/);
  assert.match(out, /\(same as sequential #t\)/);
});

test('the divide-and-conquer convex hull over a tree of logical nodes equals the hull computed sequentially', async () => {
  const program = readFileSync(new URL('../../../examples/messengers/convex-hull.scm', import.meta.url), 'utf8');
  const out = await schemeOut(program);
  assert.match(out, /\(points 2000 hull-vertices \d+ physical nodes 1\)/);
  assert.match(out, /\(same as sequential #t\)/);
});

test('Wa-Tor: fish and sharks as messengers ordered by virtual time end in the same ocean as the sequential run', async () => {
  const program = readFileSync(new URL('../../../examples/messengers/wator.scm', import.meta.url), 'utf8');
  const out = await schemeOut(program, { limitMs: 60_000 });
  assert.match(out, /\(ocean 10 x 8 in 4 stripes on 1 physical nodes after 6 chronons: \d+ fish \d+ sharks\)/);
  assert.match(out, /\(same as sequential #t\)/);
});

describe('bad input', () => {
  test('each is a clear, catchable error, and the node keeps working', async () => {
    await expectLines(
      `${MSG}
       (define root (lnet-root))
       (define me (self))
       (show (guard (e (#t (msg e))) (hop)))
       (show (guard (e (#t (msg e))) (inject (lambda () 1) "@nowhere/7")))
       (show (guard (e (#t (msg e))) (inject (lambda () 1) 'not-an-address)))
       (inject-and-wait
         (lambda ()
           (! me (guard (e (#t (msg e))) (hop 'node (string-append (substring root 0 (- (string-length root) 1)) "999"))))
           (! me (guard (e (#t (msg e))) (hop 'nod 'b)))
           (! me (guard (e (#t (msg e))) (create 'node "@x")))
           (! me (guard (e (#t (msg e))) (m-send "@nope/1" 1)))
           (! me (lnode-name)))
         root 5)
       (let loop ((i 0)) (when (< i 5) (show (?)) (loop (+ i 1))))
       (inject (lambda () (! me (guard (e (#t (msg e))) (sched-time-abs 1)))) root)
       (show (?))
       (show (inject-and-wait (lambda () (sched-time-abs 2) (sched-time-abs 1)) root 5))`,
      [
        '"must be called by a messenger (a process started by inject)"',
        '"this node is not part of a mesh (start it as a daemon, or with --join)"',
        '"inject: expected a logical node address"',
        '"hop: no such logical node"',
        '"hop: unknown parameter"',
        '"a node name may not start with \\"@\\" (that is an address)"',
        '"this node is not part of a mesh (start it as a daemon, or with --join)"',
        'init',
        '"sched-time-abs: virtual time needs a computation started by inject-and-wait"',
        '#t',
      ],
    );
  });

  test('a full mailbox (10,000 messages) refuses the next one with a clear error; the node and the mailbox keep working', async () => {
    await expectLines(
      `(define root (lnet-root))
       (define me (self))
       (inject-and-wait
         (lambda ()
           (let fill ((i 0)) (when (< i 10000) (m-send root i) (fill (+ i 1))))
           (! me (guard (e (#t (list (error-object? e) (error-object-message e)))) (m-send root 'one-too-many)))
           (! me (list (m-recv) (m-recv))))
         root 30)
       (show (?)) (show (?))`,
      ['(#t "the logical node\'s mailbox is full (limit 10000)")', '(0 1)'],
    );
  });

  test('a messenger that raises gives its credit back: the computation still ends', async () => {
    const r = await runScheme(`(inject-and-wait (lambda () (fork) (error "boom")) (lnet-root) 5)`);
    assert.equal(r.ok, true, r.message);
    assert.equal(r.value, true);
  });
});

test('logicalNetworkSnapshot shows a physical node\'s logical network to JavaScript (dashboards)', async () => {
  await withNode(async (h) => {
    assert.deepEqual(logicalNetworkSnapshot(h.node).nodes, []);
    const r = await h.run(`(inject-and-wait (lambda () (create 'node 'a 'link 'l 'weight 2) (create 'node "b" 'link 'm 'directed #t)))`);
    assert.equal(r.ok, true, r.message);
    const snap = logicalNetworkSnapshot(h.node);
    assert.deepEqual(snap.nodes.map((n) => [n.name, n.messengers, n.links.map((k) => [k.name, k.weight])]), [
      ['init', 0, [['l', 2]]],
      ['a', 0, [['l', 2], ['m', null]]],
      ['b', 0, []],
    ]);
    assert.equal(snap.nodes[1].links[1].to, snap.nodes[2].address);
    assert.equal(snap.stats.creates, 3);
  });
});
