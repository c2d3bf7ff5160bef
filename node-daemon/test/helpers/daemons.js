// @ts-check
/**
 * Real daemons for multi-node tests: each is a `termite-node` OS process on a free
 * loopback port (the daemon picks it: --port 0; its log line tells which), stopped by
 * PID. Programs run with `termite-node run FILE --join ...` as child processes too.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'termite-node.js');

/**
 * @typedef {object} Daemon
 * @property {number} pid
 * @property {number} port
 * @property {string} url ws://127.0.0.1:port
 * @property {string} id node id
 * @property {() => string} log what it printed so far
 * @property {(signal?: NodeJS.Signals) => Promise<void>} stop
 * @property {import('node:child_process').ChildProcess} child
 */

/**
 * `uid`: run it as that OS user (and group of the same number; the tests must run as root).
 * @param {{token: string, join?: string[], data?: string, env?: Record<string, string>, timeoutMs?: number, uid?: number, args?: string[]}} opts
 *   args: more command-line options (limits, origins)
 * @returns {Promise<Daemon>}
 */
export function startDaemon(opts) {
  const args = [bin, '--port', '0', '--token', opts.token, ...(opts.args ?? [])];
  for (const j of opts.join ?? []) args.push('--join', j);
  if (opts.data) args.push('--data', opts.data);
  const as = opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid };
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env }, ...as });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon did not start within ${opts.timeoutMs ?? 15000} ms:\n${out}`));
    }, opts.timeoutMs ?? 15000);
    const onData = () => {
      const m = /termite-node (\w+) listening on https?:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stderr.off('data', onData);
      const port = Number(m[2]);
      resolve({
        pid: /** @type {number} */ (child.pid),
        port,
        url: `ws://127.0.0.1:${port}`,
        id: m[1],
        child,
        log: () => out,
        stop: (signal = 'SIGTERM') => stopChild(child, signal),
      });
    };
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}:\n${out}`));
    });
  });
}

/**
 * Stop a child by PID: the signal, then SIGKILL if it is still alive after 5 s.
 * @param {import('node:child_process').ChildProcess} child @param {NodeJS.Signals} signal
 */
export function stopChild(child, signal) {
  return /** @type {Promise<void>} */ (new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill(signal);
  }));
}

/**
 * Run a program with `termite-node run` (joined to the given daemons); resolves with
 * its status and streams. Bounded by timeoutMs.
 * `source` is the program's text, or `{file}` to run a file as it is; `onStdout` sees
 * the output so far each time more arrives (to act in the middle of a run).
 * @param {string | {file: string}} source
 * @param {{token: string, join?: string[], env?: Record<string, string>, timeoutMs?: number, onStdout?: (all: string) => void, args?: string[]}} opts
 *   args: more command-line options (--lib, --publisher)
 * @returns {Promise<{status: number|null, stdout: string, stderr: string}>}
 */
export function runProgram(source, opts) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'termite-mesh-test-'));
  const file = typeof source === 'string' ? path.join(dir, 'prog.scm') : source.file;
  if (typeof source === 'string') writeFileSync(file, source);
  const args = [bin, 'run', file, '--token', opts.token, '--port', '0'];
  for (const j of opts.join ?? []) args.push('--join', j);
  args.push(...(opts.args ?? []));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    opts.onStdout?.(stdout);
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      resolve({ status, stdout, stderr });
    });
  });
}

/** @param {string} url @returns {Promise<any>} */
export async function health(url) {
  const res = await fetch(url.replace(/^ws/, 'http') + '/health');
  return res.json();
}

/** A fresh random token. */
export const newToken = () => `t-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;

/**
 * Wait until `cond()` holds, polling every 20 ms, for at most timeoutMs.
 * @param {() => boolean | Promise<boolean>} cond @param {number} [timeoutMs] @param {string} [what]
 */
export async function waitFor(cond, timeoutMs = 5000, what = 'condition') {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
