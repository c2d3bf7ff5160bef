// @ts-check
/**
 * The dashboard's approve button for a library publisher, in real Chromium against real
 * daemons' processes (OS processes on free loopback ports, stopped by PID). A daemon
 * started with --approval-wait is asked for a library of a publisher it does not trust:
 * its card lists the library under "libraries waiting for approval" with an approve
 * button; one click only arms it (the install still waits), the second approves: the
 * program's call answers, the publisher is kept in the daemon's DATA/trust, the row goes
 * and the library is listed as installed. Nothing sleeps: every wait is for a DOM
 * condition or an answer, with a bound.
 *
 *   node --test --test-concurrency=1 e2e/libraries-approve.test.js
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { loadOrCreateIdentity } from '@termite/mesh';
import { startDaemon, runProgram, newToken, waitFor } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'termite-e2e-approve-'));
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon | null} */
let daemon = null;
/** @type {import('./helpers/browser.js').Chromium | null} */
let chromium = null;
after(async () => {
  await chromium?.close();
  await daemon?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const WAIT = { timeout: 30000 };
/** @param {string} s */
const css = (s) => JSON.stringify(s);

test('the approve button: a first click arms it, the second approves; the waiting install goes on and the approval is kept', async () => {
  const libs = path.join(tmp, 'libs');
  mkdirSync(path.join(libs, 'foo'), { recursive: true });
  writeFileSync(path.join(libs, 'foo', 'bar@1.0.sld'), `(define-library (foo bar@1.0) (export greet) (import (scheme base)) (begin (define (greet x) (list 'v1.0 x))))`);
  const publisherDir = path.join(tmp, 'publisher');
  const publisher = await loadOrCreateIdentity(publisherDir);
  const data = path.join(tmp, 'data');
  const token = newToken();
  daemon = await startDaemon({ token, data, args: ['--approval-wait', '90'], timeoutMs: 30000 });
  const d = daemon;
  chromium = await launchChromium();
  const page = await (await chromium.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  /** @type {string[]} */
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`http://127.0.0.1:${d.port}/`);
  const prog = `(import (scheme base) (scheme write) (termite) (foo bar@1.0))
(define there (make-node "127.0.0.1" ${d.port}))
(write (on there (lambda () (greet 7)))) (newline)`;
  const run = runProgram(prog, { token, join: [d.url], args: ['--lib', libs, '--publisher', publisherDir], timeoutMs: 120000 });
  await waitFor(() => /waits for an operator's approval/.test(d.log()), 60000, 'the install waiting');
  const row = page.locator(`.node-card[data-node-id=${css(d.id)}] .lib-approval`).filter({ hasText: '(foo bar)@1.0' });
  await row.waitFor(WAIT);
  const button = row.locator(`button.approve[data-publisher=${css(publisher.id)}]`);
  await button.click();
  await row.locator('button.approve.armed').waitFor(WAIT);
  assert.equal(await row.locator('button.approve').textContent(), 'approve?');
  assert.equal(existsSync(path.join(data, 'trust')), false, 'one click approves nothing');
  await row.locator('button.approve.armed').click();
  const r = await run;
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '(v1.0 7)');
  assert.match(readFileSync(path.join(data, 'trust'), 'utf8'), new RegExp(`^${publisher.id}  # approved`, 'm'));
  await row.waitFor({ state: 'detached', ...WAIT });
  await page.locator(`.node-card[data-node-id=${css(d.id)}] .lib .lib-name`).filter({ hasText: '(foo bar)@1.0' }).waitFor(WAIT);
  assert.deepEqual(pageErrors, []);
});
