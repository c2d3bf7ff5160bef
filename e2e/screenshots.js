#!/usr/bin/env node
// @ts-check
/**
 * The README's dashboard screenshots: `node e2e/screenshots.js [OUTDIR] [--logical]`
 * (default docs/images/). Starts a daemon (an OS process on a free loopback port), opens its
 * dashboard and two worker tabs in headless Chromium (one through the dashboard's
 * "Open worker tab" button), runs a small workload from the dashboard's API — processes
 * on every node, one that tours daemon → tab → tab → daemon, ping-pongs across the
 * mesh, tuple spaces filled and drained — lets the charts fill (FILL_S seconds, default
 * 45), then captures at 1440×900:
 *
 *   dashboard.png        the whole dashboard while a migration is in flight
 *   dashboard-repl.png   the REPL after evaluations on the daemon and on a tab
 *   dashboard-link.png   the graph with the round-trip tooltip of a WebRTC link
 *
 * and then, with two daemons of its own (`--logical` makes only this one):
 *
 *   dashboard-logical.png  the graph panel in the logical view: the shortest-path example's 8×8 mesh of
 *                          logical nodes striped over the two daemons, with messengers
 *                          wandering over it
 *
 * Everything is stopped by handle or PID at the end, also on failure.
 */
import path from 'node:path';
import { mkdirSync, statSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startDaemon, newToken } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The workload, evaluated on the daemon once both tabs have joined. Named procedures,
 * so the process lists read well; paced, so the rates are those of a busy mesh, not of
 * a benchmark.
 */
export const WORKLOAD = String.raw`
(define tabs (mesh-nodes))
(define home (current-node))
(define tour-stops (append tabs (list home)))
(define tasks (make-space 'tasks))
(define results (make-space 'results))
(define (echo-server) (let serve () (recv ((from x) (! from x))) (serve)))
(define (tourist)
  (let tour ((i 0))
    (recv (after 1.4 #t))
    (migrate (list-ref tour-stops (modulo i (length tour-stops))))
    (tour (+ i 1))))
(define (pinger server)
  (define (ping-pong)
    (let ping ((i 0))
      (! server (list (self) i))
      (recv (_ #t))
      (recv (after 0.004 #t))
      (ping (+ i 1))))
  ping-pong)
(define (producer)
  (let produce ((i 0))
    (out tasks 'task i (* i i))
    (recv (after 0.15 #t))
    (produce (+ i 1))))
(define (consumer)
  (let consume ()
    (let ((t (in tasks 'task ?integer ?integer)))
      (out results 'square (cadr t) (caddr t))
      (recv (after 0.4 #t))
      (consume))))
(define (worker) (let idle () (recv (after 5 #t)) (idle)))
(define (fill-cache) (let fill ((i 0)) (if (< i 24) (begin (out (make-space 'cache) 'entry i) (fill (+ i 1))))))
;; every definition above, every remote operation below (in one expression)
(let ((servers (map (lambda (t) (remote-spawn t echo-server)) tabs)))
  (for-each (lambda (s) (spawn (pinger s))) servers)
  (spawn (pinger (spawn echo-server)))
  (spawn producer)
  (spawn consumer)
  (spawn consumer)
  (for-each (lambda (t) (remote-spawn t worker) (remote-spawn t worker)) tabs)
  (on (car tabs) fill-cache)
  (spawn tourist))
'started
`;

/**
 * POST /api/eval on a daemon, with the dashboard secret of the page it serves.
 * @param {number} port @param {string} code @param {string} [node]
 */
export async function evalOn(port, code, node) {
  const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  const secret = /<meta name="termite-eval-secret" content="([^"]+)">/.exec(page)?.[1] ?? '';
  const res = await fetch(`http://127.0.0.1:${port}/api/eval`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-termite-eval': secret },
    body: JSON.stringify({ node, code }),
  });
  return res.json();
}

/**
 * @param {string} outDir
 */
async function main(outDir) {
  mkdirSync(outDir, { recursive: true });
  const token = newToken();
  const daemon = await startDaemon({ token, timeoutMs: 30000 });
  let chromium = null;
  try {
    chromium = await launchChromium();
    const context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    const base = `http://127.0.0.1:${daemon.port}`;
    const dash = await context.newPage();
    dash.on('pageerror', (e) => console.error(`# dashboard error: ${e.message}`));
    await dash.goto(`${base}/`);
    await dash.waitForSelector(`#graph g.node[data-self="true"]`, { timeout: 15000 });
    // one tab from the dashboard's button, one directly
    const [popup] = await Promise.all([context.waitForEvent('page', { timeout: 15000 }), dash.click('#open-worker')]);
    void popup;
    await (await context.newPage()).goto(`${base}/worker`);
    await dash.bringToFront();
    await dash.waitForFunction(() => document.querySelectorAll('#graph g.node[data-kind="tab"]:not(.unreachable)').length === 2, null, { timeout: 30000 });
    // WebRTC between the tabs and with the daemon, when it comes up
    await dash.waitForFunction(() => document.querySelectorAll('#graph g.link[data-transport="webrtc"]').length >= 3, null, { timeout: 20000 }).catch(() => console.error('# not every link upgraded to WebRTC'));
    const r = await evalOn(daemon.port, WORKLOAD);
    if (!r.ok) throw new Error(`the workload failed: ${JSON.stringify(r)}`);
    const fill = Number(process.env.FILL_S ?? 45);
    console.error(`# workload started; letting the charts fill for ${fill} s`);
    await dash.waitForTimeout(fill * 1000);
    // a few evaluations in the dashboard's REPL: on the daemon, on a tab (chosen by a
    // click in the graph), on the daemon again
    await replEval(dash, '(length (mesh-nodes))');
    // the first tab of the daemon's (mesh-nodes): the one with the cache space
    const tab = (await dash.$$eval('#graph g.node[data-kind="tab"]', (es) => es.map((e) => String(e.getAttribute('data-node-id'))))).sort()[0];
    await dash.click(`#graph g.node[data-node-id="${tab}"]`);
    await replEval(dash, '(current-node)');
    await replEval(dash, "(tuple-count (make-space 'cache) 'entry ?integer)");
    await dash.selectOption('#repl-node', daemon.id);
    await replEval(dash, "(rdp results 'square 12 ?integer)");
    await replEval(dash, '(car 5)');
    await dash.mouse.move(800, 990); // no tooltip
    await dash.$eval('#nodes', (e) => (e.scrollTop = 0));
    // the main picture: a migration in flight (the comet half-way), the process lists
    // showing the previous arrival
    await dash.waitForFunction(() => {
      const p = Number(document.querySelector('#graph .comet')?.getAttribute('data-progress') ?? 0);
      return p > 0.45 && p < 0.7; // half-way
    }, null, { timeout: 10000, polling: 'raf' });
    await dash.screenshot({ path: path.join(outDir, 'dashboard.png') });
    await dash.locator('.repl-panel').screenshot({ path: path.join(outDir, 'dashboard-repl.png') });
    const link = dash.locator('#graph g.pill.rtc').first();
    if (await link.count()) {
      await link.hover();
      await dash.waitForSelector('#tooltip:not([hidden])', { timeout: 5000 });
      await dash.locator('.graph-panel').screenshot({ path: path.join(outDir, 'dashboard-link.png') });
    }
    for (const f of ['dashboard.png', 'dashboard-repl.png', 'dashboard-link.png']) {
      const kb = Math.round(statSync(path.join(outDir, f)).size / 1024);
      console.error(`# ${f}: ${kb} KB${kb > 300 ? ' (over the 300 KB the README wants)' : ''}`);
    }
    console.error(`# screenshots in ${path.relative(process.cwd(), outDir) || '.'}`);
  } finally {
    await chromium?.close();
    await daemon.stop();
  }
}

/**
 * Messengers that wander over the shortest-path mesh (its globals n and addr, defined
 * by the example on the daemon), one jump every 0.7 s to a neighbouring cell, so the
 * logical view has messengers on its nodes and hops to animate. Each carries the
 * addresses it needs (no global of the REPL travels).
 */
export const WANDERERS = String.raw`
(define (wanderer a size i j k)
  (lambda ()
    (let walk ((i i) (j j) (k k))
      (recv (after 0.7 #t))
      (let* ((d (modulo k 4))
             (ni (max 0 (min (- size 1) (+ i (cond ((= d 0) 1) ((= d 1) -1) (else 0))))))
             (nj (max 0 (min (- size 1) (+ j (cond ((= d 2) 1) ((= d 3) -1) (else 0)))))))
        (hop 'node (vector-ref a (+ (* ni size) nj)))
        (walk ni nj (modulo (+ (* k 37) 11) 1009))))))
(let start ((m 0))
  (when (< m 10)
    (inject (wanderer addr n (modulo (* m 3) n) (modulo (* m 5) n) m) (vector-ref addr (+ (* (modulo (* m 3) n) n) (modulo (* m 5) n))))
    (start (+ m 1))))
'wandering
`;

/** The run of the shortest-path example (after its definitions), in a process of its own. */
const SHORTEST_PATH_RUN = String.raw`
(define built #f)
(define addr #f)
(spawn (lambda ()
  (let ((me (self)))
    (inject-and-wait (build me))
    (let ((a (recv (('mesh a) a))))
      (inject-and-wait (lambda () (walker 'dist 0)) (vector-ref a 0))
      (set! addr a)
      (set! built #t)))))
'running
`;

/**
 * The logical view's screenshot: two daemons, the shortest-path example run on the
 * first (its mesh striped over both), wanderers over it.
 * @param {string} outDir
 */
async function logicalScreenshot(outDir) {
  mkdirSync(outDir, { recursive: true });
  const token = newToken();
  const other = await startDaemon({ token, timeoutMs: 30000 });
  const daemon = await startDaemon({ token, join: [other.url], timeoutMs: 30000 });
  let chromium = null;
  try {
    chromium = await launchChromium();
    const context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    const base = `http://127.0.0.1:${daemon.port}`;
    const dash = await context.newPage();
    dash.on('pageerror', (e) => console.error(`# dashboard error: ${e.message}`));
    await dash.goto(`${base}/`);
    await dash.waitForSelector(`#graph g.node[data-self="true"]`, { timeout: 15000 });
    await dash.waitForFunction(() => document.querySelectorAll('#graph g.node[data-kind="daemon"]:not(.unreachable)').length === 2, null, { timeout: 30000 });
    // the example's definitions, then its run in a process of its own: on tabs it can take
    // longer than the 10 s an evaluation may
    const program = readFileSync(path.join(root, 'examples', 'messengers', 'shortest-path.scm'), 'utf8');
    const defs = await evalOn(daemon.port, program.slice(0, program.indexOf(';;; ---')));
    if (!defs.ok) throw new Error(`the shortest-path example failed: ${JSON.stringify(defs)}`);
    const run = await evalOn(daemon.port, SHORTEST_PATH_RUN);
    if (!run.ok) throw new Error(`the shortest-path example failed: ${JSON.stringify(run)}`);
    const until = Date.now() + 120000;
    for (;;) {
      const r = await evalOn(daemon.port, 'built');
      if (r.ok && r.outputs.at(-1) === '#t') break;
      if (Date.now() > until) throw new Error('the shortest-path mesh was not built within 120 s');
      await dash.waitForTimeout(500);
    }
    const w = await evalOn(daemon.port, WANDERERS);
    if (!w.ok) throw new Error(`the wanderers failed: ${JSON.stringify(w)}`);
    await dash.click('#view-logical');
    await dash.waitForFunction(() => document.querySelectorAll('#lgraph g.lbox').length === 2, null, { timeout: 15000 });
    await dash.waitForTimeout(Number(process.env.FILL_S ?? 8) * 1000); // let the charts and counters move
    await dash.mouse.move(800, 990); // no tooltip
    await dash.waitForSelector('#lgraph .lflight', { timeout: 10000 }); // a hop in flight
    await dash.locator('.graph-panel').screenshot({ path: path.join(outDir, 'dashboard-logical.png') });
    const kb = Math.round(statSync(path.join(outDir, 'dashboard-logical.png')).size / 1024);
    console.error(`# dashboard-logical.png: ${kb} KB${kb > 300 ? ' (over the 300 KB the README wants)' : ''}`);
  } finally {
    await chromium?.close();
    await Promise.all([daemon.stop(), other.stop()]);
  }
}

/**
 * Type an expression into the dashboard's REPL and wait for its answer.
 * @param {import('playwright-core').Page} page @param {string} code
 */
export async function replEval(page, code) {
  const before = await page.locator('#repl-out .entry[data-status]').count();
  await page.fill('#repl-input', code);
  await page.press('#repl-input', 'Enter');
  await page.waitForFunction((n) => {
    const done = document.querySelectorAll('#repl-out .entry[data-status="ok"], #repl-out .entry[data-status="error"]');
    return done.length > n;
  }, before, { timeout: 30000 });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const onlyLogical = args.includes('--logical');
  const out = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(root, 'docs', 'images'));
  (onlyLogical ? logicalScreenshot(out) : main(out).then(() => logicalScreenshot(out))).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
