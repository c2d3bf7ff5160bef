// @ts-check
/**
 * The logical network of messengers in the dashboard's samples (/api/state; the
 * `logical` field of a node's snapshot, packages/runtime/src/distribution/
 * dashboard-sampling.js) against two real daemons joined into one mesh: the
 * shortest-path example run on one of them builds its 8×8 mesh of logical nodes over
 * both, and each daemon's sample lists its own logical nodes with their links, weights
 * and messenger counts; a node that builds more than the bound lists the first 256
 * logical nodes and counts them all; a node without logical nodes has no `logical`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startDaemon, newToken, waitFor } from './helpers/daemons.js';
import { request, dashboardSecret, postAsDashboard } from './helpers/http.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
/** @type {import('./helpers/daemons.js').Daemon} */
let c;
const token = newToken();
/** @type {Map<number, string>} */
const secrets = new Map();


/** @param {number} port @param {string} code */
async function evalOn(port, code) {
  const r = await postAsDashboard(port, '/api/eval', { code }, String(secrets.get(port)));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.ok, true, r.text);
  return /** @type {string[]} */ (r.json.outputs);
}

/** The snapshots in a daemon's /api/state, by node id. @param {number} port */
async function nodesOf(port) {
  const r = await request(port, { path: '/api/state' });
  assert.equal(r.status, 200, r.text);
  return new Map(r.json.nodes.map((/** @type {any} */ n) => [n.id, n]));
}

before(async () => {
  b = await startDaemon({ token });
  a = await startDaemon({ token, join: [b.url] });
  c = await startDaemon({ token });
  for (const d of [a, b, c]) {
    secrets.set(d.port, await dashboardSecret(d.port));
  }
  await waitFor(async () => Boolean((await nodesOf(a.port)).get(b.id)?.processes), 10000, 'b in a\'s samples');
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
});

test('the shortest-path example\'s logical mesh is in the samples of both daemons, with links, weights and messengers', async () => {
  const none = await nodesOf(a.port);
  assert.equal(none.get(a.id).logical, undefined, 'no logical nodes yet: no logical field');
  const program = readFileSync(path.join(root, 'examples/messengers/shortest-path.scm'), 'utf8');
  const out = await evalOn(a.port, program);
  assert.ok(out.some((o) => o.includes('(same as sequential #t)')), out.join('\n'));
  assert.ok(out.some((o) => o.includes('on 2 physical nodes')), out.join('\n'));
  /** @type {Map<string, any>} */
  let nodes = new Map();
  // a sample taken while the walk ran (samples are shared, 250 ms at most old) may still
  // count walkers: wait for one taken after it, where every walker has ended
  const ended = (/** @type {any} */ l) => l.nodes.every((/** @type {any} */ n) => n.messengers === 0);
  await waitFor(async () => {
    nodes = await nodesOf(a.port);
    const la = nodes.get(a.id)?.logical;
    const lb = nodes.get(b.id)?.logical;
    return Boolean(la && lb && ended(la) && ended(lb));
  }, 5000, 'both daemons report their logical nodes, every walker ended');
  /** @type {Map<string, any>} logical node address → {name, links, messengers, host} */
  const all = new Map();
  for (const id of [a.id, b.id]) {
    const l = nodes.get(id).logical;
    assert.equal(l.total.nodes, l.nodes.length, 'all listed: under the bound');
    for (const ln of l.nodes) {
      assert.ok(ln.address.startsWith(`@${id}/`), 'a logical node is listed by the physical node that holds it');
      all.set(ln.address, { ...ln, host: id });
    }
    assert.ok(l.stats.creates > 0 && typeof l.stats.hops === 'number');
  }
  const cells = [...all.values()].filter((n) => /^n\d-\d$/.test(n.name));
  assert.equal(cells.length, 64);
  assert.deepEqual(new Set(cells.map((n) => n.host)), new Set([a.id, b.id]), 'columns striped over both daemons');
  const byName = new Map(cells.map((n) => [n.name, n]));
  // n0-0 —h→ n0-1 with weight hw(0,0) = 1 + (3 mod 9) = 4, both ways; n0-0 —v→ n1-0, vw(0,0) = 2
  const n00 = byName.get('n0-0');
  const h = n00.links.find((/** @type {any} */ k) => k.to === byName.get('n0-1').address);
  assert.deepEqual([h.name, h.weight], ['h', 4]);
  const back = byName.get('n0-1').links.find((/** @type {any} */ k) => k.to === n00.address);
  assert.deepEqual([back.name, back.weight], ['h', 4]);
  const v = n00.links.find((/** @type {any} */ k) => k.to === byName.get('n1-0').address);
  assert.deepEqual([v.name, v.weight], ['v', 2]);
  // a link across the two daemons: column 3 on a, column 4 on b
  const across = byName.get('n0-3').links.find((/** @type {any} */ k) => k.to === byName.get('n0-4').address);
  assert.ok(across && byName.get('n0-3').host !== byName.get('n0-4').host);
  assert.ok(cells.every((n) => n.messengers === 0), 'every walker has ended');
});

test('messengers residing on a logical node are counted in the samples', async () => {
  await evalOn(c.port, `(inject-and-wait (lambda () (create 'node 'waiting-room)))
(define (waiter) (hop 'node 'waiting-room) (wait-until 'go (lambda (v) v)))
(inject waiter) (inject waiter)`);
  await waitFor(async () => {
    const l = (await nodesOf(c.port)).get(c.id)?.logical;
    return l?.nodes.find((/** @type {any} */ n) => n.name === 'waiting-room')?.messengers === 2;
  }, 5000, 'two messengers on waiting-room');
});

test('a node with more logical nodes than the bound lists the first 256 and counts them all', async () => {
  await evalOn(c.port, `(inject-and-wait (lambda () (let loop ((i 0)) (when (< i 300) (create 'node (string->symbol (string-append "k" (number->string i))) 'link 'l) (hop 'node 'init) (loop (+ i 1))))))`);
  /** @type {any} */
  let l;
  await waitFor(async () => {
    l = (await nodesOf(c.port)).get(c.id)?.logical;
    return l?.total.nodes >= 302;
  }, 5000, 'the 300 nodes counted');
  assert.equal(l.nodes.length, 256);
  assert.ok(l.total.links >= 600, `links counted: ${l.total.links}`);
  assert.ok(l.nodes.reduce((s, /** @type {any} */ n) => s + n.links.length, 0) <= 1024, 'at most 1024 links listed');
});
