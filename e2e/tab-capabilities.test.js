// @ts-check
/**
 * A tab is a restricted peer by default (docs/security.md, "Trust model by role"): a real
 * daemon, a real Chromium tab on its /worker page. In the tab's worker, frames are forged
 * by hand (the worker's own distribution layer encodes them, its mesh node sends them):
 * a SEND and a KILL naming a daemon process whose pid the daemon never gave the tab. The
 * daemon refuses them (the tab receives the refusal as an ERROR and logs it) and the
 * process gets nothing and stays alive; a pid the daemon did give the tab (inside a
 * closure it spawned there) reaches the process. A daemon started with --trust-tabs
 * takes the same forged SEND. Across daemons (B joined the tab's daemon A): the tab's
 * forged SEND routed through A to a process of B is refused by B; a pid of B that A hands
 * the tab (in a thunk it spawns there) is vouched for by A to B, so the `!` of a process
 * the tab spawned on A (acting there as the tab) and the tab's own routed SEND reach it;
 * a local space of B that A hands the tab the same way is vouched for too: the tab's `rdp`
 * on it is served by B, and one on a space of B it was only told the name of is refused.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { startDaemon, newToken, waitFor } from '../node-daemon/test/helpers/daemons.js';
import { launchChromium } from './helpers/browser.js';
import { openTab, waitJoined, saveTabLogs, artifactsDir, FIND_NODE } from './helpers/mesh.js';

const token = newToken();
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon[]} */
const daemons = [];
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('playwright-core').BrowserContext} */
let context;
/** @type {import('./helpers/mesh.js').Tab[]} */
const tabs = [];

before(async () => {
  chromium = await launchChromium();
  context = await chromium.browser.newContext();
});

after(async () => {
  await saveTabLogs('tab-capabilities', tabs).catch(() => {});
  for (const [i, d] of daemons.entries()) writeFileSync(path.join(artifactsDir(), `tab-capabilities-daemon${i}.log`), d.log());
  await chromium?.close();
  for (const d of daemons) await d.stop();
});

/**
 * Evaluate on the daemon through its dashboard API (with the secret its page carries).
 * @param {import('../node-daemon/test/helpers/daemons.js').Daemon} d @param {string} code
 * @returns {Promise<string>} the printed value of the last expression
 */
async function apiEval(d, code) {
  const page = await (await fetch(`http://127.0.0.1:${d.port}/`)).text();
  const secret = /<meta name="termite-eval-secret" content="([^"]+)">/.exec(page)?.[1];
  assert.ok(secret, 'the dashboard page carries the dashboard secret');
  const res = await fetch(`http://127.0.0.1:${d.port}/api/eval`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-termite-eval': secret },
    body: JSON.stringify({ code }),
  });
  const r = await res.json();
  assert.equal(r.ok, true, `evaluation failed: ${JSON.stringify(r)}`);
  return r.outputs[r.outputs.length - 1];
}

/**
 * A daemon (with `args`), a tab joined to it, and on the daemon a counter process
 * (`victim`: counts the messages it gets, answers (count from) with the count).
 * @param {string[]} args
 */
async function daemonWithTab(args) {
  const d = await startDaemon({ token, args });
  daemons.push(d);
  const tab = await openTab(context, d.port);
  tabs.push(tab);
  await waitJoined(tab);
  const printed = await apiEval(d, `${FIND_NODE}
(define tab (find-node "${tab.id}"))
(define victim (spawn (lambda () (let loop ((n 0)) (recv (('count from) (! from n) (loop n)) (_ (loop (+ n 1))))))))
victim`);
  const m = /#<pid (\d+)@/.exec(printed);
  assert.ok(m, `not a pid: ${printed}`);
  return { d, tab, serial: Number(m[1]) };
}

/**
 * In the tab's worker: forge frames to the daemon (SEND 1, KILL 5 of
 * packages/runtime/src/distribution/frame-vocabulary.js; 99 is no frame type at all, and
 * its refusal comes back at once: the frames before it were handled).
 * @param {import('./helpers/mesh.js').Tab} tab @param {string} daemonId @param {any[][]} frames
 */
async function forge(tab, daemonId, frames) {
  const worker = tab.page.workers()[0];
  await worker.evaluate(([to, fs]) => {
    const t = /** @type {any} */ (self).termite;
    for (const f of fs) t.mesh.send(to, t.distribution.encode(f));
  }, /** @type {[string, any[][]]} */ ([daemonId, frames]));
}

/** The tab's log lines (its worker's, as the page shows them). @param {import('./helpers/mesh.js').Tab} tab */
async function tabLog(tab) {
  return (await tab.page.evaluate(() => /** @type {any} */ (window).termite.view.log.join('\n'))) ?? '';
}

test('a tab cannot send to or kill a daemon process whose pid it forged; it reaches one whose pid it was given', async () => {
  const { d, tab, serial } = await daemonWithTab([]);
  await forge(tab, d.id, [[1, d.id, serial, 'intrusion'], [5, d.id, serial], [99]]);
  const why = `SEND to process ${serial} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`;
  await waitFor(async () => (await tabLog(tab)).includes(`${d.id.slice(0, 12)} refused a frame from this node: ${why}`), 10000, 'the refusal of the forged SEND in the tab\'s log');
  await waitFor(async () => (await tabLog(tab)).includes('refused a frame from this node: unknown frame type 99'), 10000, 'the frames before the probe handled');
  assert.ok(d.log().includes(`frame from ${tab.id.slice(0, 12)} refused: ${why}`), 'the daemon logs the refusal');
  // the victim got nothing and was not killed
  assert.equal(await apiEval(d, '(process-alive? victim)'), '#t');
  assert.equal(await apiEval(d, "(begin (! victim (list 'count (self))) (recv (n n) (after 5 'timeout)))"), '0');
  // a pid the daemon gave the tab (in the closure it spawns there) reaches the process
  await apiEval(d, "(remote-spawn tab (lambda () (! victim 'from-the-tab)))");
  await waitFor(async () => (await apiEval(d, "(begin (! victim (list 'count (self))) (recv (n n) (after 5 'timeout)))")) === '1', 10000, 'the message from the tab');
});

test('with --trust-tabs, a tab is a daemon peer: the same forged SEND is delivered', async () => {
  const { d, tab, serial } = await daemonWithTab(['--trust-tabs']);
  await forge(tab, d.id, [[1, d.id, serial, 'forged'], [99]]);
  await waitFor(async () => (await tabLog(tab)).includes('refused a frame from this node: unknown frame type 99'), 10000, 'the frames before the probe handled');
  assert.equal(await apiEval(d, "(begin (! victim (list 'count (self))) (recv (n n) (after 5 'timeout)))"), '1');
  assert.ok(!(await tabLog(tab)).includes('is a restricted peer'));
});

/** The count of messages B's victim got (it answers (count from) with it). @param {import('../node-daemon/test/helpers/daemons.js').Daemon} d */
const countOn = (d) => apiEval(d, "(begin (! victim (list 'count (self))) (recv (n n) (after 5 'timeout)))");

/**
 * Daemons A (with a tab) and B (joined to A, with a counter process `victim` published as
 * the service `victim`); the tab reaches B through A.
 */
async function twoDaemonsWithTab() {
  const { d: a, tab } = await daemonWithTab([]);
  const b = await startDaemon({ token, join: [a.url] });
  daemons.push(b);
  const printed = await apiEval(b, `(define victim (spawn (lambda () (let loop ((n 0)) (recv (('count from) (! from n) (loop n)) (_ (loop (+ n 1))))))))
(publish-service 'victim victim)
victim`);
  const m = /#<pid (\d+)@/.exec(printed);
  assert.ok(m, `not a pid: ${printed}`);
  const worker = tab.page.workers()[0];
  await waitFor(() => worker.evaluate((id) => /** @type {any} */ (self).termite.mesh.isReachable(id), b.id), 15000, 'the tab reaching B through A');
  return { a, b, tab, serial: Number(m[1]) };
}

test('a tab reaching a second daemon through its own is restricted there: its routed SEND is refused', async () => {
  const { b, tab, serial } = await twoDaemonsWithTab();
  await forge(tab, b.id, [[1, b.id, serial, 'routed-intrusion'], [99]]);
  const why = `SEND to process ${serial} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`;
  await waitFor(async () => (await tabLog(tab)).includes(`${b.id.slice(0, 12)} refused a frame from this node: ${why}`), 10000, 'B\'s refusal of the routed SEND in the tab\'s log');
  await waitFor(async () => (await tabLog(tab)).includes(`${b.id.slice(0, 12)} refused a frame from this node: unknown frame type 99`), 10000, 'the frames before the probe handled');
  assert.ok(b.log().includes(`frame from ${tab.id.slice(0, 12)} refused: ${why}`), 'B logs the refusal');
  assert.equal(await countOn(b), '0');
});

test('a pid of the second daemon that its own daemon hands the tab is vouched for: the tab and its process on A reach it', async () => {
  const { a, b, tab, serial } = await twoDaemonsWithTab();
  // A hands the tab a thunk holding B's victim (A vouches for it to B); the tab spawns on A
  // a process that sends to it, as the tab
  await apiEval(a, `${FIND_NODE}
(define tab (find-node "${tab.id}"))
(define v (remote-service 'victim (find-node "${b.id}")))
(define here (current-node))
(remote-spawn tab (lambda () (remote-spawn here (lambda () (! v 'deputy)))))`);
  await waitFor(async () => (await countOn(b)) === '1', 15000, 'B taking the message of the tab\'s process on A');
  // the tab's own SEND to that pid, routed through A
  await forge(tab, b.id, [[1, b.id, serial, 'routed-vouched'], [99]]);
  await waitFor(async () => (await tabLog(tab)).includes(`${b.id.slice(0, 12)} refused a frame from this node: unknown frame type 99`), 10000, 'the frames before the probe handled');
  await waitFor(async () => (await countOn(b)) === '2', 10000, 'B taking the tab\'s routed SEND');
  const who = tab.id.slice(0, 12);
  assert.ok(!b.log().includes(`${who} is a restricted peer and was not given that pid`), 'B refused nothing of the tab');
  // A's own process reaches it too
  await apiEval(a, "(! v 'from-a)");
  await waitFor(async () => (await countOn(b)) === '3', 10000, 'the message from A\'s own process');
});

test('a local space of the second daemon that its own daemon hands the tab is vouched for: the tab\'s Linda operations on it are served', async () => {
  const { a, b, tab } = await twoDaemonsWithTab();
  await apiEval(b, '(define handed (make-space "handed-to-tab")) (out handed "key" 7) (make-space "never-handed")');
  // A hands the tab a thunk holding a reference to B's space (A vouches for it to B); the
  // tab reads it there and reports to a process of A
  await apiEval(a, `${FIND_NODE}
(define tab (find-node "${tab.id}"))
(define bnode (find-node "${b.id}"))
(define box (spawn (lambda () (let loop ((got '())) (recv (('get from) (! from got) (loop got)) (x (loop (cons x got))))))))
(define (try thunk) (lambda () (! box (guard (e (#t (list 'refused (error-object-message e)))) (thunk)))))
(define handed (remote-space "handed-to-tab" bnode))
(remote-spawn tab (try (lambda () (list 'read (rdp handed "key" ?integer)))))`);
  const got = () => apiEval(a, "(begin (! box (list 'get (self))) (recv (x x) (after 5 'timeout)))");
  await waitFor(async () => (await got()) !== '()', 15000, 'the tab\'s report');
  assert.equal(await got(), '((read ("key" 7)))');
  // a space of B it was not handed (named by A's thunk, not written to the tab: a name is no reference)
  await apiEval(a, '(remote-spawn tab (try (lambda () (rdp (remote-space "never-handed" bnode) "key" ?integer))))');
  await waitFor(async () => (await got()).startsWith('((refused'), 15000, 'the refusal of the space never handed');
  assert.match(await got(), /never-handed was not given to it/);
});
