// @ts-check
/**
 * An operator's approval of a library publisher the daemon does not trust: the install
 * is refused with the way to approve it and the publisher is listed on the dashboard
 * (/api/state) as waiting for approval; `termite-node trust add ID --data DIR` adds it to
 * DIR/trust, which the running daemon reads again, so the next attempt installs it; with
 * --approval-wait the install waits instead, and the dashboard's POST
 * /api/libraries/approve (the approve button's request, with the dashboard secret) lets
 * it go on and keeps the approval in DATA/trust. Daemons are OS processes on free
 * loopback ports, stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startDaemon, runProgram, newToken, waitFor, bin } from './helpers/daemons.js';
import { request, dashboardSecret, postAsDashboard } from './helpers/http.js';
import { libraryWorkspace } from './helpers/library-workspace.js';

const { tmp, publisher, started, publishing: runArgs } = await libraryWorkspace('termite-approval-test-', {
  'foo/bar@1.0.sld': `(define-library (foo bar@1.0) (export greet) (import (scheme base)) (begin (define (greet x) (list 'v1.0 x))))`,
});

/** A program that calls the library's greet on the daemon on `port`. @param {number} port */
const calling = (port) => `(import (scheme base) (scheme write) (termite) (foo bar@1.0))
(define there (make-node "127.0.0.1" ${port}))
(write (on there (lambda () (greet 7)))) (newline)`;


/** This daemon's own snapshot in /api/state. @param {import('./helpers/daemons.js').Daemon} d */
async function ownSnapshot(d) {
  const s = await request(d.port, { path: '/api/state' });
  return (s.json?.nodes ?? []).find((/** @type {any} */ n) => n.id === d.id) ?? null;
}

test('refused, listed as waiting for approval; `termite-node trust add` approves it for the running daemon (kept in DATA/trust)', async () => {
  const token = newToken();
  const data = path.join(tmp, 'data-cli');
  const b = await startDaemon({ token, data });
  started.push(b);
  const first = await runProgram(calling(b.port), { token, join: [b.url], args: runArgs });
  assert.notEqual(first.status, 0);
  assert.match(first.stderr, new RegExp(`library \\(foo bar\\) version 1\\.0 is published by ${publisher.id}, whom this node does not trust .*termite-node trust add ${publisher.id}`));
  // the dashboard lists it as waiting for an approval
  await waitFor(async () => ((await ownSnapshot(b))?.libraryApprovals ?? []).length > 0, 10000, 'the waiting publisher on the dashboard');
  const waiting = (await ownSnapshot(b)).libraryApprovals;
  assert.deepEqual(waiting.map((/** @type {any} */ w) => [w.publisher, w.libraries]), [[publisher.id, ['(foo bar)@1.0']]]);
  // the operator approves it on the command line
  const bad = spawnSync(process.execPath, [bin, 'trust', 'add', 'not-a-key', '--data', data], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /expects a publisher's node id .* got not-a-key/);
  const noData = spawnSync(process.execPath, [bin, 'trust', 'add', publisher.id], { encoding: 'utf8' });
  assert.equal(noData.status, 2);
  assert.match(noData.stderr, /trust add needs --data DIR/);
  const add = spawnSync(process.execPath, [bin, 'trust', 'add', publisher.id, '--data', data], { encoding: 'utf8' });
  assert.equal(add.status, 0, add.stderr);
  assert.match(add.stdout, new RegExp(`publisher ${publisher.id} is trusted`));
  assert.match(readFileSync(path.join(data, 'trust'), 'utf8'), new RegExp(`^${publisher.id}  # approved`, 'm'));
  // the running daemon reads DATA/trust again: the next attempt installs it
  const second = await runProgram(calling(b.port), { token, join: [b.url], args: runArgs });
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.stdout.trim(), '(v1.0 7)');
  // the dashboard samples the node about once a second: a sample taken after the install
  await waitFor(async () => ((await ownSnapshot(b))?.libraryApprovals ?? []).length === 0, 10000, 'the publisher no longer waiting on the dashboard');
});

test('with --approval-wait the install waits; the dashboard\'s approve request lets it go on and keeps the approval in DATA/trust', async () => {
  const token = newToken();
  const data = path.join(tmp, 'data-dashboard');
  const b = await startDaemon({ token, data, args: ['--approval-wait', '60'] });
  started.push(b);
  const secret = await dashboardSecret(b.port);
  const approve = (/** @type {any} */ body, /** @type {string} */ s = secret) => postAsDashboard(b.port, '/api/libraries/approve', body, s);
  // the request changes who may run code here: it takes the secret, and a well-formed id
  assert.equal((await approve({ publisher: publisher.id }, 'wrong')).status, 401);
  const malformed = await approve({ publisher: 'nope' });
  assert.equal(malformed.status, 400);
  assert.match(malformed.json.error, /node id .* got nope/);
  // the program's call waits for the approval (its answer comes once approved)
  const run = runProgram(calling(b.port), { token, join: [b.url], args: runArgs, timeoutMs: 60000 });
  await waitFor(() => /waits for an operator's approval/.test(b.log()), 30000, 'the install waiting');
  /** @type {any[]} */
  let waiting = [];
  // a dashboard sample taken since the install began to wait (about one a second)
  await waitFor(async () => (waiting = (await ownSnapshot(b))?.libraryApprovals ?? []).length > 0, 10000, 'the waiting install on the dashboard');
  assert.equal(waiting[0]?.publisher, publisher.id);
  assert.equal(waiting[0]?.waiting, 1);
  const ok = await approve({ publisher: publisher.id });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.json, { ok: true, publisher: publisher.id, persisted: true });
  const r = await run;
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '(v1.0 7)');
  assert.match(readFileSync(path.join(data, 'trust'), 'utf8'), new RegExp(`^${publisher.id}  # approved .*the dashboard`, 'm'));
});
