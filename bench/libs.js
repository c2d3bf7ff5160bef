#!/usr/bin/env node
// @ts-check
/**
 * Versioned mobile libraries: the Termite module-system paper's evaluation (its
 * section 6, Figures 7–9) reproduced, and hot update under load (BENCHMARKS.md,
 * "Versioned libraries").
 *
 *   node bench/libs.js [PREFIX]        (npm run bench -- libs)
 *
 *   libs.interpreted.{4k,40k,400k}   ms  the whole program interpreted by BiwaScheme (read,
 *                                        define, run main), in a child process: the paper's
 *                                        INTERPRETED scenario, measured in the same run
 *   libs.first_install.{…}           ms  an RPC (`on`) calling the library's main on a second
 *                                        daemon that has never seen the library: it fetches
 *                                        the signed record and the IR, checks them, compiles,
 *                                        runs the library's top level, then main (FIRST-INSTALL)
 *   libs.steady.{…}                  ms  the same RPC once the library is installed (STEADY-STATE)
 *   libs.fetches.{…}                 count  libraries the daemon installed for R versions called
 *                                        1 + K times each: R means once per node, not per message
 *   libs.hot_update                  ms  a service under a client sending at full rate is sent a
 *                                        procedure compiled against version 2.0: time from that
 *                                        send to the first answer from 2.0 (the backlog of
 *                                        requests sent before it included)
 *   libs.hot_update.lost             count  requests without their answer (must be 0)
 *
 * The programs are generated (the paper used three real programs turned into libraries):
 * a library of N small procedures chained by tail calls, ~4K, ~40K and ~400K bytes of
 * source, whose `main` runs the whole chain once (every procedure runs: most of a real
 * program's code is cold) and then a kernel loop of KERNEL × N iterations (its hot
 * part), so run time grows with size as in the paper. Each FIRST-INSTALL sample is
 * taken on a fresh daemon (a real `termite-node` OS process, stopped by its PID, without
 * --data), whose first call installs the library; the steady calls follow on the first
 * one. This process is the start node (node-daemon/src/host.js, publishing with its own
 * publisher key, which the daemons trust); it joins each daemon only when the driver
 * runs, after compiling it (compiling 400K of source holds this process longer than a
 * peer waits for heartbeats). Every loop is bounded by a count.
 * Env: BENCH_LIBS_KERNEL (default 50) kernel iterations per procedure of the library.
 */
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Reporter, prefixFromArgv, startChild, runChild, waitFor, median, summarize } from './lib/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'node-daemon', 'bin', 'termite-node.js');
const KERNEL = Number(process.env.BENCH_LIBS_KERNEL ?? 50);
/** size name → number of procedures (about 105 bytes of source each) */
const SIZES = { '4k': 38, '40k': 380, '400k': 3800 };
/** first-install samples: each on a fresh daemon, which has never seen the library */
const SAMPLES = { '4k': 5, '40k': 5, '400k': 3 };
const STEADY_CALLS = 7;

/**
 * The library's body: N procedures chained by tail calls, and main.
 * @param {number} n
 */
function body(n) {
  const out = [];
  for (let k = 0; k < n; k++) {
    const work = `(let loop ((i 0) (a x)) (if (< i 8) (loop (+ i 1) (modulo (+ (* a 31) i ${k}) 1000003)) a))`;
    out.push(`(define (f${k} x) ${k + 1 < n ? `(f${k + 1} ${work})` : work})`);
  }
  out.push('(define (kernel n) (let loop ((i 0) (a 1)) (if (< i n) (loop (+ i 1) (modulo (+ (* a 31) i) 1000003)) a)))');
  out.push(`(define (main x) (+ (f0 x) (kernel ${KERNEL * n})))`);
  return out.join('\n');
}

/** @param {string} size @param {number} v @param {string} text */
const library = (size, v, text) => `(define-library (gen s${size}@1.0.${v})\n  (export main)\n  (import (scheme base))\n  (begin\n${text}))\n`;

// ---- INTERPRETED: BiwaScheme, in a child process --------------------------------------

/** Child mode: interpret the program `rounds` times; print `result {ms[], value}`. @param {string} file @param {number} rounds */
function biwaChild(file, rounds) {
  const require = createRequire(import.meta.url);
  const moduleName = 'biwascheme'; // CommonJS, untyped
  /** @type {any} */
  const B = require(moduleName);
  const text = readFileSync(file, 'utf8');
  const ms = [];
  let value = null;
  for (let r = 0; r < rounds; r++) {
    /** @type {string[]} */
    const errors = [];
    const interp = new B.Interpreter((/** @type {any} */ e) => errors.push(String(e?.message ?? e)));
    const t0 = performance.now();
    value = interp.evaluate(`${text}\n(main 1)`);
    ms.push(performance.now() - t0);
    if (errors.length > 0) throw new Error(errors.join('; '));
  }
  console.log(`result ${JSON.stringify({ ms, value })}`);
}

// ---- FIRST-INSTALL, STEADY-STATE: two nodes ------------------------------------------

/**
 * The start node's driver for one version: its main called once on the daemon (the
 * first install), then, with `steady`, STEADY_CALLS times more; one line per call.
 * @param {string} size @param {number} v @param {number} port @param {boolean} steady
 */
function driver(size, v, port, steady) {
  return `(import (scheme base) (scheme write) (scheme time) (termite) (gen s${size}@1.0.${v}))
(define there (make-node "127.0.0.1" ${port}))
(define (timed what thunk)
  (let* ((t0 (current-jiffy)) (v (thunk)) (t1 (current-jiffy)))
    (write (list what (/ (* 1000. (- t1 t0)) (jiffies-per-second)) v)) (newline)))
(timed 'first (lambda () (on there (lambda () (main 1)))))
(let loop ((i 0)) (when (< i ${steady ? STEADY_CALLS : 0}) (timed 'steady (lambda () (on there (lambda () (main 1))))) (loop (+ i 1))))`;
}

/** The hot update driver: a client at full rate, an update in the middle. @param {number} port @param {number} n */
function hotDriver(port, n) {
  return `(import (scheme base) (scheme write) (scheme time) (termite) (prefix (svc counter@1.0) v1:) (prefix (svc counter@2.0) v2:))
(define there (make-node "127.0.0.1" ${port}))
(define server (spawn (lambda () (migrate there) (v1:serve 0))))
(define me (self))
(!? server 'ping 10)
(define t-update #f)
(let loop ((i 0))
  (when (< i ${n})
    (when (= i ${n / 2}) (set! t-update (current-jiffy)) (! server (list 'upgrade (lambda (count) (v2:serve count)))))
    (! server (list 'call me i))
    (loop (+ i 1))))
(let loop ((i 0) (first-v2 #f))
  (if (< i ${n})
      (recv
        ((v k c) (loop (+ i 1) (or first-v2 (and (eq? v 'v2.0) (current-jiffy)))))
        (after 10 (write (list 'hot (- ${n} i) -1)) (newline)))
      (begin (write (list 'hot 0 (/ (* 1000. (- first-v2 t-update)) (jiffies-per-second)))) (newline))))`;
}

const SVC = (/** @type {string} */ v) => `(define-library (svc counter@${v})
  (export serve)
  (import (scheme base) (termite))
  (begin
    (define (serve count)
      (recv
        ((from tag 'ping) (! from (list tag 'pong)) (serve count))
        (('call from n) (! from (list 'v${v} n count)) (serve (+ count 1)))
        (('upgrade k) (k count))))))`;

/** @param {string} text lines "(what ms value)" @returns {{what: string, ms: number, value: string}[]} */
const parseLines = (text) => [...text.matchAll(/^\((\w+) ([\d.e+-]+) (\S+)\)$/gm)].map((m) => ({ what: m[1], ms: Number(m[2]), value: m[3] }));

/**
 * INTERPRETED: BiwaScheme runs each program in a child process. Returns its answers.
 * @param {Reporter} rep @param {Record<string, string>} programs
 */
async function interpreted(rep, programs) {
  /** @type {Record<string, string>} */
  const expected = {};
  for (const size of Object.keys(SIZES)) {
    const r = await runChild(process.execPath, [fileURLToPath(import.meta.url), '--biwa-child', programs[size], size === '400k' ? '3' : '5'], { timeoutMs: 300_000 });
    const line = r.stdout.split('\n').find((l) => l.startsWith('result '));
    if (r.code !== 0 || !line) {
      rep.comment(`libs.interpreted.${size}: BiwaScheme failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      continue;
    }
    const res = JSON.parse(line.slice(7));
    expected[size] = String(res.value);
    rep.bench(`libs.interpreted.${size}`, median(res.ms), 'ms', { stats: summarize(res.ms) });
  }
  return expected;
}

/** What the running driver printed. */
let driverOut = '';

/**
 * Run a driver program on the start node: what it printed, or "failed: why".
 * @param {any} host @param {string} text @param {string} file @param {string} libDir
 */
async function runDriver(host, text, file, libDir) {
  driverOut = '';
  const readFile = (/** @type {string} */ p) => { try { return readFileSync(p, 'utf8'); } catch { return null; } };
  const r = await host.node.runProgram(text, { file, libraryPath: [libDir], readFile });
  return r.ok ? driverOut : `failed: ${r.message} (printed: ${driverOut.slice(0, 200)})`;
}

/**
 * The figures of one size from its driver's lines and the daemon's log.
 * @param {Reporter} rep @param {string} size @param {string} text @param {string|undefined} expected BiwaScheme's answer
 * @param {string[][]} installs each daemon's install times
 */
function report(rep, size, text, expected, installs) {
  const samples = SAMPLES[/** @type {keyof typeof SAMPLES} */ (size)];
  const lines = parseLines(text);
  const wrong = lines.filter((l) => expected !== undefined && l.value !== expected);
  if (wrong.length > 0) rep.comment(`libs.*.${size}: ${wrong.length} answers differ from BiwaScheme's ${expected} (got ${wrong[0].value})`);
  const first = lines.filter((l) => l.what === 'first').map((l) => l.ms);
  const steady = lines.filter((l) => l.what === 'steady').map((l) => l.ms);
  rep.bench(`libs.first_install.${size}`, median(first), 'ms', { stats: summarize(first), note: `${first.length} daemons, each installing it for the first time` });
  rep.bench(`libs.steady.${size}`, median(steady), 'ms', { stats: summarize(steady) });
  const most = Math.max(...installs.map((i) => i.length));
  rep.bench(`libs.fetches.${size}`, most, 'count', { note: `installs on the daemon called ${1 + STEADY_CALLS} times (1 = once per node, not per message); the daemons' install times ${installs.flat().join(', ')} ms` });
  rep.ratioComment(`libs.interpreted.${size}`, `libs.steady.${size}`, size === '400k' ? { min: 100, label: '(STEADY-STATE speed-up)' } : { label: '(STEADY-STATE speed-up)' });
}

async function main() {
  const rep = new Reporter(prefixFromArgv());
  if (!rep.wants('libs.')) return;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'termite-bench-libs-'));
  const libDir = path.join(tmp, 'libs');
  mkdirSync(path.join(libDir, 'gen'), { recursive: true });
  mkdirSync(path.join(libDir, 'svc'), { recursive: true });
  /** @type {Record<string, string>} */
  const programs = {};
  for (const [size, n] of Object.entries(SIZES)) {
    const text = body(n);
    programs[size] = path.join(tmp, `program-${size}.scm`);
    writeFileSync(programs[size], text);
    writeFileSync(path.join(libDir, 'gen', `s${size}@1.0.1.sld`), library(size, 1, text));
    rep.comment(`${size}: ${n} procedures, ${Buffer.byteLength(library(size, 1, text))} bytes of library source; main runs the chain once, then ${KERNEL * n} kernel iterations`);
  }
  for (const v of ['1.0', '2.0']) writeFileSync(path.join(libDir, 'svc', `counter@${v}.sld`), SVC(v));

  const expected = await interpreted(rep, programs);
  // two nodes: this process publishes; the daemon trusts its publisher key
  const { startHost } = await import('../node-daemon/src/host.js');
  const { loadOrCreateIdentity } = await import('@termite/mesh');
  const publisherDir = path.join(tmp, 'publisher');
  const publisher = await loadOrCreateIdentity(publisherDir);
  const token = `bench-${Math.random().toString(36).slice(2)}`;
  /** @type {any} */
  let host = null;
  try {
    host = await startHost({ host: '127.0.0.1', port: 0, join: [], token, data: undefined, publisher: publisherDir, peerTimeoutMs: 30_000, stdout: (s) => (driverOut += s), log: () => {} });
    // a first install of 400K takes longer than a request's default 5 s on a loaded machine
    host.distribution.timeoutMs = 120_000;
    for (const size of Object.keys(SIZES).reverse()) {
      let text = '';
      /** @type {string[][]} */
      const installs = [];
      for (let s = 1; s <= SAMPLES[/** @type {keyof typeof SAMPLES} */ (size)]; s++) {
        const d = await receiver(token, publisher.id);
        try {
          const out = await runDriver(host, driver(size, 1, d.port, s === 1), path.join(tmp, `driver-${size}.scm`), libDir);
          // a failure says what the daemon said last (and whether it is still running)
          text += out.startsWith('failed:') ? `${out} [daemon ${d.handle.running() ? 'running' : 'exited'}: ${d.handle.stderr().trim().split('\n').slice(-2).join(' | ')}]\n` : out;
        } finally {
          await d.handle.stop();
        }
        installs.push(d.installs);
      }
      if (text.includes('failed:')) rep.comment(`libs.*.${size}: a driver ${text}`);
      report(rep, size, text, expected[size], installs);
    }
    rep.ratioComment('libs.first_install.400k', 'libs.steady.400k', { label: '(first install / steady)' });
    if (rep.get('libs.first_install.400k') !== undefined) rep.comment(`libs.first_install.400k target <= 2000 ms: ${/** @type {number} */ (rep.get('libs.first_install.400k')) <= 2000 ? 'met' : 'NOT met'}`);

    // hot update under load
    const d = await receiver(token, publisher.id);
    try {
      const n = 4000;
      const text = await runDriver(host, hotDriver(d.port, n), path.join(tmp, 'hot.scm'), libDir);
      const hot = parseLines(text).find((l) => l.what === 'hot');
      if (!hot) rep.comment(`libs.hot_update: the driver ${text}`);
      else {
        rep.bench('libs.hot_update', Number(hot.value), 'ms', { note: `${n / 2} requests sent before the update were answered first` });
        rep.bench('libs.hot_update.lost', hot.ms, 'count', { note: `${n} requests at full rate` });
      }
    } finally {
      await d.handle.stop();
    }
  } finally {
    if (host) await host.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A fresh receiving daemon trusting `publisher`: its handle, port, and the install
 * times it logs (ms, one per library installed).
 * @param {string} token @param {string} publisher
 */
async function receiver(token, publisher) {
  /** @type {string[]} */
  const installs = [];
  const handle = startChild(process.execPath, [bin, '--port', '0', '--token', token, '--trust', publisher], {
    onLine: (line) => {
      const m = /installed library \(gen .* in (\d+) ms/.exec(line);
      if (m) installs.push(m[1]);
    },
  });
  // a daemon starts in well under a second on a quiet machine; the wait is for a loaded one
  if (!(await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.test(handle.stderr()), 60_000))) {
    await handle.stop();
    throw new Error(`a receiving daemon did not start within 60 s: ${handle.stderr().trim().split('\n').slice(-2).join(' | ')}`);
  }
  const port = Number(/** @type {RegExpExecArray} */ (/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(handle.stderr()))[1]);
  return { handle, port, installs };
}

if (process.argv[2] === '--biwa-child') biwaChild(process.argv[3], Number(process.argv[4]));
else await main();
