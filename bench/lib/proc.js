// @ts-check
/**
 * Child processes for benchmarks: started with a time limit, stopped by PID.
 *
 * Every child is started in its own process group (`detached`), so stopping it by its
 * PID also stops what it started in its group (erl's helper processes): SIGTERM to the
 * group, then SIGKILL after a grace period. A child that is a benchmark script using
 * this module handles that SIGTERM by stopping its own children the same way. On
 * SIGINT/SIGTERM this process stops its children so before exiting; at exit, any child
 * still running gets SIGKILL. Always one by one, by recorded PID; never by name.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Output kept per stream (the tail), so a chatty child cannot exhaust memory. */
const KEEP_BYTES = 1 << 20;

/**
 * @typedef {object} ChildHandle
 * @property {number} pid
 * @property {import('node:child_process').ChildProcess} child
 * @property {Promise<{code: number|null, signal: string|null}>} exited
 * @property {() => boolean} running
 * @property {() => string} stdout everything printed so far (its last MiB)
 * @property {() => string} stderr
 * @property {(opts?: {graceMs?: number}) => Promise<void>} stop
 */

/** @type {Set<ChildHandle>} */
const live = new Set();
let hooksInstalled = false;
/** Set on SIGINT/SIGTERM: no new child starts after that. */
let stopping = false;

function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const h of live) killGroup(h.pid, 'SIGKILL');
  });
  // On SIGINT/SIGTERM: SIGTERM to each child's group first, so a child that is itself
  // a benchmark script can stop its own children (they are in groups of their own),
  // then SIGKILL after the grace period.
  for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
    process.once(sig, () => {
      stopping = true;
      void stopAllChildren().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
    });
  }
}

/**
 * Signal a child's process group (it is its leader), falling back to the PID alone.
 * @param {number} pid @param {NodeJS.Signals} sig
 */
function killGroup(pid, sig) {
  try {
    process.kill(-pid, sig);
    return;
  } catch {
    // no such group (already gone), or not a group leader
  }
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Start a child process in its own process group.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, onLine?: (line: string, stream: 'stdout'|'stderr') => void, input?: string}} [opts]
 * @returns {ChildHandle}
 */
export function startChild(cmd, args, opts = {}) {
  installHooks();
  if (stopping) throw new Error(`not starting ${cmd}: this process is stopping`);
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: [opts.input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1; // undefined when the spawn failed ('error' follows)
  let out = '';
  let err = '';
  let done = false;
  /** @type {Record<string, string>} */
  const partial = { stdout: '', stderr: '' };
  /** @param {'stdout'|'stderr'} stream @param {string} chunk */
  const onData = (stream, chunk) => {
    if (stream === 'stdout') out = (out + chunk).slice(-KEEP_BYTES);
    else err = (err + chunk).slice(-KEEP_BYTES);
    if (opts.onLine) {
      const lines = (partial[stream] + chunk).split('\n');
      partial[stream] = /** @type {string} */ (lines.pop());
      for (const line of lines) opts.onLine(line, stream);
    }
  };
  child.stdout?.setEncoding('utf8').on('data', (c) => onData('stdout', c));
  child.stderr?.setEncoding('utf8').on('data', (c) => onData('stderr', c));
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  /** @type {ChildHandle} */
  const handle = {
    pid,
    child,
    exited: new Promise((resolve) => {
      const finish = (/** @type {number|null} */ code, /** @type {string|null} */ signal) => {
        if (done) return;
        done = true;
        live.delete(handle);
        if (opts.onLine) {
          for (const s of /** @type {const} */ (['stdout', 'stderr'])) if (partial[s]) opts.onLine(partial[s], s);
        }
        resolve({ code, signal });
      };
      child.on('close', (code, signal) => finish(code, signal));
      child.on('error', (e) => {
        err += `\n${e.message}`;
        finish(null, null);
      });
    }),
    running: () => !done,
    stdout: () => out,
    stderr: () => err,
    stop: (o = {}) => stopChild(handle, o),
  };
  if (pid > 0) live.add(handle);
  return handle;
}

/**
 * Stop a child by its PID: SIGTERM to its process group, SIGKILL after `graceMs`.
 * Resolves once it has exited (or 5 s after SIGKILL, whichever is first).
 * @param {ChildHandle} h @param {{graceMs?: number}} [opts]
 */
export async function stopChild(h, opts = {}) {
  if (!h.running() || h.pid <= 0) return;
  const graceMs = opts.graceMs ?? 2000;
  killGroup(h.pid, 'SIGTERM');
  if (await exitsWithin(h, graceMs)) return;
  killGroup(h.pid, 'SIGKILL');
  await exitsWithin(h, 5000);
}

/** @param {ChildHandle} h @param {number} ms @returns {Promise<boolean>} */
function exitsWithin(h, ms) {
  /** @type {NodeJS.Timeout|undefined} */
  let timer;
  return Promise.race([
    h.exited.then(() => true),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * @typedef {object} ChildResult
 * @property {number|null} code
 * @property {string|null} signal
 * @property {boolean} timedOut
 * @property {string} stdout
 * @property {string} stderr
 * @property {number} ms wall time
 */

/**
 * Run a child to completion, stopping it by PID if it is still running after `timeoutMs`.
 * @param {string} cmd @param {string[]} args
 * @param {{timeoutMs: number, cwd?: string, env?: NodeJS.ProcessEnv, onLine?: (line: string, stream: 'stdout'|'stderr') => void, input?: string}} opts
 * @returns {Promise<ChildResult>}
 */
export async function runChild(cmd, args, opts) {
  const t0 = performance.now();
  const h = startChild(cmd, args, opts);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stopChild(h);
  }, opts.timeoutMs);
  const { code, signal } = await h.exited;
  clearTimeout(timer);
  // the leader is gone; make sure nothing it started is left in its group
  killGroup(h.pid, 'SIGKILL');
  return { code, signal, timedOut, stdout: h.stdout(), stderr: h.stderr(), ms: performance.now() - t0 };
}

/** Stop every child still running (each by its PID). */
export async function stopAllChildren() {
  await Promise.all([...live].map((h) => stopChild(h)));
}

/**
 * A TCP port that was free a moment ago on `host`.
 * @param {string} [host]
 * @returns {Promise<number>}
 */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The full path of an executable on PATH, or null.
 * @param {string} cmd
 * @returns {string|null}
 */
export function which(cmd) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, cmd);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Wait until `pred()` is true, polling every `stepMs`, at most `timeoutMs`.
 * @param {() => boolean | Promise<boolean>} pred @param {number} timeoutMs @param {number} [stepMs]
 * @returns {Promise<boolean>} whether it became true
 */
export async function waitFor(pred, timeoutMs, stepMs = 50) {
  const end = performance.now() + timeoutMs;
  for (let i = 0; i < 1e6; i++) {
    if (await pred()) return true;
    if (performance.now() >= end) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return false;
}
