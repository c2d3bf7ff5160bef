// @ts-check
/**
 * POST /api/kill (node-daemon/src/http/process-api.js, docs/dashboard.md) against two
 * real daemons joined into one mesh (OS processes on free loopback ports, stopped by
 * PID): the request checks it shares with /api/eval (the dashboard secret, same origin,
 * JSON), a body naming no pid, an unknown node or process, and real kills — of a
 * process on the daemon asked, of one on the joined daemon, and of one that migrated
 * there — each gone from the node's listing (and from `process-alive?`) when 200 comes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, newToken, waitFor } from './helpers/daemons.js';
import { request, dashboardSecret, postAsDashboard } from './helpers/http.js';

/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
const token = newToken();
/** @type {Map<number, string>} */
const secrets = new Map();


/** @param {number} port @param {any} body @param {Record<string, string>} [headers] */
function kill(port, body, headers = {}) {
  return postAsDashboard(port, '/api/kill', body, String(secrets.get(port)), headers);
}

/** Evaluate on a daemon through its own dashboard API; the last output. @param {number} port @param {string} code */
async function evalOn(port, code) {
  const r = await postAsDashboard(port, '/api/eval', { code }, String(secrets.get(port)));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.ok, true, r.text);
  return String(r.json.outputs.at(-1));
}

/** The pids a daemon's snapshot lists on `nodeId`. @param {number} port @param {string} nodeId */
async function listedOn(port, nodeId) {
  const s = await request(port, { path: '/api/state' });
  const n = s.json.nodes.find((/** @type {any} */ x) => x.id === nodeId);
  return n && !n.unreachable ? n.processes.shown.map((/** @type {any} */ p) => p.pid) : null;
}

/** The serial of a pid as `write` shows it (#<pid N@NODE>). @param {string} text */
function serialOf(text) {
  const m = /^#<pid (\d+)@\w+>$/.exec(text);
  assert.ok(m, `a pid: ${text}`);
  return Number(m[1]);
}

/** A process that waits for messages forever, spawned at the REPL of `port`: its serial. @param {number} port */
async function sleeper(port) {
  return serialOf(await evalOn(port, '(define p (spawn (lambda () (let loop () (recv (x (loop))))))) p'));
}

before(async () => {
  b = await startDaemon({ token });
  a = await startDaemon({ token, join: [b.url] });
  for (const d of [a, b]) {
    secrets.set(d.port, await dashboardSecret(d.port));
  }
  await waitFor(async () => (await listedOn(a.port, b.id)) !== null, 10000, 'b in a\'s snapshot');
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

test('POST /api/kill takes the dashboard secret, same origin and JSON, as /api/eval does', async () => {
  const serial = await sleeper(a.port);
  const body = { pid: `${serial}@${a.id}` };
  const none = await kill(a.port, body, { 'x-termite-eval': '' });
  assert.equal(none.status, 401, none.text);
  assert.match(none.json.error, /dashboard secret/);
  const wrong = await kill(a.port, body, { 'x-termite-eval': 'guess' });
  assert.equal(wrong.status, 401, wrong.text);
  const cross = await kill(a.port, body, { origin: 'http://evil.example' });
  assert.equal(cross.status, 403, cross.text);
  const form = await request(a.port, { method: 'POST', path: '/api/kill', headers: { 'content-type': 'text/plain', 'x-termite-eval': String(secrets.get(a.port)) }, body: JSON.stringify(body) });
  assert.equal(form.status, 415, form.text);
  const got = await request(a.port, { path: '/api/kill' });
  assert.equal(got.status, 405);
  assert.equal(await evalOn(a.port, '(process-alive? p)'), '#t', 'no refused request killed it');
  await waitFor(async () => Boolean((await listedOn(a.port, a.id))?.includes(`${serial}@${a.id.slice(0, 8)}`)), 5000, 'the process still listed');
});

test('POST /api/kill: a body naming no pid is 400, an unknown node or process 404, each with the reason', async () => {
  for (const body of [{}, [], { pid: 'twelve' }, { pid: 12 }, { serial: -1, node: a.id }, { serial: 1.5, node: a.id }, { serial: 3 }, { pid: '3', at: 7 }]) {
    const r = await kill(a.port, body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.equal(r.json.ok, false);
    assert.equal(typeof r.json.error, 'string');
  }
  const noNode = await kill(a.port, { pid: '3@zzzzzzzz' });
  assert.equal(noNode.status, 404, noNode.text);
  assert.match(noNode.json.error, /no node zzzzzzzz is known here/);
  const noProc = await kill(a.port, { serial: 999999, node: a.id });
  assert.equal(noProc.status, 404, noProc.text);
  assert.match(noProc.json.error, new RegExp(`no process 999999@${a.id} on node ${a.id}`));
  const noRemote = await kill(a.port, { pid: `999999@${b.id.slice(0, 8)}` });
  assert.equal(noRemote.status, 404, noRemote.text);
  const byAddress = await kill(a.port, { pid: `999999@127.0.0.1:${b.port}` });
  assert.equal(byAddress.status, 404, byAddress.text);
  assert.match(byAddress.json.error, new RegExp(`on node ${b.id}`), 'HOST:PORT names the daemon there');
});

test('POST /api/kill terminates a process of this daemon: 200 once it is no longer listed', async () => {
  const serial = await sleeper(a.port);
  const row = `${serial}@${a.id.slice(0, 8)}`;
  await waitFor(async () => Boolean((await listedOn(a.port, a.id))?.includes(row)), 5000, 'the process listed');
  const r = await kill(a.port, { pid: row });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([r.json.ok, r.json.killed, r.json.node, r.json.at], [true, `${serial}@${a.id}`, a.id, a.id]);
  await waitFor(async () => (await listedOn(a.port, a.id))?.includes(row) === false, 1000, 'the process gone from the next snapshot');
  assert.equal(await evalOn(a.port, '(process-alive? p)'), '#f');
  const again = await kill(a.port, { pid: row });
  assert.equal(again.status, 404, 'a dead process is not there any more');
});

test('POST /api/kill terminates a process of the joined daemon, named by serial and node', async () => {
  const serial = await sleeper(b.port);
  const row = `${serial}@${b.id.slice(0, 8)}`;
  await waitFor(async () => Boolean((await listedOn(a.port, b.id))?.includes(row)), 5000, 'the process listed by a');
  const r = await kill(a.port, { serial, node: b.id });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.at, b.id);
  assert.equal(await evalOn(b.port, '(process-alive? p)'), '#f', 'dead on its own daemon');
});

test('POST /api/kill reaches a process that migrated to the other daemon (at: the node holding it)', async () => {
  const out = await evalOn(a.port, `(define m (spawn (lambda () (migrate (car (mesh-nodes))) (let loop () (recv (x (loop))))))) m`);
  const row = `${serialOf(out)}@${a.id.slice(0, 8)}`;
  await waitFor(async () => Boolean((await listedOn(a.port, b.id))?.includes(row)), 8000, 'the process listed on b after its migration');
  const r = await kill(a.port, { pid: row, at: b.id });
  assert.equal(r.status, 200, r.text);
  await waitFor(async () => (await listedOn(a.port, b.id))?.includes(row) === false, 1000, 'the process gone from the next snapshot');
});
