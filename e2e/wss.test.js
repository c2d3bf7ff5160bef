// @ts-check
/**
 * A daemon that serves https:// and wss:// (`termite-node --tls-cert FILE --tls-key
 * FILE`, docs/mesh.md "Encrypted links"): Debian's Chromium, told to accept the test's
 * certificate by its public key (--ignore-certificate-errors-spki-list, as a browser
 * that trusts the certificate's CA would), loads the worker page over https:// and its
 * tab joins over wss:// — a page loaded over https:// may not open ws://, so a join
 * proves the secure WebSocket. A program then reaches the tab through the daemon.
 * The certificate is made by openssl (node-daemon/test/helpers/test-certificate.js).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, newToken } from '../node-daemon/test/helpers/daemons.js';
import { makeTestCertificate, opensslInstalled } from '../node-daemon/test/helpers/test-certificate.js';
import { launchChromium } from './helpers/browser.js';
import { waitJoined, waitPeers, runToEnd, FIND_NODE, saveTabLogs } from './helpers/mesh.js';

const skip = opensslInstalled() ? false : 'the openssl command is not installed';
const token = newToken();
/** @type {ReturnType<typeof makeTestCertificate> | null} */
let cert = null;
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon | null} */
let daemon = null;
/** @type {import('./helpers/browser.js').Chromium | null} */
let chromium = null;
/** @type {import('./helpers/mesh.js').Tab[]} */
const tabs = [];

before(async () => {
  if (skip) return;
  cert = makeTestCertificate();
  const c = cert;
  [daemon, chromium] = await Promise.all([
    startDaemon({ token, args: ['--tls-cert', c.certFile, '--tls-key', c.keyFile] }),
    launchChromium({ args: [`--ignore-certificate-errors-spki-list=${c.spki}`] }),
  ]);
});

after(async () => {
  await saveTabLogs('wss', tabs).catch(() => {});
  await chromium?.close();
  await daemon?.stop();
  cert?.remove();
});

test('a tab loads the worker page over https:// and joins over wss://; a program reaches it through the daemon', { skip }, async () => {
  const d = /** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */ (daemon);
  const context = await /** @type {import('./helpers/browser.js').Chromium} */ (chromium).browser.newContext();
  const page = await context.newPage();
  /** @type {import('./helpers/mesh.js').Tab} */
  const tab = { page, id: '', errors: [] };
  tabs.push(tab);
  page.on('pageerror', (e) => tab.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') tab.errors.push(`console: ${m.text()}`); });
  const res = await page.goto(`https://127.0.0.1:${d.port}/worker`);
  assert.equal(res?.status(), 200);
  const security = await res?.securityDetails();
  assert.equal(security?.subjectName, '127.0.0.1', 'the page came with the daemon\'s certificate');
  const id = await waitJoined(tab);
  // the page joined the URL the daemon gave it: wss:// on the same port
  const join = await page.evaluate(() => JSON.parse(document.getElementById('termite-config')?.textContent ?? '{}').join);
  assert.equal(join, `wss://127.0.0.1:${d.port}/`);
  await waitPeers(d.url, [id]);

  const r = await runToEnd(`${FIND_NODE}
(define tab (find-node "${id}"))
(define me (self))
(remote-spawn tab (lambda () (! me (list 'from (node-id (current-node))))))
(recv ((from who) (display who) (newline)) (after 20 (display "no answer") (newline)))`, { token, join: [d.url], timeoutMs: 60000 });
  assert.equal(r.stdout.trim(), id, `the program's spawn on the tab answered: ${r.stderr}`);
  assert.deepEqual(tab.errors, []);
  await context.close();
});
