// @ts-check
/**
 * The termite-node command line (node-daemon/README.md, "Command line"): `run` exit statuses and streams, the
 * REPL over a pipe (and `(exit code)` in it), --help and bad options (an empty token for
 * every command), a start that fails part way. Each test runs the real CLI in a child
 * process with a time limit.
 */
import { test } from 'node:test';
import net from 'node:net';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'termite-node.js');

/** @param {string[]} args @param {{input?: string, env?: Record<string,string>}} [opts] */
function cli(args, opts = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { input: opts.input ?? '', encoding: 'utf8', timeout: 30000, env: { ...process.env, ...opts.env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** @param {string} source */
function program(source) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-cli-'));
  const file = path.join(dir, 'prog.scm');
  writeFileSync(file, source);
  return { file, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('run prints what the program displays and exits 0 when it returns', () => {
  const p = program('(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))\n(display (fact 25))\n(newline)\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '15511210043330985984000000\n');
  } finally {
    p.cleanup();
  }
});

test('run exits as soon as the main process returns, with servers still running', () => {
  const p = program('(spawn (lambda () (let loop () (? ) (loop))))\n(spawn (lambda () (let spin () (spin))))\n(display "done")\n');
  try {
    const t0 = Date.now();
    const r = cli(['run', p.file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'done');
    assert.ok(Date.now() - t0 < 20000);
  } finally {
    p.cleanup();
  }
});

test('an uncaught error prints the procedure and the source location on stderr and exits 1', () => {
  const p = program('(display "before")\n(newline)\n(define (f v)\n  (vector-ref v 5))\n(f (vector 1 2))\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, 'before\n');
    assert.match(r.stderr, /vector-ref/);
    assert.match(r.stderr, /prog\.scm:4:3/);
  } finally {
    p.cleanup();
  }
});

test('the death of another process does not change the exit status', () => {
  const p = program('(spawn (lambda () (car 1)))\n(sleep 0.05)\n(display "ok")\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ok');
  } finally {
    p.cleanup();
  }
});

test('exit gives its code to the process', () => {
  const p = program('(display "x")\n(exit 3)\n(display "never")\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 3);
    assert.equal(r.stdout, 'x');
  } finally {
    p.cleanup();
  }
});

test('a syntax error is reported with its location and exit status 1', () => {
  const p = program('(define (f x)\n  (let ((y)) y))\n');
  try {
    const r = cli(['run', p.file]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /prog\.scm:2:3/);
  } finally {
    p.cleanup();
  }
});

test('the REPL keeps definitions, continues incomplete input, survives errors and runs processes', () => {
  const input = [
    '(define x 10)',
    '(+ x',
    '   5)',
    '(car 1)',
    '(define p (spawn (lambda () (let ((m (?))) (! (car m) (* 2 (cdr m)))))))',
    '(! p (cons (self) 21))',
    '(?)',
    '(string-append "a" "b")',
    ',quit',
    '',
  ].join('\n');
  const r = cli(['repl'], { input });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /15/);
  assert.match(r.stdout, /Error: car: expected a pair/);
  assert.match(r.stdout, /42/);
  assert.match(r.stdout, /"ab"/);
});

test('--help documents the commands and options; a bad option exits 2 with the reason', () => {
  const help = cli(['--help']);
  assert.equal(help.status, 0);
  for (const word of ['run', 'repl', '--port', '--join', '--token', '--data']) assert.ok(help.stdout.includes(word), word);
  const bad = cli(['--port', 'eighty']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--port must be an integer/);
});

test('the package entry point (import "termite-node") starts a node that serves /health and stops', async () => {
  const lib = await import('termite-node');
  for (const name of ['startHost', 'startDaemon', 'runFile', 'startRepl', 'main', 'parseCommandLine']) assert.equal(typeof lib[name], 'function', name);
  const host = await lib.startHost({ host: '127.0.0.1', port: 0, join: [], token: undefined, data: undefined, stdout: () => {}, log: () => {} });
  try {
    const health = await (await fetch(`${host.url}/health`, { signal: AbortSignal.timeout(10000) })).json();
    assert.equal(health.ok, true);
    assert.equal(health.id, host.identity.id);
  } finally {
    await host.stop();
  }
});

test('(exit code) in the REPL leaves it with that status; what came before is printed, what came after is not run', () => {
  const r = cli(['repl'], { input: '(define x 4)\n(display "bye")\n(exit (+ x 3))\n(display "never")\n' });
  assert.equal(r.status, 7, r.stderr);
  assert.match(r.stdout, /bye/);
  assert.doesNotMatch(r.stdout, /never/);
  assert.equal(cli(['repl'], { input: '(exit)\n' }).status, 0);
  assert.equal(cli(['repl'], { input: '(exit #f)\n' }).status, 1);
});

test('an empty --token or $TERMITE_TOKEN is refused with status 2 and a clear message, for the daemon, run and repl, and nothing keeps running', () => {
  const p = program('(display "never")\n');
  try {
    const runs = [
      ['daemon', ['--port', '0', '--token', ''], {}],
      ['daemon --token=', ['--port', '0', '--token='], {}],
      ['run', ['run', p.file, '--port', '0', '--token', ''], {}],
      ['run, no mesh', ['run', p.file, '--token', ''], {}],
      ['repl', ['repl', '--token', ''], {}],
      ['daemon, TERMITE_TOKEN=""', ['--port', '0'], { TERMITE_TOKEN: '' }],
      ['run, TERMITE_TOKEN=""', ['run', p.file, '--port', '0'], { TERMITE_TOKEN: '' }],
    ];
    for (const [what, args, env] of runs) {
      // spawnSync's timeout would kill a process that kept running: its status would be null
      const r = cli(/** @type {string[]} */ (args), { input: '(display "never")\n', env: /** @type {Record<string, string>} */ (env) });
      assert.equal(r.status, 2, `${what}: ${r.stderr}`);
      assert.match(r.stderr, /(--token|TERMITE_TOKEN).*(must not be empty|is set but empty)/, what);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${what}: no stack trace`);
      assert.doesNotMatch(r.stdout, /never|listening/, `${what}: nothing ran`);
    }
  } finally {
    p.cleanup();
  }
});

test('startHost refuses an empty token, and a start that fails after listening releases the port', async () => {
  const lib = await import('termite-node');
  const base = { host: '127.0.0.1', join: [], data: undefined, stdout: () => {}, log: () => {} };
  await assert.rejects(lib.startHost({ ...base, port: 0, token: '' }), /must not be empty/);
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(free));
    });
  });
  // an option the mesh refuses: the server was listening by then
  await assert.rejects(lib.startHost({ ...base, port, token: 't', peerTimeoutMs: -1 }), /peerTimeoutMs/);
  const again = net.createServer();
  await new Promise((resolve, reject) => {
    again.once('error', reject);
    again.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  await new Promise((resolve) => again.close(() => resolve(undefined)));
});

test('a node that cannot start says why on stderr and exits (daemon and run), without a stack trace', async () => {
  const p = program('(display "never")\n');
  const taken = net.createServer();
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = String(/** @type {net.AddressInfo} */ (taken.address()).port);
  try {
    for (const args of [['--port', port, '--token', 't'], ['run', p.file, '--port', port, '--token', 't']]) {
      const r = cli(args);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /termite-node: cannot start.*EADDRINUSE/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.equal(r.stdout, '');
    }
  } finally {
    taken.close();
    p.cleanup();
  }
});
