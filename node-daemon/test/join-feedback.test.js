// @ts-check
/**
 * Joining a mesh from the command line: no token, a wrong token and an unreachable node
 * are three different messages, `run` exits 1 on each (before running the program)
 * unless --continue-alone, and the daemon logs a peer joining and leaving. Real daemons
 * on free loopback ports; the CLI in child processes, each bounded in time.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import net from 'node:net';
import { bin, startDaemon, newToken, waitFor } from './helpers/daemons.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let daemon;
const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-join-'));
const prog = path.join(dir, 'prog.scm');
writeFileSync(prog, '(display "ran")\n');

before(async () => {
  daemon = await startDaemon({ token });
});
after(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** @param {string[]} args @param {Record<string, string|undefined>} [env] */
function run(args, env = {}) {
  const e = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete e[k];
  const r = spawnSync(process.execPath, [bin, 'run', prog, ...args], { encoding: 'utf8', timeout: 30000, env: e });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A loopback port nothing listens on. @returns {Promise<number>} */
function closedPort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = /** @type {net.AddressInfo} */ (s.address()).port;
      s.close(() => resolve(port));
    });
  });
}

test('no token: "no token given", exit 1, the program does not run', () => {
  const r = run(['--join', daemon.url], { TERMITE_TOKEN: undefined });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /no token given/);
  assert.doesNotMatch(r.stderr, /wrong token|bad token/);
  assert.equal(r.stdout, '');
});

test('a wrong token: "wrong token", exit 1, not blamed on the daemon', () => {
  const r = run(['--join', daemon.url, '--token', 'not-the-token']);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot join ws:\/\/127\.0\.0\.1:\d+: wrong token/);
  assert.doesNotMatch(r.stderr, /does not know the mesh token/);
  assert.equal(r.stdout, '');
});

test('an unreachable node: "unreachable", exit 1; --continue-alone runs the program anyway', async () => {
  const url = `ws://127.0.0.1:${await closedPort()}`;
  const r = run(['--join', url, '--token', token]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /unreachable \(connect ECONNREFUSED/);
  assert.equal(r.stdout, '');
  const alone = run(['--join', url, '--token', token, '--continue-alone']);
  assert.equal(alone.status, 0, alone.stderr);
  assert.equal(alone.stdout, 'ran');
  assert.match(alone.stderr, /unreachable/);
});

test('the right token: the program runs and the daemon logs the peer joining and leaving', async () => {
  const r = run(['--join', daemon.url, '--token', token]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'ran');
  await waitFor(() => /peer \w+ left/.test(daemon.log()), 5000, 'the peer-left line');
  assert.match(daemon.log(), /peer \w+ joined \(tcp/);
});

test('a daemon whose --join fails logs why and keeps serving', async () => {
  const other = await startDaemon({ token: 'another-token', join: [daemon.url] });
  try {
    await waitFor(() => /cannot join ws:\/\/127\.0\.0\.1:\d+: wrong token/.test(other.log()), 5000, 'the wrong-token line');
    const res = await fetch(`http://127.0.0.1:${other.port}/health`);
    assert.equal((await res.json()).ok, true);
  } finally {
    await other.stop();
  }
});

test('links between daemons are TLS by default: `run --insecure` at an encrypted daemon is refused with "encryption required", and the daemon logs it', async () => {
  const r = run(['--join', daemon.url, '--token', token, '--insecure']);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot join ws:\/\/127\.0\.0\.1:\d+: refused \(.*encryption required/);
  await waitFor(() => /plain TCP link refused: this node requires encryption/.test(daemon.log()), 5000, 'the refusal in the daemon log');
  const ok = run(['--join', daemon.url, '--token', token]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, 'ran', 'the daemon kept serving, and an encrypted run joins');
});
