// @ts-check
/**
 * The dashboard's space panel in Chromium shows a distributed space at each of its
 * replicas (docs/linda.md, "On the dashboard"): two real daemons, a distributed space
 * made on one and used from the other; the first daemon's dashboard lists a row per
 * replica, with the kind, the member's row naming the home, each replica's size, and a
 * central space beside them. Waits are bounded; the daemons are stopped by PID.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';

const WAIT = { timeout: 20000 };
const token = newToken();
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let h;
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let q;
/** @type {import('./helpers/browser.js').Chromium | null} */
let chromium = null;
/** @type {string[]} */
const pageErrors = [];

before(async () => {
  h = await startDaemon({ token, timeoutMs: 30000 });
  q = await startDaemon({ token, join: [h.url], timeoutMs: 30000 });
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await Promise.all([h?.stop(), q?.stop()]);
});

/** @param {string} s */
const css = (s) => JSON.stringify(s);

test('a distributed space has a row per replica: its kind, the home on the member, each replica\'s size', async () => {
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define ds (on h (lambda () (make-space 'panel-dts 'distributed))))
(define cs (make-space 'panel-central 'central h))
(on q (lambda () (out ds 'a 1) (out ds 'a 2) (out ds 'a 3) (in ds 'a 1) (out cs 'c 1)))
(write (list 'left (on h (lambda () (let loop ((i 0)) (let ((c (space-count ds 'a ?integer))) (if (or (= c 2) (= i 500)) c (begin (sleep 0.02) (loop (+ i 1))))))))))
(newline)`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\(left 2\)/);
  assert.ok(chromium);
  const dash = await (await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  dash.on('pageerror', (e) => pageErrors.push(e.message));
  await dash.goto(`http://127.0.0.1:${h.port}/`);
  const atQ = dash.locator(`#spaces .space[data-space="panel-dts"][data-node-id=${css(q.id)}][data-tuples="2"]`);
  const atH = dash.locator(`#spaces .space[data-space="panel-dts"][data-node-id=${css(h.id)}][data-tuples="2"]`);
  await atQ.waitFor(WAIT);
  await atH.waitFor(WAIT);
  assert.equal(await atQ.getAttribute('data-kind'), 'distributed');
  assert.equal(await atQ.getAttribute('data-home'), h.id);
  assert.equal(await atH.getAttribute('data-home'), h.id);
  assert.match(/** @type {string} */ (await atQ.locator('.space-kind').textContent()), /^distributed · home \S+/);
  assert.equal(await atH.locator('.space-kind').textContent(), 'distributed');
  assert.equal(await atQ.locator('.space-count').textContent(), '2');
  const central = dash.locator(`#spaces .space[data-space="panel-central"][data-node-id=${css(h.id)}]`);
  await central.waitFor(WAIT);
  assert.equal(await central.locator('.space-kind').textContent(), 'central');
  assert.deepEqual(pageErrors, []);
});
