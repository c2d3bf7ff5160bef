// @ts-check
/**
 * A versioned library published by a daemon and used by a Chromium tab (docs/mesh.md,
 * "Versioned libraries"): the daemon publishes (foo bar@1.0) from its --lib directory;
 * a program sends the daemon a procedure that runs code of that library on a tab; the
 * tab, which never saw the library, fetches its signed record and code from the
 * daemon, checks them (the daemon's publisher is one its daemon trusts), installs it
 * and answers; after a reload it finds the library in IndexedDB and fetches nothing.
 * A real daemon on a free loopback port, Debian's Chromium through playwright-core.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { loadOrCreateIdentity } from '@termite/mesh';
import { startDaemon, runProgram, newToken } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';
import { openTab, waitJoined, waitPeers, saveTabLogs, FIND_NODE } from './helpers/mesh.js';

const token = newToken();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'termite-e2e-libs-'));
const libs = path.join(tmp, 'libs');
mkdirSync(path.join(libs, 'foo'), { recursive: true });
writeFileSync(path.join(libs, 'foo', 'bar@1.0.sld'), `(define-library (foo bar@1.0)
  (export greet)
  (import (scheme base))
  (begin (define (greet x) (list 'v1.0 x (* x x)))))`);
const publisherDir = path.join(tmp, 'publisher');

/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('./helpers/mesh.js').Tab[]} */
const tabs = [];

before(async () => {
  [daemon, chromium] = await Promise.all([startDaemon({ token, args: ['--lib', libs, '--publisher', publisherDir] }), launchChromium()]);
  context = await chromium.browser.newContext();
});

after(async () => {
  await saveTabLogs('libraries', tabs).catch(() => {});
  await chromium?.close();
  await daemon?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The program: the daemon runs, on the tab, a procedure of the library. @param {string} tabId */
const program = (tabId) => `
(import (scheme base) (scheme write) (termite) (foo bar@1.0))
${FIND_NODE}
(define d (make-node "127.0.0.1" ${daemon.port}))
(define tab (find-node "${tabId}"))
(write (on d (lambda () (on tab (lambda () (list (greet 7) (node-id (current-node))))))))
(newline)`;

/** The tab worker's log lines. @param {import('./helpers/mesh.js').Tab} tab @returns {Promise<string[]>} */
const tabLog = (tab) => tab.page.evaluate(() => /** @type {any} */ (window).termite.view.log.slice());

/**
 * The tab's log once a line matches `re`, or as it is after 5 s.
 * @param {import('./helpers/mesh.js').Tab} tab @param {RegExp} re
 */
async function logMatching(tab, re) {
  let log = '';
  for (let i = 0; i < 100; i++) {
    log = (await tabLog(tab)).join('\n');
    if (re.test(log)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return log;
}

test('a tab runs code of a library a daemon published: fetched from the daemon, checked, installed, kept in IndexedDB', async () => {
  const publisher = await loadOrCreateIdentity(publisherDir);
  assert.match(daemon.log(), new RegExp(`publishing libraries \\(foo bar@1\\.0\\) as ${publisher.id}`));
  const tab = await openTab(context, daemon.port);
  tabs.push(tab);
  const id = await waitJoined(tab);
  await waitPeers(daemon.url, [id]);
  const r = await runProgram(program(id), { token, join: [daemon.url], args: ['--lib', libs, '--publisher', publisherDir], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), `((v1.0 7 49) "${id}")`);
  // the worker's log line may follow the answer: wait for it (bounded)
  const installed = new RegExp(`installed library \\(foo bar\\) version 1\\.0 \\(publisher ${publisher.id}, fetched from ${daemon.id.slice(0, 12)}\\)`);
  const log = await logMatching(tab, installed);
  assert.match(log, installed);

  // a reload: the record is in IndexedDB, the code in the code cache
  await tab.page.reload();
  const id2 = await waitJoined(tab);
  await waitPeers(daemon.url, [id2]);
  const again = await runProgram(program(id2), { token, join: [daemon.url], args: ['--lib', libs, '--publisher', publisherDir], timeoutMs: 60000 });
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout.trim(), `((v1.0 7 49) "${id2}")`);
  const log2 = await logMatching(tab, /installed library \(foo bar\) version 1\.0 \(publisher \w+, from this node's store\)/);
  assert.match(log2, /installed library \(foo bar\) version 1\.0 \(publisher \w+, from this node's store\)/);
  assert.doesNotMatch(log2, /fetched from/);
  assert.deepEqual(tab.errors, []);
});
