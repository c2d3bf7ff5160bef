// @ts-check
/**
 * The Scheme programs bench/browser.js runs with `termite-node run --join` through the
 * daemon (e2e/helpers/mesh.js startProgram), as templates of their parameters, and the
 * reader of what they print. Invariants: a program reports on stdout only in the lines
 * its doc comment names ("result NAME ROUND RATE", "done", "timeout", ...), every wait
 * in it is bounded by an `after` clause, and its warm-up matches the raw transports'
 * (page-raw.js), so a ratio compares like with like.
 */
import { FIND_NODE } from '../../e2e/helpers/mesh.js';

/**
 * An echo process on node B, and a pinger on node A that pings it `count` times per
 * round and reports each round's rate to this program, which prints
 * "result NAME ROUND RATE".
 * @param {{port: number, a: string, b: string, name: string, count: number, rounds: number, warmMs: number}} o
 */
export function pingPongProgram(o) {
  return `${FIND_NODE}
(define me (self))
(define a (find-node "${o.a}"))
(define b (find-node "${o.b}"))
(define echo (remote-spawn b (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
(remote-spawn a
  (lambda ()
    (define (now) (/ (current-jiffy) (exact->inexact (jiffies-per-second))))
    (define (pp n) (let ((p (self))) (let loop ((i 0)) (if (< i n) (begin (! echo (cons p 0)) (?) (loop (+ i 1)))))))
    (let ((w0 (now)))
      (let warm ((i 0))
        (pp (quotient ${o.count} 2))
        ;; the report's path too (a frame routed through the daemon to this program):
        ;; code that first meets it after the warm-up deoptimizes in a timed round
        (! me 'warm)
        (if (and (< i 99) (< (- (now) w0) ${o.warmMs / 1000})) (warm (+ i 1)))))
    (do ((r 1 (+ r 1))) ((> r ${o.rounds}))
      (let ((t0 (now)))
        (pp ${o.count})
        (! me (list 'result r (/ ${o.count} (- (now) t0))))))
    (! me 'done)))
(let loop ()
  (recv
    ('warm (loop))
    (('result r x) (display "result ${o.name} ") (display r) (display " ") (display x) (newline) (loop))
    ('done (display "done") (newline))
    (after 120 (display "timeout") (newline))))
`;
}

/**
 * A watcher on the daemon: whenever a node it has not seen appears among its peers, it
 * spawns a process that migrates there and reports "arrived ID" through this program.
 * @param {{port: number, count: number}} o
 */
export function firstMigrationProgram(o) {
  return `
(define daemon (make-node "127.0.0.1" ${o.port}))
(define me (self))
(remote-spawn daemon
  (lambda ()
    (define (fresh ns seen)
      (cond ((null? ns) #f)
            ((member (node-id (car ns)) seen) (fresh (cdr ns) seen))
            (else (car ns))))
    (! me 'watching)
    (let watch ((seen (map node-id (mesh-nodes))) (k 0))
      (if (< k ${o.count})
          (let ((n (fresh (mesh-nodes) seen)))
            (if n
                (begin
                  (spawn (lambda () (migrate n) (! me (list 'arrived (node-id (current-node))))))
                  (watch (cons (node-id n) seen) (+ k 1)))
                (begin (recv (after 0.002 #t)) (watch seen k))))))))
(let loop ((k 0))
  (if (< k ${o.count})
      (recv
        ('watching (display "watching") (newline) (loop k))
        (('arrived id) (display "arrived ") (display id) (newline) (loop (+ k 1)))
        (after 300 (display "timeout") (newline)))))
`;
}

/**
 * From the daemon: an \`on\` round trip to each of the tabs at once; prints
 * "answered N failed F missing M silent S" (silent: no answer within 20 s) and, if any
 * failed, "error MESSAGE" for the first failure.
 * @param {{port: number, ids: string[]}} o
 */
export function tabsAnswerProgram(o) {
  return `
(define daemon (make-node "127.0.0.1" ${o.port}))
(define me (self))
(define ids '(${o.ids.map((id) => `"${id}"`).join(' ')}))
(remote-spawn daemon
  (lambda ()
    (define (node-named id)
      (let loop ((ns (mesh-nodes))) (cond ((null? ns) #f) ((equal? (node-id (car ns)) id) (car ns)) (else (loop (cdr ns))))))
    (define here (self))
    (for-each (lambda (id)
                (spawn (lambda ()
                         (let ((n (node-named id)))
                           (! here (if n
                                       (guard (e (#t (list 'failed (if (error-object? e) (error-object-message e) e))))
                                         (if (equal? (on n (lambda () (node-id (current-node)))) id) (list 'ok) (list 'failed "wrong node")))
                                       (list 'missing)))))))
              ids)
    (let loop ((k 0) (ok 0) (failed 0) (missing 0) (err #f))
      (if (< k ${o.ids.length})
          (recv (('ok) (loop (+ k 1) (+ ok 1) failed missing err))
                (('failed m) (loop (+ k 1) ok (+ failed 1) missing (or err m)))
                (('missing) (loop (+ k 1) ok failed (+ missing 1) err))
                (after 20 (! me (list ok failed missing (- ${o.ids.length} k) err))))
          (! me (list ok failed missing 0 err))))))
(recv ((ok failed missing silent err)
       (display "answered ") (display ok) (display " failed ") (display failed)
       (display " missing ") (display missing) (display " silent ") (display silent) (newline)
       (if err (begin (display "error ") (display err) (newline))))
      (after 30 (display "timeout") (newline)))
`;
}

/** @param {string} stdout @returns {Map<string, number[]>} */
export function results(stdout) {
  /** @type {Map<string, number[]>} */
  const m = new Map();
  for (const line of stdout.split('\n')) {
    const r = /^result (\S+) (\d+) (\S+)\s*$/.exec(line);
    if (r && Number.isFinite(Number(r[3]))) m.set(r[1], [...(m.get(r[1]) ?? []), Number(r[3])]);
  }
  return m;
}
