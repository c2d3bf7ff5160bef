// @ts-check
/**
 * `scale.tab_churn` (bench/scale.js) and its bounded form (e2e/tab-churn.test.js): worker
 * tabs replaced at a rate while the Linda matrix multiplication runs on them.
 *
 * A daemon on loopback and one Chromium with TABS worker tabs joined to it; a program
 * (`termite-node run`, joined to the daemon) holds a central space with A's rows, B and
 * one task per row, spawns a linked worker on every tab it sees (new tabs included, as
 * they come), and re-issues the rows without a result when a worker dies. Every PERIOD,
 * a tenth of the tabs (at least one) is closed and as many new ones opened, for
 * SECONDS. Each worker holds each row a while (sizeFor: the product takes about SECONDS
 * with every tab working, a row at most a quarter of a tab's life). The tabs reach the program's node only through
 * the daemon (routed), and a closed tab takes its rows in progress with it.
 *
 *   scale.tab_churn.ms        ms     program start → the product checked
 *   scale.tab_churn.correct   bool   1 if the product equals the sequential one
 *   scale.tab_churn.lost      count  rows with no result when the program ended (the
 *                                    program ends only when every row has one: 0, or
 *                                    the run timed out)
 *   scale.tab_churn.replaced  count  tabs closed and replaced during the run
 *   scale.tab_churn.reissued  count  rows put back after workers died (their rows in
 *                                    progress, and rows a live worker was computing:
 *                                    computed twice, equal results)
 *
 * Bounded by timeoutS; every tab and Chromium closed, the daemon and program stopped by PID.
 */
import { randomBytes } from 'node:crypto';
import { startDaemon } from '../../node-daemon/test/helpers/daemons.js';
import { launchChromium } from '../../e2e/helpers/browser.js';
import { openTab, waitJoined, startProgram } from '../../e2e/helpers/mesh.js';

/**
 * The coordinator's program.
 * @param {{n: number, rowDelay: number}} o
 */
export function churnProgram(o) {
  return `
(define n ${o.n})
(define row-delay ${o.rowDelay})
(define space (make-space 'tab-churn 'central))
(define (make-matrix f) (let rows ((i 0) (acc '())) (if (= i n) (reverse acc)
  (rows (+ i 1) (cons (list->vector (let cols ((j 0) (r '())) (if (= j n) (reverse r) (cols (+ j 1) (cons (f i j) r))))) acc)))))
(define a (make-matrix (lambda (i j) (+ i j 1))))
(define b (make-matrix (lambda (i j) (- (* 2 i) j))))
;; b as a vector of rows, so that a row of the product costs n² steps
(define (dot row bv j)
  (let loop ((k 0) (sum 0)) (if (= k n) sum (loop (+ k 1) (+ sum (* (vector-ref row k) (vector-ref (vector-ref bv k) j)))))))
(define (row-times row b)
  (let ((bv (list->vector b)))
    (list->vector (let cols ((j 0) (r '())) (if (= j n) (reverse r) (cols (+ j 1) (cons (dot row bv j) r)))))))
(define (worker space)
  (lambda ()
    (let ((b (cadr (rd space 'b ?list))))
      (let loop ()
        (let ((i (cadr (in space 'task ?integer))))
          (if (>= i 0)
              (begin
                (sleep row-delay)
                (out space 'c i (row-times (caddr (rd space 'a i ?vector)) b))
                (loop))))))))
(let fill ((i 0) (rows a)) (if (< i n) (begin (out space 'a i (car rows)) (fill (+ i 1) (cdr rows)))))
(out space 'b b)
(let tasks ((i 0)) (if (< i n) (begin (out space 'task i) (tasks (+ i 1)))))
(define seen '())
(define workers 0)
(define deaths 0)
(define reissued 0)
(define (rows-done)
  (let loop ((i 0) (k 0)) (if (= i n) k (loop (+ i 1) (if (rdp space 'c i ?vector) (+ k 1) k)))))
(define (reissue!)
  (let again ((i 0))
    (if (< i n)
        (begin
          (if (and (not (rdp space 'c i ?vector)) (not (rdp space 'task i)))
              (begin (out space 'task i) (set! reissued (+ reissued 1))))
          (again (+ i 1))))))
;; a worker's exit signal is raised wherever this process waits (a receive, \`on\`): every
;; handler counts it and puts back the rows without a result that no task covers
(define (worker-died!) (set! deaths (+ deaths 1)) (reissue!) (display (list 'worker-died 'reissued reissued)) (newline))
(define (tab-node? node) (guard (e (#t (worker-died!) #f)) (eq? (on node (lambda () (node-kind))) 'tab)))
(define (spawn-on-new-tabs)
  (let loop ((ns (mesh-nodes)))
    (if (pair? ns)
        (let ((id (node-id (car ns))))
          (if (not (member id seen))
              (begin
                (set! seen (cons id seen))
                (if (tab-node? (car ns))
                    (guard (e (#t (worker-died!) #f))
                      (remote-spawn-link (car ns) (worker space))
                      (set! workers (+ workers 1))
                      (display (list 'worker-on id)) (newline)))))
          (loop (cdr ns))))))
(let loop ((reported 0))
  (let ((count (rows-done)))
    (if (> count reported) (begin (display (list 'rows-done count)) (newline)))
    (if (< count n)
        (begin
          (spawn-on-new-tabs)
          (catch (lambda (e) (worker-died!)) (? 0.2 'tick))
          (loop count)))))
(define c (let rows ((i 0) (acc '())) (if (= i n) (reverse acc) (rows (+ i 1) (cons (caddr (in space 'c i ?vector)) acc)))))
(define expected (map (lambda (row) (row-times row b)) a))
(let stop ((k 0)) (if (< k workers) (begin (out space 'task -1) (stop (+ k 1)))))
(display (list 'rows n 'workers workers 'deaths deaths 'reissued reissued 'lost (- n (length c)) 'product-correct (equal? c expected)))
(newline)
`;
}

/**
 * The matrix size and the time a worker holds a row, so that the product takes about
 * 0.8 × `seconds` with every tab working, while a row takes at most a quarter of a tab's
 * life (tabs / per-period × periodS) and at most 5 s, and n stays at most 200.
 * @param {{tabs: number, seconds: number, periodS: number}} o
 */
export function sizeFor(o) {
  const life = (o.tabs / Math.max(1, Math.round(o.tabs / 10))) * o.periodS;
  const work = o.seconds * o.tabs * 0.8;
  const n = Math.max(4, Math.min(200, Math.round(work / Math.min(5, life / 4))));
  return { n, rowDelay: Math.round(Math.min(life / 4, work / n) * 10) / 10 };
}

/**
 * Run the scenario; returns what it measured.
 * @param {{tabs: number, seconds: number, periodS: number, timeoutS: number}} o
 * @returns {Promise<{ms: number, n: number, correct: boolean, lost: number, replaced: number, reissued: number, workers: number, deaths: number, stdout: string}>}
 */
export async function runTabChurn(o) {
  const token = randomBytes(12).toString('hex');
  const { n, rowDelay } = sizeFor(o);
  const daemon = await startDaemon({ token });
  /** @type {import('../../e2e/helpers/browser.js').Chromium | null} */
  let chromium = null;
  /** @type {ReturnType<typeof startProgram> | null} */
  let program = null;
  try {
    chromium = await launchChromium();
    const context = await chromium.browser.newContext();
    const open = async () => {
      const t = await openTab(context, daemon.port, '?fresh=1&webrtc=0');
      await waitJoined(t, 60_000);
      return t;
    };
    const tabs = await Promise.all(Array.from({ length: o.tabs }, open));
    const t0 = Date.now();
    program = startProgram(churnProgram({ n, rowDelay }), { token, join: [daemon.url] });
    const done = program.waitOutput(/\(rows (\d+) workers (\d+) deaths (\d+) reissued (\d+) lost (\d+) product-correct (#t|#f)\)/, o.timeoutS * 1000, 'the product');
    done.catch(() => {});
    let replaced = 0;
    const per = Math.max(1, Math.round(o.tabs / 10));
    const end = t0 + o.seconds * 1000;
    let finished = false;
    done.then(() => { finished = true; }, () => { finished = true; });
    // the churn: the oldest tabs leave, new ones join (the wait is the scenario's rate)
    while (!finished && Date.now() + o.periodS * 1000 <= end) {
      await Promise.race([new Promise((r) => setTimeout(r, o.periodS * 1000)), done.catch(() => {})]);
      if (finished) break;
      const leaving = tabs.splice(0, per);
      await Promise.all(leaving.map((t) => t.page.close()));
      tabs.push(...await Promise.all(leaving.map(open)));
      replaced += leaving.length;
    }
    const m = await done;
    return {
      ms: Date.now() - t0, n, correct: m[6] === '#t', lost: Number(m[5]), replaced, reissued: Number(m[4]),
      workers: Number(m[2]), deaths: Number(m[3]), stdout: program.stdout(),
    };
  } finally {
    await program?.stop();
    await chromium?.close();
    await daemon.stop();
  }
}

/**
 * The benchmark: full size by default (the issue's: a tenth of the tabs replaced every
 * 10 s for 5 minutes).
 * @param {import('../lib/index.js').Reporter} rep
 * @param {{tabs: number, seconds: number, periodS: number}} o
 */
export async function tabChurn(rep, o) {
  const r = await runTabChurn({ ...o, timeoutS: o.seconds * 3 + 120 });
  const note = `${o.tabs} tabs in one Chromium on a daemon, a tenth replaced every ${o.periodS} s for ${o.seconds} s; ${r.n}×${r.n} product by rows, ${r.workers} workers spawned, ${r.deaths} died`;
  rep.bench('scale.tab_churn.ms', r.ms, 'ms', { note });
  rep.bench('scale.tab_churn.correct', r.correct ? 1 : 0, 'bool', { note: 'the product equals the sequential one' });
  rep.bench('scale.tab_churn.lost', r.lost, 'count', { note: 'rows with no result at the end (target: 0)' });
  rep.bench('scale.tab_churn.replaced', r.replaced, 'count', { note: 'tabs closed and replaced' });
  rep.bench('scale.tab_churn.reissued', r.reissued, 'count', { note: 'rows put back after a worker died' });
}
