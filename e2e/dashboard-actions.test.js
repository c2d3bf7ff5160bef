// @ts-check
/**
 * The dashboard's kill button and its logical view, in real Chromium against a real
 * daemon (an OS process on a free loopback port). Asserts, in the dashboard's DOM:
 *
 *   - a process spawned on the daemon is listed with a kill button; one click only arms
 *     it (the process lives on), the second click terminates it and its row goes away
 *   - a process that dies of an uncaught error is listed on the daemon's card with the
 *     offending value, and its Scheme frames show when the entry is opened
 *   - the shortest-path example (examples/messengers/shortest-path.scm), run on the
 *     daemon, shows in the logical view: its logical nodes inside the daemon, the links
 *     between them with their weights, the messengers on a node counted
 *   - a worker tab's logical nodes come through the tab's own samples, in a box of
 *     their own; a process on the tab is killed from its row
 *
 * Nothing sleeps: every wait is for a DOM condition or an answer, with a bound.
 *
 *   node --test --test-concurrency=1 e2e/dashboard-actions.test.js
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startDaemon, newToken } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium | null} */
let chromium = null;
/** @type {import('playwright-core').Page} */
let dash;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {string[]} */
const pageErrors = [];

const WAIT = { timeout: 20000 };
const PRESENT = { state: /** @type {const} */ ('attached'), timeout: 20000 };

/** @param {string} s */
const css = (s) => JSON.stringify(s);

/**
 * POST /api/eval on the daemon with the dashboard secret its page carries.
 * @param {string} code @param {string} [node] the node to evaluate on (default: the daemon)
 */
async function apiEval(code, node = undefined) {
  const page = await (await fetch(`http://127.0.0.1:${daemon.port}/`)).text();
  const secret = /<meta name="termite-eval-secret" content="([^"]+)">/.exec(page)?.[1];
  assert.ok(secret);
  const res = await fetch(`http://127.0.0.1:${daemon.port}/api/eval`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-termite-eval': secret },
    body: JSON.stringify({ code, node }),
  });
  const r = await res.json();
  assert.equal(r.ok, true, `evaluation failed: ${JSON.stringify(r)}`);
  return r;
}

before(async () => {
  daemon = await startDaemon({ token: newToken(), timeoutMs: 30000 });
  chromium = await launchChromium();
  context = await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } });
  dash = await context.newPage();
  dash.on('pageerror', (e) => pageErrors.push(e.message));
  await dash.goto(`http://127.0.0.1:${daemon.port}/`);
  await dash.locator(`#graph g.node[data-self="true"][data-node-id=${css(daemon.id)}]`).waitFor(PRESENT);
});

after(async () => {
  await chromium?.close();
  await daemon?.stop();
});

test('the kill button: a first click arms it, the second terminates the process and its row goes', async () => {
  const r = await apiEval('(define (dash-victim) (let loop () (recv (x (loop))))) (define victim (spawn dash-victim)) victim');
  const m = /#<pid (\d+)@(\w+)>/.exec(r.outputs.at(-1));
  assert.ok(m);
  const pid = `${m[1]}@${m[2].slice(0, 8)}`;
  const row = dash.locator(`.node-card[data-node-id=${css(daemon.id)}] .proc[data-pid=${css(pid)}]`);
  await row.waitFor(WAIT);
  assert.equal(await row.locator('.pname').textContent(), 'dash-victim');
  await row.locator('button.kill').click();
  await row.locator('button.kill.armed').waitFor(WAIT);
  assert.equal(await row.locator('button.kill').textContent(), 'kill?');
  assert.deepEqual((await apiEval('(process-alive? victim)')).outputs, ['#t'], 'one click does not kill');
  await row.locator('button.kill.armed').click();
  await row.waitFor({ state: 'detached', ...WAIT });
  assert.deepEqual((await apiEval('(process-alive? victim)')).outputs, ['#f']);
  assert.deepEqual(pageErrors, []);
});

test('a process that dies of an uncaught error is listed on its node\'s card, with the offending value and, opened, its Scheme frames', async () => {
  await apiEval('(define (dash-crasher l) (+ 1 (car l))) (spawn (lambda () (dash-crasher 2)))');
  const death = dash.locator(`.node-card[data-node-id=${css(daemon.id)}] .nc-deaths .death`).filter({ hasText: 'car: expected a pair: 2' });
  await death.first().waitFor(WAIT);
  assert.match(/** @type {string} */ (await death.first().locator('summary').textContent()), /process \d+ died: car: expected a pair: 2/);
  await death.first().locator('summary').click();
  assert.match(/** @type {string} */ (await death.first().locator('pre').textContent()), /in dash-crasher at /);
  assert.deepEqual(pageErrors, []);
});

test('the logical view: the shortest-path example\'s logical nodes inside the daemon, their links and weights, messengers counted', async () => {
  const program = readFileSync(path.join(root, 'examples/messengers/shortest-path.scm'), 'utf8');
  const r = await apiEval(program);
  assert.ok(r.outputs.some((/** @type {string} */ o) => o.includes('(same as sequential #t)')), r.outputs.join('\n'));
  assert.equal(await dash.locator('#lgraph').isHidden(), true, 'the physical view first');
  await dash.click('#view-logical');
  assert.equal(await dash.locator('#view-logical').getAttribute('aria-pressed'), 'true');
  assert.equal(await dash.locator('#graph').isHidden(), true);
  const box = dash.locator(`#lgraph g.lbox[data-host=${css(daemon.id)}]`);
  await box.waitFor(WAIT);
  await dash.waitForFunction(() => document.querySelectorAll('#lgraph g.lnode').length === 65, null, WAIT);
  assert.equal(await box.getAttribute('data-total'), '65', 'init and the 8×8 cells');
  const addressOf = async (/** @type {string} */ name) => /** @type {string} */ (await dash.locator(`#lgraph g.lnode[data-name=${css(name)}]`).getAttribute('data-address'));
  const [a, b, c] = [await addressOf('n0-0'), await addressOf('n0-1'), await addressOf('n1-0')];
  assert.ok(a.startsWith(`@${daemon.id}/`));
  const linkBetween = (/** @type {string} */ x, /** @type {string} */ y) => dash.locator(`#lgraph g.llink[data-from=${css(x)}][data-to=${css(y)}], #lgraph g.llink[data-from=${css(y)}][data-to=${css(x)}]`);
  assert.equal(await linkBetween(a, b).getAttribute('data-weight'), '4');
  assert.equal(await linkBetween(a, b).getAttribute('data-name'), 'h');
  assert.equal(await linkBetween(a, c).getAttribute('data-weight'), '2');
  assert.equal(await linkBetween(a, b).locator('text.llink-weight').textContent(), '4', 'the weight is drawn on the link');
  // 2 × 112 undirected links between cells, one entry each way, drawn once; the start link is directed
  assert.equal(await dash.locator('#lgraph g.llink').count(), 113);
  // three messengers jump to n7-7 (by its address) and wait there for a node variable
  const far = await addressOf('n7-7');
  await apiEval(`(define (waiter) (hop 'node ${JSON.stringify(far)}) (wait-until 'go (lambda (v) v)))
(inject waiter ${JSON.stringify(a)}) (inject waiter ${JSON.stringify(a)}) (inject waiter ${JSON.stringify(a)})`);
  await dash.locator(`#lgraph g.lnode[data-name="n7-7"][data-messengers="3"]`).waitFor(PRESENT);
  assert.ok(await dash.locator('#lgraph g.lnode[data-name="n7-7"]').evaluate((e) => e.classList.contains('flash')), 'the node the messengers hopped to flashed');
  assert.match(await box.locator('.lbox-sub').textContent() ?? '', /65 logical nodes · 3 messengers/);
  await dash.click('#view-physical');
  assert.equal(await dash.locator('#lgraph').isHidden(), true);
  assert.deepEqual(pageErrors, []);
});

test('a tab\'s logical nodes are drawn in a box of their own, from the tab\'s samples; a process of the tab is killed from its row', async () => {
  const tab = await context.newPage();
  await tab.goto(`http://127.0.0.1:${daemon.port}/worker`);
  await dash.bringToFront();
  await dash.locator('#graph g.node[data-kind="tab"]').waitFor(PRESENT);
  const id = /** @type {string} */ (await dash.locator('#graph g.node[data-kind="tab"]').getAttribute('data-node-id'));
  await apiEval(`(inject-and-wait (lambda () (create 'node 'on-a-tab 'link 'l 'weight 5)))`, id);
  await dash.click('#view-logical');
  const box = dash.locator(`#lgraph g.lbox.tab[data-host=${css(id)}]`);
  await box.waitFor(WAIT);
  const node = dash.locator(`#lgraph g.lnode[data-name="on-a-tab"]`);
  await node.waitFor(PRESENT);
  assert.ok(String(await node.getAttribute('data-address')).startsWith(`@${id}/`), 'held by the tab');
  assert.equal(await dash.locator(`#lgraph g.llink[data-weight="5"][data-name="l"]`).count(), 1);
  // and a process of the tab is killed from its row, through the daemon
  await dash.click('#view-physical');
  const r = await apiEval('(define (tab-victim) (let loop () (recv (x (loop))))) (spawn tab-victim)', id);
  const m = /#<pid (\d+)@(\w+)>/.exec(r.outputs.at(-1));
  assert.ok(m);
  const row = dash.locator(`.node-card[data-node-id=${css(id)}] .proc[data-pid=${css(`${m[1]}@${m[2].slice(0, 8)}`)}]`);
  await row.waitFor(WAIT);
  await row.locator('button.kill').click();
  await row.locator('button.kill.armed').click();
  await row.waitFor({ state: 'detached', ...WAIT });
  assert.deepEqual(pageErrors, []);
});
