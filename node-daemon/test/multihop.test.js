// @ts-check
/**
 * Termite across hops, with real daemons in a line: D1 ← D2 ← D3 ← D4 ← D5 (each
 * started with --join the one before), and a program run with --join D1 only, so D5 is
 * five links away from it. The program spawns on D5 with `on` (a request routed over
 * five links, the code fetched back the same way), then walks one process down the line
 * with `migrate`, sending it a numbered message after each move: every message reaches
 * it (forwarded by the nodes it left, MOVED telling the sender where it went) exactly
 * once and in order, and its reports from each daemon come back over the routes. The
 * program waits for gossip to bring it all five daemons first; then nobody dials anybody:
 * each daemon keeps one peer on each side.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, health, newToken, runProgram } from './helpers/daemons.js';

/** @type {Array<{stop: (s?: any) => Promise<void>}>} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop()));
});

test('a program joined to the first of five daemons in a line spawns on the last (five links away) and walks a process down the line, its messages following it once each and in order', { timeout: 120_000 }, async () => {
  const token = newToken();
  /** @type {any[]} */
  const line = [];
  for (let i = 0; i < 5; i++) {
    const d = await startDaemon({ token, join: i === 0 ? [] : [line[i - 1].url] });
    started.push(d);
    line.push(d);
  }
  const nodes = line.map((d) => `(make-node "127.0.0.1" ${d.port})`).join(' ');
  // `me` is passed to the walker, not read as a global: a global defined after the program
  // first ran code on a node is not found there (a limit of program environments, not of routing)
  const program = `
(define ns (list ${nodes}))
(define far (list-ref ns 4))
(let wait ((i 0))
  (if (and (< (length (mesh-nodes)) 5) (< i 250)) (begin (recv (after 0.02 #f)) (wait (+ i 1)))))
;; the program knowing D5 does not mean D5 knows the way back yet (gossip crosses the
;; line one round at a time): the answer retraces the request's path, so the first call is answered
(write (on far (lambda () (node-id (current-node))))) (newline)
(define (walk me)
  (let loop ((rest ns) (got '()))
    (recv
      ('hop (migrate (car rest)) (! me (list 'at (node-id (current-node)))) (loop (cdr rest) got))
      (('n k) (loop rest (cons k got)))
      ('done (! me (list 'got (reverse got) (node-id (current-node))))))))
(define walker (let ((me (self))) (spawn (lambda () (walk me)))))
(let loop ((i 0))
  (if (< i 5)
      (begin
        (! walker 'hop)
        (! walker (list 'n i))
        (recv (('at id) (write id) (newline)) (after 20 (display "no report") (newline)))
        (loop (+ i 1)))))
(! walker 'done)
(recv (('got l id) (write l) (newline) (write id) (newline)) (after 20 (display "no answer") (newline)))
`;
  const r = await runProgram(program, { token, join: [line[0].url], timeoutMs: 90_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout.trim().split('\n');
  const ids = line.map((d) => JSON.stringify(d.id));
  assert.equal(out[0], ids[4], 'the first call to D5, through four relays, is answered');
  assert.deepEqual(out.slice(1, 6), ids, 'the walker reported from each daemon in turn');
  assert.equal(out[6], '(0 1 2 3 4)', 'every message once, in order');
  assert.equal(out[7], ids[4]);
  // the line stayed a line: the program's node joined D1 only, and no daemon dialled a shortcut
  for (let i = 0; i < 5; i++) {
    const peers = (await health(line[i].url)).peers.map((/** @type {any} */ p) => p.id).sort();
    const want = [line[i - 1]?.id, line[i + 1]?.id].filter(Boolean).sort();
    assert.deepEqual(peers, want, `D${i + 1} has its neighbours and nobody else`);
    const joins = line[i].log().split('\n').filter((/** @type {string} */ l) => / joined \(/.test(l)).length;
    assert.equal(joins, want.length + (i === 0 ? 1 : 0), `D${i + 1} was joined by its neighbours${i === 0 ? ' and the program' : ''} only`);
  }
});
