// @ts-check
/**
 * The live dashboard in real Chromium: a daemon (an OS process on a free loopback
 * port), its dashboard at `/`, and two worker tabs (one opened by the dashboard's own
 * "Open worker tab" button). Asserts, in the dashboard's DOM:
 *
 *   - both tabs are nodes of the graph, each linked to the daemon with its transport
 *   - a process spawned on the daemon is listed under the daemon, and once it migrates
 *     it is listed under the tab it reached (and in the migrations panel)
 *   - a process spawned from the REPL on a tab is listed under that tab
 *   - a tuple space and its size
 *   - the REPL evaluates (+ 1 2) on the daemon and on a tab and shows 3; a bad
 *     expression shows the error
 *
 *   - a tab that is closed leaves the graph
 *
 * Screenshots are saved under e2e/artifacts/: dashboard.png with both tabs and their
 * processes, dashboard-end.png at the end (also when a test fails). Nothing sleeps:
 * every wait is for a DOM condition, with a bound.
 *
 *   node --test e2e/dashboard.test.js
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startDaemon, newToken } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';

const artifacts = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium | null} */
let chromium = null;
/** @type {import('playwright-core').Page} */
let dash;
/** @type {string[]} the two tabs' node ids, sorted (the order of the daemon's (mesh-nodes)) */
let tabs = [];
/** @type {import('playwright-core').Page[]} the worker tabs */
const tabPages = [];
/** @type {string[]} */
const pageErrors = [];

const WAIT = { timeout: 20000 };
/** For elements whose presence is the point (an SVG group may have an empty box while the layout settles). */
const PRESENT = { state: /** @type {const} */ ('attached'), timeout: 20000 };

/** @param {string} s */
const css = (s) => JSON.stringify(s);

/**
 * POST /api/eval on the daemon (as a program would; the REPL in the page is tested by typing),
 * with the dashboard secret read from the page the daemon serves, as the page's script does.
 * @param {string} code @param {string} [node]
 */
async function apiEval(code, node) {
  const page = await (await fetch(`http://127.0.0.1:${daemon.port}/`)).text();
  const secret = /<meta name="termite-eval-secret" content="([^"]+)">/.exec(page)?.[1];
  assert.ok(secret, 'the dashboard page carries the dashboard secret');
  const res = await fetch(`http://127.0.0.1:${daemon.port}/api/eval`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-termite-eval': secret },
    body: JSON.stringify({ code, node }),
  });
  const r = await res.json();
  assert.equal(r.ok, true, `evaluation failed: ${JSON.stringify(r)}`);
  return r;
}

/**
 * A pid as the runtime prints it (#<pid 2097157@ghf75ab5oiub>) → as the dashboard lists it.
 * @param {string} printed
 */
function listedPid(printed) {
  const m = /#<pid (\d+)@(\w+)>/.exec(printed);
  assert.ok(m, `not a pid: ${printed}`);
  return `${m[1]}@${m[2].slice(0, 8)}`;
}

/**
 * Type an expression into the REPL (on the node chosen in its selector) and wait for its
 * entry to be answered.
 * @param {string} node @param {string} code
 * @returns {Promise<{status: string, node: string, text: string}>}
 */
async function replEval(node, code) {
  await dash.selectOption('#repl-node', node);
  const before = await dash.locator('#repl-out .entry[data-status]').count();
  await dash.fill('#repl-input', code);
  await dash.press('#repl-input', 'Enter');
  const entry = dash.locator('#repl-out .entry[data-status]').nth(before);
  await entry.and(dash.locator('[data-status="ok"], [data-status="error"]')).waitFor(WAIT);
  return {
    status: /** @type {string} */ (await entry.getAttribute('data-status')),
    node: /** @type {string} */ (await entry.getAttribute('data-node')),
    text: (await entry.locator('.out').allTextContents()).join('\n'),
  };
}

before(async () => {
  daemon = await startDaemon({ token: newToken(), timeoutMs: 30000 });
  chromium = await launchChromium();
  const context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } });
  dash = await context.newPage();
  dash.on('pageerror', (e) => pageErrors.push(e.message));
  await dash.goto(`http://127.0.0.1:${daemon.port}/`);
  await dash.locator(`#graph g.node[data-self="true"][data-node-id=${css(daemon.id)}]`).waitFor(PRESENT);
  // one tab from the dashboard's button, one opened directly
  const [popup] = await Promise.all([context.waitForEvent('page', WAIT), dash.click('#open-worker')]);
  await popup.waitForLoadState('domcontentloaded', WAIT);
  assert.equal(new URL(popup.url()).pathname, '/worker');
  const tab = await context.newPage();
  await tab.goto(`http://127.0.0.1:${daemon.port}/worker`);
  tabPages.push(popup, tab);
  await dash.bringToFront(); // as a user watching it: animations and frames run
  await dash.waitForFunction(() => document.querySelectorAll('#graph g.node[data-kind="tab"]').length === 2, null, WAIT);
  tabs = (await dash.locator('#graph g.node[data-kind="tab"]').evaluateAll((es) => es.map((e) => /** @type {string} */ (e.getAttribute('data-node-id'))))).sort();
});

after(async () => {
  if (dash) {
    mkdirSync(artifacts, { recursive: true });
    await dash.screenshot({ path: path.join(artifacts, 'dashboard-end.png') }).catch(() => {});
  }
  await chromium?.close();
  await daemon?.stop();
});

test('both tabs are nodes of the graph, linked to the daemon with their transport', async () => {
  assert.equal(tabs.length, 2);
  for (const id of tabs) {
    const [a, b] = id < daemon.id ? [id, daemon.id] : [daemon.id, id];
    const link = dash.locator(`#graph g.link[data-a=${css(a)}][data-b=${css(b)}]`);
    await link.waitFor(PRESENT);
    // the tabs upgrade their link to a WebRTC data channel once they have joined
    await dash.locator(`#graph g.link[data-a=${css(a)}][data-b=${css(b)}][data-transport="webrtc"]`).waitFor(PRESENT);
    assert.ok(await link.evaluate((e) => e.classList.contains('rtc')));
    // the card of each tab says it is one
    assert.equal(await dash.locator(`.node-card[data-node-id=${css(id)}]`).getAttribute('data-kind'), 'tab');
  }
  // the transport pills read WebRTC
  const pills = await dash.locator('#graph g.pill.rtc text').allTextContents();
  assert.ok(pills.filter((t) => t === 'WebRTC').length >= 2, `pills: ${pills}`);
  // the REPL offers the daemon and both tabs
  const options = await dash.locator('#repl-node option').evaluateAll((es) => es.map((e) => /** @type {HTMLOptionElement} */ (e).value));
  assert.deepEqual([...options].sort(), [daemon.id, ...tabs].sort());
});

test('a process is listed under its node, and under the tab it migrates to', async () => {
  const r = await apiEval(`(define (dash-wanderer) (recv ((dest) (migrate dest))) (recv (x x) (after 120 'done)))
(define wanderer (spawn dash-wanderer))
wanderer`);
  const pid = listedPid(r.outputs[r.outputs.length - 1]);
  const onDaemon = dash.locator(`.node-card[data-node-id=${css(daemon.id)}] .proc[data-pid=${css(pid)}]`);
  await onDaemon.waitFor(WAIT);
  assert.equal(await onDaemon.locator('.pname').textContent(), 'dash-wanderer');
  // to the second tab: (mesh-nodes) on the daemon lists the tabs sorted by id
  await apiEval(`(! wanderer (list (list-ref (mesh-nodes) 1)))`);
  const target = tabs[1];
  const onTab = dash.locator(`.node-card[data-node-id=${css(target)}] .proc[data-pid=${css(pid)}]`);
  await onTab.waitFor(WAIT);
  assert.equal(await onTab.locator('.pname').textContent(), 'dash-wanderer', 'the name travels with the process');
  assert.ok(await onTab.evaluate((e) => e.classList.contains('migrated')));
  await onDaemon.waitFor({ state: 'detached', ...WAIT });
  // the migrations panel and the graph
  await dash.locator(`#migrations .mig[data-pid=${css(pid)}][data-from=${css(daemon.id)}][data-to=${css(target)}]`).waitFor(WAIT);
  await dash.locator(`#graph g.node[data-node-id=${css(target)}] .dot.migrated[data-pid=${css(pid)}]`).waitFor(PRESENT);
  assert.ok(Number(await dash.locator('#t-migrations').textContent()) >= 1);
});

test('a tuple space is listed with its size', async () => {
  await apiEval(`(define jobs (make-space 'dash-jobs))
(out jobs 'job 1) (out jobs 'job 2) (out jobs 'job 3)`);
  const row = dash.locator(`#spaces .space[data-space="dash-jobs"][data-node-id=${css(daemon.id)}]`);
  await dash.locator(`#spaces .space[data-space="dash-jobs"][data-tuples="3"]`).waitFor(WAIT);
  assert.equal(await row.locator('.space-count').textContent(), '3');
  await apiEval(`(in jobs 'job 1)`);
  await dash.locator(`#spaces .space[data-space="dash-jobs"][data-tuples="2"]`).waitFor(WAIT);
});

test('the REPL evaluates on the daemon', async () => {
  const r = await replEval(daemon.id, '(+ 1 2)');
  assert.deepEqual(r, { status: 'ok', node: daemon.id, text: '3' });
});

test('the REPL evaluates on a tab, and what it spawns there is listed under that tab', async () => {
  const tab = tabs[0];
  const r = await replEval(tab, '(+ 1 2)');
  assert.deepEqual(r, { status: 'ok', node: tab, text: '3' });
  const where = await replEval(tab, '(current-node)');
  assert.equal(where.text, `#<node ${tab.slice(0, 12)}>`, 'evaluated on the tab itself');
  const s = await replEval(tab, `(define (tab-sitter) (recv (x x) (after 120 'done)))
(spawn tab-sitter)`);
  assert.equal(s.status, 'ok');
  const pid = listedPid(s.text);
  const row = dash.locator(`.node-card[data-node-id=${css(tab)}] .proc[data-pid=${css(pid)}]`);
  await row.waitFor(WAIT);
  assert.equal(await row.locator('.pname').textContent(), 'tab-sitter');
});

test('the REPL shows the error of a bad expression', async () => {
  const r = await replEval(daemon.id, '(car 5)');
  assert.equal(r.status, 'error');
  assert.match(r.text, /car: expected a pair/);
  assert.equal(await dash.locator('#repl-out .entry[data-status="error"] .out.err').last().isVisible(), true);
  const syntax = await replEval(tabs[0], ')');
  assert.equal(syntax.status, 'error');
  assert.match(syntax.text, /unexpected/);
  assert.deepEqual(pageErrors, [], 'no uncaught errors in the dashboard');
});

test('a tab that is closed leaves the graph', async () => {
  mkdirSync(artifacts, { recursive: true });
  await dash.screenshot({ path: path.join(artifacts, 'dashboard.png') });
  const gone = tabs[0];
  const page = /** @type {import('playwright-core').Page} */ (await findAsync(tabPages, async (p) => (await p.textContent('#node-id')) === gone));
  assert.ok(page, 'the page of the tab');
  await page.close();
  await dash.locator(`#graph g.node[data-node-id=${css(gone)}]`).waitFor({ state: 'detached', timeout: 20000 });
  await dash.locator(`.node-card[data-node-id=${css(gone)}]`).waitFor({ state: 'detached', timeout: 5000 });
  assert.equal(await dash.locator('#graph g.node[data-kind="tab"]').count(), 1);
  assert.equal(await dash.locator(`#repl-node option[value=${css(gone)}]`).count(), 0, 'no longer offered by the REPL');
});

/**
 * @template T
 * @param {T[]} xs @param {(x: T) => Promise<boolean>} f
 */
async function findAsync(xs, f) {
  for (const x of xs) if (await f(x)) return x;
  return undefined;
}
