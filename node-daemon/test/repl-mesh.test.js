// @ts-check
/**
 * The REPL as a node of a mesh, and seeing and stopping processes: `repl --join URL
 * --token T` (in a real pseudo-terminal) joins a real daemon, spawns there and sees
 * that process's output, lists the daemon's processes with `,ps HOST:PORT` and
 * kills one with `,kill`; a failed join ends the REPL with status 1 and the reason;
 * `termite-node ps` and `kill PID` list and terminate a daemon's process from the
 * command line (exit 1 for a process that is not there).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startPty } from './helpers/pty.js';
import { bin, startDaemon, newToken, runProgram } from './helpers/daemons.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let daemon;
before(async () => {
  daemon = await startDaemon({ token });
});
after(async () => {
  await daemon?.stop();
});

/** @param {string[]} args */
function cli(args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30000, env: process.env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the REPL joins a daemon: spawns there, sees its output, lists and kills its processes', async () => {
  const t = startPty(process.execPath, [bin, 'repl', '--join', daemon.url, '--token', token], { env: { TERMITE_HISTORY: '/dev/null' } });
  try {
    await t.expect(/termite> $/, 15000);
    let at = t.mark();
    t.type('(define d (car (mesh-nodes)))\r');
    await t.expect(/termite> $/, 15000, at);
    at = t.mark();
    t.type('(remote-spawn d (lambda () (display "hello from the daemon")))\r');
    await t.expect(/hello from the daemon/, 10000, at);
    at = t.mark();
    t.type('(define w (remote-spawn d (lambda () (let idle () (?) (idle)))))\r');
    await t.expect(/termite> $/, 15000, at);
    at = t.mark();
    t.type('(pid-node w)\r');
    await t.expect(/#<node 127\.0\.0\.1:\d+>\ntermite> $/, 15000, at);
    at = t.mark();
    t.type(`,ps 127.0.0.1:${daemon.port}\r`);
    await t.expect(/: 1 process\nPID\s+NAME\s+STATE\n(\d+)@\w+\s+\S+\s+waiting-message\ntermite> $/, 10000, at);
    const pid = /\n(\d+@\w+)\s/.exec(t.text().slice(at))?.[1];
    assert.ok(pid, 'a pid in the listing');
    at = t.mark();
    t.type(`,kill ${pid}\r`);
    await t.expect(/killed #<pid \d+@\w+>\ntermite> $/, 10000, at);
    at = t.mark();
    t.type(`,ps ${daemon.id.slice(0, 6)}\r`);
    await t.expect(/: 0 processes\n/, 10000, at);
    t.type(',quit\r');
    assert.equal(await t.exited, 0);
  } finally {
    t.kill();
  }
});

test('a REPL whose join fails says why and exits 1', () => {
  const r = spawnSync(process.execPath, [bin, 'repl', '--join', daemon.url, '--token', 'wrong'], { input: '(+ 1 2)\n', encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /wrong token/);
  assert.equal(r.stdout, '');
});

test('termite-node ps lists a daemon\'s processes and kill PID terminates one; a missing pid exits 1', async () => {
  const r = await runProgram('(display (remote-spawn (car (mesh-nodes)) (lambda () (let idle () (?) (idle)))))\n', { token, join: [daemon.url] });
  assert.equal(r.status, 0, r.stderr);
  const printed = /^#<pid (\d+)@(\w+)>$/.exec(r.stdout);
  assert.ok(printed, r.stdout);
  const ps = cli(['ps', '--node', daemon.url, '--token', token]);
  assert.equal(ps.status, 0, ps.stderr);
  assert.match(ps.stdout, new RegExp(`^node ${daemon.id} \\(127\\.0\\.0\\.1:${daemon.port}\\): 1 process\\n`));
  assert.match(ps.stdout, new RegExp(`\\n${printed[1]}@${daemon.id.slice(0, 8)}\\s+\\S+\\s+waiting-message`));
  const kill = cli(['kill', r.stdout, '--node', daemon.url, '--token', token]);
  assert.equal(kill.status, 0, kill.stderr);
  assert.match(kill.stdout, /^killed #<pid \d+@\w+>\n$/);
  assert.match(cli(['ps', '--node', daemon.url, '--token', token]).stdout, /: 0 processes\n/);
  const again = cli(['kill', printed[1], '--node', daemon.url, '--token', token]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, new RegExp(`no process ${printed[1]} on node`));
  const wrong = cli(['ps', '--node', daemon.url, '--token', 'wrong']);
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /wrong token/);
});
