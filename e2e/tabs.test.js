// @ts-check
/**
 * Worker tabs joining a daemon (docs/browser.md): a real `termite-node` daemon on a free
 * loopback port, Debian's Chromium through playwright-core, tabs on the daemon's /worker
 * page. Tabs join over WebSocket with the token embedded in the page and upgrade to
 * WebRTC; a page with a wrong token is refused and says why; the daemon serves the page
 * only to requests that name it by address.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { startDaemon, newToken, health, waitFor } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';
import { createMeshNode, createIdentity } from '@termite/mesh';
import { encodeValue, decodeValue } from '@termite/scheme';
import { openTab, waitJoined, waitPeers, waitStatus, tabStatus, artifactsDir, saveTabLogs, startProgram, runToEnd, FIND_NODE } from './helpers/mesh.js';

const token = newToken();
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('./helpers/mesh.js').Tab[]} */
const tabs = [];
/** @type {import('./helpers/mesh.js').Program[]} */
const programs = [];

before(async () => {
  [daemon, chromium] = await Promise.all([startDaemon({ token }), launchChromium()]);
  context = await chromium.browser.newContext({ viewport: { width: 1280, height: 860 } });
});

after(async () => {
  await saveTabLogs('tabs', tabs).catch(() => {});
  if (daemon) writeFileSync(path.join(artifactsDir(), 'tabs-daemon.log'), `${daemon.log()}\n[exit: ${daemon.child.exitCode ?? daemon.child.signalCode ?? 'running'}]\n`);
  for (const p of programs) await p.stop();
  await chromium?.close();
  await daemon?.stop();
});

test('three tabs join the daemon, which lists them as peers; every link is upgraded to WebRTC', async () => {
  const opened = await Promise.all([0, 1, 2].map(() => openTab(context, daemon.port)));
  tabs.push(...opened);
  const ids = await Promise.all(opened.map((t) => waitJoined(t)));
  assert.equal(new Set(ids).size, 3, `three tabs, three node ids: ${ids}`);
  assert.ok(!ids.includes(daemon.id));

  // the page shows that it joined, and which daemon it joined
  for (const t of opened) {
    assert.equal(await t.page.textContent('#state'), 'Joined');
    assert.equal(await t.page.textContent('#daemon-id'), daemon.id);
    assert.match(/** @type {string} */ (await t.page.textContent('#detail')), new RegExp(`through daemon ${daemon.id.slice(0, 12)}`));
    assert.equal(await t.page.isVisible('#refusal'), false);
  }

  // the daemon sees each tab as a peer, over WebRTC once the tab has upgraded
  const h = await waitPeers(daemon.url, ids, { transport: 'webrtc', timeoutMs: 30000 });
  assert.equal(h.id, daemon.id);

  // tabs open data channels to each other (the one with the smaller id dials)
  for (const t of opened) {
    const others = ids.filter((id) => id !== t.id);
    // each end of a link is up when it has the other's handshake, so the tab may see its
    // data channel to the daemon up a little after the daemon did: wait for both views
    const rtcTo = (/** @type {any} */ st, /** @type {string} */ id, /** @type {string} */ kind) => st.links.some((/** @type {any} */ l) => l.id === id && l.kind === kind && l.transport === 'webrtc');
    const s = await waitStatus(t, (st) => rtcTo(st, daemon.id, 'daemon') && others.every((id) => rtcTo(st, id, 'tab')), 30000, 'WebRTC links to the daemon and the other tabs');
    const d = s.links.find((/** @type {any} */ l) => l.id === daemon.id);
    assert.equal(d?.kind, 'daemon');
    assert.equal(d?.transport, 'webrtc');
    assert.deepEqual([...d.transports].sort(), ['webrtc', 'websocket']);
    // the worker instantiated the runtime library the daemon compiled, compiling none of it
    assert.deepEqual(s.library, { precompiled: 6, compiled: 0 }, `runtime library in tab ${t.id}`);
  }
  // ... and draw them: a row per peer in the links table, with its transport
  const first = opened[0];
  await first.page.waitForSelector(`#links tr[data-peer="${daemon.id}"][data-transport="webrtc"][data-kind="daemon"]`, { timeout: 5000 });
  for (const id of ids.slice(1)) await first.page.waitForSelector(`#links tr[data-peer="${id}"][data-transport="webrtc"]`, { timeout: 5000 });
  await first.page.screenshot({ path: path.join(artifactsDir(), 'worker-tab.png') });
  for (const t of opened) assert.deepEqual(t.errors, [], `no page errors in tab ${t.id}`);
});

test('a tab keeps its node id across a reload (identity in IndexedDB)', async () => {
  const t = tabs[0];
  const before = t.id;
  await t.page.reload();
  const again = await waitJoined(t);
  assert.equal(again, before);
  const st = await tabStatus(t);
  assert.equal(st.daemonId, daemon.id);
  assert.match((await t.page.evaluate(() => /** @type {any} */ (window).termite.view.log.join('\n'))), /identity tab-\d+ from IndexedDB/);
  await waitPeers(daemon.url, [again], { timeoutMs: 20000 });
});

test('a tab evaluates Scheme text for no peer but the daemon that served it', async () => {
  // a node of the mesh (it knows the token) that is not the tab's daemon asks a tab to evaluate text
  const mesh = createMeshNode({ identity: await createIdentity(), token, webrtc: false });
  await mesh.start();
  try {
    await mesh.connect(daemon.url, { timeoutMs: 10000 });
    const tab = tabs[1];
    await waitFor(() => mesh.isReachable(tab.id), 10000, `a route to tab ${tab.id}`);
    const R_EVAL = 26; // packages/runtime/src/distribution/frame-vocabulary.js
    const answer = decodeValue(await mesh.request(tab.id, encodeValue([R_EVAL, '(+ 1 2)']), { timeoutMs: 10000 }));
    assert.equal(answer[0], false);
    assert.match(String(answer[1]), /does not evaluate code for that peer/);
    // the tab is still in the mesh
    assert.equal(await tab.page.textContent('#state'), 'Joined');
  } finally {
    await mesh.stop();
  }
});

test('a page with a wrong token is refused and says why; the daemon logs the refusal and keeps serving good tabs', async () => {
  const logBefore = daemon.log().length;
  // another token in the fragment (never sent to a server) ...
  const wrong = await openTab(context, daemon.port, '#token=not-the-mesh-token');
  tabs.push(wrong);
  // ... and a page whose embedded token was altered on the way
  const forgedPage = await context.newPage();
  await forgedPage.route('**/worker', async (route) => {
    const res = await route.fetch();
    const html = await res.text();
    assert.ok(html.includes(`"token":"${token}"`), 'the daemon embeds its token in the page');
    await route.fulfill({ response: res, body: html.replace(`"token":"${token}"`, '"token":"forged-token"') });
  });
  await forgedPage.goto(`http://127.0.0.1:${daemon.port}/worker`);
  const forged = { page: forgedPage, id: '', errors: [] };
  tabs.push(forged);

  for (const t of [wrong, forged]) {
    await t.page.waitForSelector('#state[data-state="refused"]', { timeout: 30000 });
    assert.equal(await t.page.textContent('#state'), 'Refused');
    assert.equal(await t.page.isVisible('#refusal'), true);
    const why = /** @type {string} */ (await t.page.textContent('#refusal'));
    assert.match(why, /wrong token/);
    assert.match(why, /bad token/);
    // the status (coalesced, after the state) names the refused node
    t.id = (await waitStatus(t, (st) => st.state === 'refused' && typeof st.id === 'string', 5000, 'the refused status')).id;
    assert.match(t.id, /^[a-z2-7]{32}$/);
    await t.page.waitForSelector(`#node-id:text("${t.id}")`, { timeout: 5000 });
  }
  // the daemon logged both refusals, naming the tab and the reason
  for (const t of [wrong, forged]) {
    await waitFor(() => daemon.log().slice(logBefore).includes(`"peer":"${t.id}"`), 5000, `the daemon's log line for ${t.id}`);
  }
  const lines = daemon.log().slice(logBefore).split('\n').filter((l) => l.includes('admission refused'));
  assert.ok(lines.length >= 2 && lines.every((l) => /bad token/.test(l)), lines.join('\n'));
  const h = await health(daemon.url);
  assert.ok(!h.peers.some((/** @type {any} */ p) => p.id === wrong.id || p.id === forged.id), 'refused tabs are not peers');

  // and it still serves a good tab
  const good = await openTab(context, daemon.port);
  tabs.push(good);
  const id = await waitJoined(good);
  await waitPeers(daemon.url, [id], { timeoutMs: 20000 });
});

test('the daemon serves the worker page only to requests that name it by address, never cached or framed', async () => {
  /** @param {string} hostHeader @param {string} p */
  const get = (hostHeader, p) => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: daemon.port, path: p, headers: { host: hostHeader } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    }).on('error', reject);
  });
  for (const evil of ['evil.example', `evil.example:${daemon.port}`, '127.0.0.1.evil.example', 'localhost.evil.example']) {
    const r = /** @type {any} */ (await get(evil, '/worker'));
    assert.equal(r.status, 421, `Host: ${evil}`);
    assert.ok(!r.body.includes(token), 'no token for a rebinding page');
    const a = /** @type {any} */ (await get(evil, '/assets/js/worker.js'));
    assert.equal(a.status, 421);
  }
  for (const good of [`127.0.0.1:${daemon.port}`, `localhost:${daemon.port}`]) {
    const r = /** @type {any} */ (await get(good, '/worker'));
    assert.equal(r.status, 200, `Host: ${good}`);
    assert.ok(r.body.includes(`"token":"${token}"`));
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.match(r.headers['content-security-policy'], /script-src 'self' 'unsafe-eval'/);
    assert.match(r.headers['content-security-policy'], /frame-ancestors 'none'/);
  }
  const wasm = /** @type {any} */ (await get(`127.0.0.1:${daemon.port}`, '/assets/wasm/termite_core.wasm'));
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers['content-type'], 'application/wasm');
});

test('the daemon survives a tab reloaded again and again while frames are routed to it', async (t) => {
  const [victim, other] = [tabs[2], tabs[1]];
  // For 12 s, processes on the daemon and on another tab send to a sink on the victim
  // tab without pause, starting a new sink whenever the tab comes back; meanwhile the
  // test reloads the victim. (A send on a data channel the peer had just closed used to
  // abort the daemon.) The flooders report 'done' to the program, but the program does
  // not depend on it: in this churn a message may be lost (send and pray), and what is
  // under test is the daemon. It waits for the reports until 30 s past the deadline.
  const flood = startProgram(`${FIND_NODE}
(define daemon (make-node "127.0.0.1" ${daemon.port}))
(define victim (find-node "${victim.id}"))
(define me (self))
(define (flooder deadline)
  (lambda ()
    (let again ()
      (if (> (current-second) deadline)
          (! me 'done)
          (begin
            (guard (e (#t (recv (after 0.1 #t))))
              (let ((sink (remote-spawn victim (lambda () (let drain () (?) (drain))))))
                (let send ((j 0))
                  (if (< (current-second) deadline)
                      (begin
                        (! sink (make-vector 1000 j))
                        (if (= 0 (modulo j 50)) (recv (after 0.001 #t)))
                        (send (+ j 1)))))))
            (again))))))
(define deadline (+ (current-second) 12))
(remote-spawn daemon (flooder deadline))
(remote-spawn (find-node "${other.id}") (flooder deadline))
(display "flooding") (newline)
(define (reports n)
  (if (= n 2) n
      (let ((left (- (+ deadline 30) (current-second))))
        (if (<= left 0) n (recv ('done (reports (+ n 1))) (after left n))))))
(display "flood over, reports ") (display (reports 0)) (newline)
`, { token, join: [daemon.url] });
  programs.push(flood);
  await flood.waitOutput(/flooding\n/, 20000, 'the flood');
  let reloads = 0;
  const until = Date.now() + 120_000; // the program ends by deadline + 30 s
  while ((!flood.stdout().includes('flood over') || reloads < 3) && Date.now() < until) {
    await victim.page.reload();
    await waitJoined(victim, 30000);
    reloads++;
    assert.equal(daemon.child.exitCode, null, `the daemon exited after reload ${reloads}:\n${daemon.log().slice(-2000)}`);
    assert.equal(daemon.child.signalCode, null);
  }
  const [, n] = await flood.waitOutput(/flood over, reports (\d)\n/, 60000, 'the end of the flood');
  t.diagnostic(`${reloads} reloads; ${n} of 2 flooders' reports arrived`);
  assert.equal(await flood.exited, 0, flood.stderr());
  assert.doesNotMatch(daemon.log(), /terminate called|uncaught/i);
  // and the reloaded tab still runs code for the mesh
  await waitPeers(daemon.url, [victim.id], { timeoutMs: 20000 });
  const r = await runToEnd(`${FIND_NODE}(write (on (find-node "${victim.id}") (lambda () (node-id (current-node)))))`, { token, join: [daemon.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `"${victim.id}"`);
});
