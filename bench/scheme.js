#!/usr/bin/env node
// @ts-check
/**
 * The language's benchmarks: compiled Termite Scheme beside hand-written JavaScript and
 * BiwaScheme 0.8.3, measured in the same run.
 * (size: over 600 lines because every Scheme benchmark and its references — JS,
 * BiwaScheme, Guile, `node -e` — live here so that one process measures them side by
 * side; the next addition should move the references of one kind to a module.)
 *
 *   node bench/scheme.js [name-prefix]        (npm run bench -- scheme)
 *
 *   scheme.fib30 / js.fib30 / biwa.fib30        (fib 30) = 832040, ms
 *   scheme.tak / js.tak / biwa.tak              (tak 18 12 6) = 7, ms
 *   scheme.loop10m / js.loop10m / biwa.loop10m  a named-let loop of 10,000,000 iterations
 *                                               summing i (= 49,999,995,000,000), ms
 *   scheme.mbrot / js.mbrot                     a Mandelbrot kernel on flonums (the r7rs-benchmarks
 *                                               mbrot, 75 x 75 points, at most 64 iterations each),
 *                                               the sum of the iteration counts = 166,564, ms
 *   scheme.strbuild                             a string-building loop: 100,000 numbers written to a
 *                                               string port and as many characters set with
 *                                               string-set! in a make-string (lengths 588,890 +
 *                                               100,000), ms
 *   scheme.startup / node.startup               a whole process: `termite-node run` of a program that
 *                                               prints one line (runtime library cache warm), beside
 *                                               `node -e` printing one line; scheme.startup_nocache:
 *                                               the same with the cache off (TERMITE_CACHE=off);
 *                                               scheme.startup_nobundle: cache on, start-up bundle
 *                                               off (TERMITE_RUN_BUNDLE=off), ms
 *   guile.fib30, guile.tak, guile.mbrot, guile.strbuild   the same programs in Guile (`guile` on
 *                                               PATH, compiled by Guile, timed inside it like ours),
 *                                               printed as ratios scheme / guile; skipped without guile
 *   scheme.ack, scheme.fibc, scheme.ctak        bench/programs/control.scm: (ack 3 9) = 4093, deep
 *                                               non-tail recursion; (fibc 20) = 6765 and (ctak 18 12 6) = 7,
 *                                               a call/cc per call; beside guile.ack, guile.fibc, guile.ctak, ms
 *   scheme.deep1m                               non-tail recursion 1,000,000 deep, ms
 *   scheme.capture_serialize.D (D = 10, 1000, 100000), µs; and .D_bytes
 *       call/cc at the bottom of a non-tail recursion D deep (D frames of (+ 1 [])),
 *       then the continuation encoded to CBOR with encodeValue. The capture is timed
 *       inside the program with current-jiffy (µs) around the call/cc, averaged over
 *       many captures; the encoding is timed in JS. Figure = capture + encoding.
 *
 * A prefix selecting scheme.X also runs js.X and biwa.X (the references are measured
 * beside our figure in the same run); `js` or `biwa` alone run only those.
 *
 * Our Scheme: the program text is compiled once (compileProgramText + linkProgram,
 * not timed); each timed call runs a fresh Thread on a top-level procedure with
 * runToCompletion. JS and our Scheme are timed in interleaved rounds (one JS round,
 * one Scheme round, ...) so both meet the same load on a shared machine, and the
 * ratio is also given per round; for fib30 also by CPU time (process.cpuUsage), which a
 * loaded machine inflates far less than wall-clock time. BiwaScheme runs in a child
 * process of this script (its evaluate is synchronous, so a time limit needs another process): the
 * definitions are evaluated first (not timed), then the call. Times are wall-clock medians of
 * several rounds after warm-up; each figure is followed by its spread.
 * BiwaScheme's fib30 and loop10m take about 10 s and 55-90 s per call, so they get
 * few rounds (BENCH_BIWA_ROUNDS, default 2 for fib30; loop10m once) and a time limit
 * (BENCH_BIWA_LIMIT_S, default 240 s per benchmark); a limit hit is reported as a
 * comment and no figure is printed.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compileProgramText, linkProgram, Thread, runToCompletion, encodeValue, decodeValue, resolveRuntimeCode,
} from '@termite/scheme';
import {
  Reporter, prefixFromArgv, measure, measureInterleaved, calibrate, summarize, runChild, formatNumber, which,
} from './lib/index.js';

const BIWA_ROUNDS = Math.max(1, Number(process.env.BENCH_BIWA_ROUNDS ?? 2));
const BIWA_LIMIT_S = Math.max(10, Number(process.env.BENCH_BIWA_LIMIT_S ?? 240));

// ---- the programs --------------------------------------------------------------

/** Definitions shared by our Scheme and BiwaScheme (BiwaScheme has no current-jiffy use here). */
const COMMON = String.raw`
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (tak x y z)
  (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))
(define (loop10m n)
  (let loop ((i 0) (acc 0))
    (if (= i n) acc (loop (+ i 1) (+ acc i)))))
`;

/** Shared by our Scheme and Guile: a float kernel and a string-building loop. */
const FLOAT_AND_STRINGS = String.raw`
(define (mbrot-count r i step x y)
  (let ((max-count 64) (radius^2 16.0))
    (let ((cr (+ r (* (exact->inexact x) step)))
          (ci (+ i (* (exact->inexact y) step))))
      (let loop ((zr cr) (zi ci) (c 0))
        (if (= c max-count)
            c
            (let ((zr^2 (* zr zr)) (zi^2 (* zi zi)))
              (if (> (+ zr^2 zi^2) radius^2)
                  c
                  (let ((new-zr (+ (- zr^2 zi^2) cr))
                        (new-zi (+ (* 2.0 (* zr zi)) ci)))
                    (loop new-zr new-zi (+ c 1))))))))))
(define (mbrot n)
  (let loop1 ((y (- n 1)) (sum 0))
    (if (< y 0)
        sum
        (let loop2 ((x (- n 1)) (sum sum))
          (if (< x 0)
              (loop1 (- y 1) sum)
              (loop2 (- x 1) (+ sum (mbrot-count -1.0 -0.5 0.005 x y))))))))
(define (strbuild n)
  (let ((out (open-output-string)) (t (make-string n #\space)))
    (let loop ((i 0))
      (if (< i n)
          (begin (display (number->string i) out)
                 (write-char #\, out)
                 (string-set! t i (integer->char (+ 97 (remainder i 26))))
                 (loop (+ i 1)))))
    (+ (string-length (get-output-string out)) (string-length t))))
`;

/** Shared by our Scheme and Guile: deep recursion and call/cc-heavy code. */
const CONTROL = readFileSync(new URL('./programs/control.scm', import.meta.url), 'utf8');

/** Ours only: deep recursion and continuation capture. */
const OURS = String.raw`
(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))
(define saved #f)
(define capture-us 0)
(define (capture-here)
  (let ((t0 (current-jiffy)))
    (call/cc (lambda (k)
               (set! saved k)
               (set! capture-us (+ capture-us (- (current-jiffy) t0)))
               0))))
(define (deep-capture n) (if (= n 0) (capture-here) (+ 1 (deep-capture (- n 1)))))
`;

/** The hand-written JS reference: what a programmer writes for the same functions. */
const js = {
  /** @param {number} n @returns {number} */
  fib: (n) => (n < 2 ? n : js.fib(n - 1) + js.fib(n - 2)),
  /** @param {number} x @param {number} y @param {number} z @returns {number} */
  tak: (x, y, z) => (!(y < x) ? z : js.tak(js.tak(x - 1, y, z), js.tak(y - 1, z, x), js.tak(z - 1, x, y))),
  /** @param {number} n */
  loop10m: (n) => {
    let acc = 0;
    for (let i = 0; i !== n; i++) acc += i;
    return acc;
  },
  /** @param {number} n @returns {number} */
  deep: (n) => (n === 0 ? 0 : 1 + js.deep(n - 1)),
  /** The same Mandelbrot kernel, written for JS doubles. @param {number} n */
  mbrot: (n) => {
    let sum = 0;
    for (let y = n - 1; y >= 0; y--) {
      for (let x = n - 1; x >= 0; x--) {
        const cr = -1.0 + x * 0.005;
        const ci = -0.5 + y * 0.005;
        let zr = cr;
        let zi = ci;
        let c = 0;
        while (c !== 64) {
          const zr2 = zr * zr;
          const zi2 = zi * zi;
          if (zr2 + zi2 > 16.0) break;
          const nzr = zr2 - zi2 + cr;
          zi = 2.0 * (zr * zi) + ci;
          zr = nzr;
          c++;
        }
        sum += c;
      }
    }
    return sum;
  },
};

const MBROT_N = 75;
const MBROT_SUM = js.mbrot(MBROT_N);
const STRBUILD_N = 100_000;
const STRBUILD_LEN = Array.from({ length: STRBUILD_N }, (_, i) => String(i).length + 1).reduce((a, b) => a + b, STRBUILD_N);

const LOOP_N = 10_000_000;
const LOOP_SUM = (LOOP_N * (LOOP_N - 1)) / 2;

/**
 * The benchmarks: name → [BiwaScheme call, expected value]. Also the child's table.
 * @type {Record<string, {call: string, expect: number}>}
 */
const BIWA = {
  'biwa.fib30': { call: '(fib 30)', expect: 832040 },
  'biwa.tak': { call: '(tak 18 12 6)', expect: 7 },
  'biwa.loop10m': { call: `(loop10m ${LOOP_N})`, expect: LOOP_SUM },
};

// ---- BiwaScheme, in a child process ---------------------------------------------------

/**
 * Child mode: measure one BiwaScheme benchmark and print `result <json stats>`.
 * @param {string} name @param {number} warmup @param {number} rounds
 */
function biwaChild(name, warmup, rounds) {
  const require = createRequire(import.meta.url);
  const moduleName = 'biwascheme'; // CommonJS, untyped
  /** @type {any} */
  const B = require(moduleName);
  /** @type {string[]} */
  const errors = [];
  const interp = new B.Interpreter((/** @type {any} */ e) => errors.push(String(e?.message ?? e)));
  interp.evaluate(COMMON);
  const { call, expect } = BIWA[name];
  const check = () => {
    const v = interp.evaluate(call);
    if (errors.length > 0 || v !== expect) throw new Error(`BiwaScheme ${call} gave ${v} ${errors.join('; ')}`);
  };
  const st = measure(check, { warmup, rounds });
  console.log(`result ${JSON.stringify(st)}`);
}

/**
 * Run a BiwaScheme benchmark in a child; its stats, or null (with a comment) on failure.
 * @param {Reporter} rep @param {string} name @param {number} warmup @param {number} rounds
 */
async function biwa(rep, name, warmup, rounds) {
  const self = fileURLToPath(import.meta.url);
  const r = await runChild(process.execPath, [self, '--biwa-child', name, String(warmup), String(rounds)], {
    timeoutMs: BIWA_LIMIT_S * 1000,
  });
  if (r.timedOut) {
    rep.comment(`${name}: not measured: over the ${BIWA_LIMIT_S} s limit (${warmup + rounds} calls; child stopped by PID)`);
    return null;
  }
  const line = r.stdout.split('\n').find((l) => l.startsWith('result '));
  if (r.code !== 0 || !line) {
    rep.comment(`${name}: BiwaScheme failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return null;
  }
  return /** @type {import('./lib/timing.js').Stats} */ (JSON.parse(line.slice('result '.length)));
}

// ---- our Scheme -------------------------------------------------------------------

function loadOurs() {
  const t0 = performance.now();
  const units = compileProgramText(COMMON + FLOAT_AND_STRINGS + CONTROL + OURS, { file: 'bench/scheme.js' });
  const prog = linkProgram(units);
  const r = runToCompletion(new Thread(prog.top, []));
  if (!r.ok) throw new Error(`bench program failed to load: ${r.error}`);
  const compileMs = performance.now() - t0;
  /** @param {string} name */
  const global = (name) => {
    const c = prog.env.cells.get(name);
    if (!c) throw new Error(`no global ${name}`);
    return c;
  };
  /**
   * A JS function calling the Scheme procedure `name` on `args` in a fresh thread.
   * @param {string} name @param {any[]} args
   */
  const caller = (name, args) => {
    const clo = global(name).v;
    return () => {
      const res = runToCompletion(new Thread(clo, args));
      if (!res.ok) throw new Error(`(${name} ${args.join(' ')}) failed: ${res.error}`);
      return res.value;
    };
  };
  return { prog, global, caller, compileMs };
}

/**
 * @param {string} what @param {unknown} got @param {unknown} want
 */
function expectEqual(what, got, want) {
  if (got !== want) throw new Error(`${what} returned ${got}, expected ${want}`);
}

// ---- the benchmarks -------------------------------------------------------------------

/** The ratios scheme.X / js.X we hold ourselves to. @type {Record<string, number>} */
const TARGETS = { fib30: 2, loop10m: 3, mbrot: 3 };

/**
 * One comparison: js.X, scheme.X, biwa.X.
 * @param {Reporter} rep @param {ReturnType<typeof loadOurs>} ours
 * @param {{key: string, jsFn: () => number, scheme: () => any, expect: number,
 *          opts: import('./lib/timing.js').MeasureOptions & {roundMs?: number},
 *          biwaWarmup: number, biwaRounds: number, cpuRatio?: boolean}} b  (cpuRatio: also the ratio by CPU time)
 */
async function compare(rep, ours, b) {
  const names = { js: `js.${b.key}`, scheme: `scheme.${b.key}`, biwa: `biwa.${b.key}` };
  // Our figure brings its references along (`-- scheme` runs js.* and biwa.* too);
  // a reference can also be run alone (`-- biwa.tak`).
  const withRefs = rep.wants(names.scheme);
  const hasBiwa = b.biwaRounds > 0; // (BiwaScheme runs only the programs of COMMON)
  const run = { js: withRefs || rep.wants(names.js), scheme: withRefs, biwa: hasBiwa && (withRefs || rep.wants(names.biwa)) };
  if (!run.js && !run.scheme && !run.biwa) return;
  const target = TARGETS[b.key];
  /** @param {() => unknown} fn */
  const inner = (fn) => (b.opts.roundMs ? calibrate(fn, b.opts.roundMs, 1 << 20) : 1);
  let interleavedRatio = null;
  if (run.js && run.scheme) {
    // Interleaved rounds (js, scheme, js, scheme, ...): both meet the same load.
    expectEqual(names.js, b.jsFn(), b.expect);
    expectEqual(names.scheme, b.scheme(), b.expect);
    const m = measureInterleaved({ js: b.jsFn, scheme: b.scheme }, {
      warmup: b.opts.warmup, rounds: b.opts.rounds, inner: { js: inner(b.jsFn), scheme: inner(b.scheme) },
    });
    rep.bench(names.js, m.stats.js.median, 'ms', { stats: m.stats.js });
    rep.bench(names.scheme, m.stats.scheme.median, 'ms', { stats: m.stats.scheme, note: 'rounds interleaved with js' });
    interleavedRatio = m.ratios.scheme;
    if (b.cpuRatio) {
      const r = cpuRatio(b.jsFn, b.scheme, b.opts.rounds ?? 21);
      rep.comment(`ratio ${names.scheme} / ${names.js} by CPU time per interleaved round (process.cpuUsage: what a loaded machine does not inflate): median ${formatNumber(r.median)}, min ${formatNumber(r.min)}, max ${formatNumber(r.max)}` +
        (target ? ` (target <= ${target}: ${r.median <= target ? 'met' : 'NOT met'})` : ''));
    }
  } else if (run.js) {
    expectEqual(names.js, b.jsFn(), b.expect);
    const st = measure(b.jsFn, { ...b.opts, inner: inner(b.jsFn) });
    rep.bench(names.js, st.median, 'ms', { stats: st });
  }
  if (run.biwa) {
    const st = await biwa(rep, names.biwa, b.biwaWarmup, b.biwaRounds);
    if (st) rep.bench(names.biwa, st.median, 'ms', { stats: st, note: `${b.biwaWarmup} warm-up + ${st.samples.length} timed calls` });
  }
  rep.ratioComment(names.scheme, names.js, target ? { max: target, label: '(scheme / js)' } : { label: '(scheme / js)' });
  if (interleavedRatio) {
    const r = interleavedRatio;
    rep.comment(`ratio ${names.scheme} / ${names.js} per interleaved round: median ${formatNumber(r.median)}, min ${formatNumber(r.min)}, max ${formatNumber(r.max)}` +
      (target ? ` (target <= ${target}: ${r.median <= target ? 'met' : 'NOT met'})` : ''));
  }
  rep.ratioComment(names.biwa, names.js, { label: '(biwa / js)' });
  rep.ratioComment(names.biwa, names.scheme, { label: '(biwa / scheme: how much faster we are)' });
}

/**
 * The ratio of two functions' CPU time (user + system of this process), in interleaved
 * rounds after 3 warm-up rounds of each: on a shared machine, wall-clock time counts
 * the time the process waited for a core, CPU time only the time it ran.
 * @param {() => unknown} jsFn @param {() => unknown} schemeFn @param {number} rounds
 */
function cpuRatio(jsFn, schemeFn, rounds) {
  const cpu = (/** @type {() => unknown} */ f) => {
    const t0 = process.cpuUsage();
    f();
    const t = process.cpuUsage(t0);
    return t.user + t.system;
  };
  /** @type {number[]} */
  const ratios = [];
  for (let i = -3; i < rounds; i++) {
    const j = cpu(jsFn);
    const s = cpu(schemeFn);
    if (i >= 0 && j > 0) ratios.push(s / j);
  }
  return summarize(ratios);
}

// ---- start-up: whole processes ------------------------------------------------------

/**
 * Wall-clock time of one child process, which must exit 0 printing `expect`.
 * @param {string[]} argv @param {NodeJS.ProcessEnv} env @param {string} expect
 */
function timeProcess(argv, env, expect) {
  const t0 = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0 || r.stdout !== expect) {
    throw new Error(`${argv.join(' ')}: exit ${r.status ?? r.signal}, printed ${JSON.stringify(r.stdout)}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
  return ms;
}

/** scheme.startup, scheme.startup_nocache, scheme.startup_nobundle and node.startup, in interleaved rounds. @param {Reporter} rep */
function startup(rep) {
  if (!rep.wantsAny(['scheme.startup', 'scheme.startup_nocache', 'scheme.startup_nobundle', 'node.startup'])) return;
  const dir = mkdtempSync(join(tmpdir(), 'termite-startup-'));
  try {
    const file = join(dir, 'hello.scm');
    writeFileSync(file, '(display "hello") (newline)\n');
    const cli = fileURLToPath(new URL('../node-daemon/bin/termite-node.js', import.meta.url));
    const cached = { ...process.env, TERMITE_CACHE_DIR: join(dir, 'cache') };
    const uncached = { ...process.env, TERMITE_CACHE: 'off' };
    const fns = {
      node: () => timeProcess([process.execPath, '-e', 'console.log("hello")'], process.env, 'hello\n'),
      scheme: () => timeProcess([process.execPath, cli, 'run', file], cached, 'hello\n'),
      nocache: () => timeProcess([process.execPath, cli, 'run', file], uncached, 'hello\n'),
      nobundle: () => timeProcess([process.execPath, cli, 'run', file], { ...cached, TERMITE_RUN_BUNDLE: 'off' }, 'hello\n'),
    };
    fns.scheme(); // the first run fills the cache and writes the start-up bundle (not timed)
    /** @type {Record<string, number[]>} */
    const samples = { node: [], scheme: [], nocache: [], nobundle: [] };
    const rounds = 7;
    for (let r = -1; r < rounds; r++) {
      for (const k of /** @type {const} */ (['node', 'scheme', 'nocache', 'nobundle'])) {
        const ms = fns[k]();
        if (r >= 0) samples[k].push(ms);
      }
    }
    const st = { node: summarize(samples.node), scheme: summarize(samples.scheme), nocache: summarize(samples.nocache), nobundle: summarize(samples.nobundle) };
    rep.bench('node.startup', st.node.median, 'ms', { stats: st.node });
    rep.bench('scheme.startup', st.scheme.median, 'ms', { stats: st.scheme, note: 'termite-node run, runtime library cache warm; rounds interleaved with node.startup' });
    rep.bench('scheme.startup_nocache', st.nocache.median, 'ms', { stats: st.nocache, note: 'TERMITE_CACHE=off: the runtime library compiled at start' });
    rep.bench('scheme.startup_nobundle', st.nobundle.median, 'ms', { stats: st.nobundle, note: 'TERMITE_RUN_BUNDLE=off: the runtime units cached, the ~180 modules loaded one by one' });
    rep.ratioComment('scheme.startup', 'node.startup', { max: 1.5, label: '(whole process, scheme / node)' });
    rep.ratioComment('scheme.startup_nocache', 'node.startup', { label: '(cache off)' });
    rep.ratioComment('scheme.startup_nobundle', 'node.startup', { label: '(no start-up bundle)' });
    const perRound = summarize(samples.scheme.map((t, i) => t / samples.node[i]));
    rep.comment(`ratio scheme.startup / node.startup per interleaved round: median ${formatNumber(perRound.median)}, min ${formatNumber(perRound.min)}, max ${formatNumber(perRound.max)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Guile, where installed ---------------------------------------------------------

/** The Guile benchmarks: name → [call, expected value, rounds]. */
const GUILE = /** @type {const} */ ([
  ['fib30', '(fib 30)', 832040, 5],
  ['tak', '(tak 18 12 6)', 7, 9],
  ['mbrot', `(mbrot ${MBROT_N})`, MBROT_SUM, 9],
  ['strbuild', `(strbuild ${STRBUILD_N})`, STRBUILD_LEN, 9],
  ['ack', '(ack 3 9)', 4093, 5],
  ['fibc', '(fibc 20)', 6765, 5],
  ['ctak', '(ctak 18 12 6)', 7, 5],
]);

/**
 * guile.X for the programs of GUILE, beside our scheme.X measured earlier in this run.
 * The program is compiled by Guile (auto-compilation, not timed) and each call is timed
 * inside Guile with get-internal-real-time, as ours is timed around the call.
 * @param {Reporter} rep
 */
function guile(rep) {
  const selected = GUILE.filter(([k]) => rep.wants(`guile.${k}`) || rep.wants(`scheme.${k}`));
  if (selected.length === 0) return;
  const exe = which('guile');
  if (!exe) {
    rep.comment('guile.*: not measured: no guile on PATH (Debian: apt-get install guile-3.0)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'termite-guile-'));
  try {
    const calls = selected.map(([k, call, , rounds]) => `(time-calls "${k}" (lambda () ${call}) ${rounds})`).join('\n');
    const file = join(dir, 'bench.scm');
    writeFileSync(file, `${COMMON}\n${FLOAT_AND_STRINGS}\n${CONTROL}\n${GUILE_HARNESS}\n${calls}\n`);
    const r = spawnSync(exe, [file], { encoding: 'utf8', timeout: 300_000, env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') } });
    if (r.status !== 0) {
      rep.comment(`guile.*: guile failed (exit ${r.status ?? r.signal}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      return;
    }
    const version = spawnSync(exe, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
    for (const [k, , expect] of selected) {
      const line = r.stdout.split('\n').find((l) => l.startsWith(`result ${k} `));
      const fields = line?.split(' ').slice(2).map(Number) ?? [];
      if (fields[0] !== expect) {
        rep.comment(`guile.${k}: returned ${fields[0]}, expected ${expect}; no figure`);
        continue;
      }
      const st = summarize(fields.slice(1));
      rep.bench(`guile.${k}`, st.median, 'ms', { stats: st, note: `${version}, compiled, timed inside guile` });
      rep.ratioComment(`scheme.${k}`, `guile.${k}`, { label: '(ours / guile)' });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Times a thunk in Guile: one warm-up call, then `rounds` calls; prints the value and the ms. */
const GUILE_HARNESS = String.raw`
(define (time-calls name thunk rounds)
  (let ((value (thunk)))
    (display "result ") (display name) (display " ") (display value)
    (let loop ((r 0))
      (if (< r rounds)
          (let* ((t0 (get-internal-real-time)) (v (thunk)) (t1 (get-internal-real-time)))
            (display " ")
            (display (exact->inexact (/ (* 1000 (- t1 t0)) internal-time-units-per-second)))
            (loop (+ r 1)))))
    (newline)))
`;

/**
 * scheme.X alone (no JS reference): timed like the others.
 * @param {Reporter} rep @param {ReturnType<typeof loadOurs>} ours
 * @param {string} key @param {any[]} args @param {number} expect
 */
function alone(rep, ours, key, args, expect) {
  const name = `scheme.${key}`;
  if (!rep.wants(name) && !rep.wants(`guile.${key}`)) return;
  const run = ours.caller(key, args);
  expectEqual(name, run(), expect);
  const st = measure(run, { warmup: 2, rounds: 9 });
  rep.bench(name, st.median, 'ms', { stats: st });
}

/** @param {Reporter} rep @param {ReturnType<typeof loadOurs>} ours */
function deep1m(rep, ours) {
  if (!rep.wants('scheme.deep1m')) return;
  const run = ours.caller('deep', [1_000_000]);
  expectEqual('scheme.deep1m', run(), 1_000_000);
  const st = measure(run, { warmup: 1, rounds: 7 });
  rep.bench('scheme.deep1m', st.median, 'ms', { stats: st });
  let jsNote;
  try {
    js.deep(1_000_000);
    jsNote = 'plain JS recursion 1,000,000 deep completed (larger stack than expected)';
  } catch (e) {
    jsNote = `hand-written JS cannot do it: the same recursion throws ${e instanceof Error ? `${e.name}: ${e.message}` : e} (default Node stack)`;
  }
  rep.comment(`js.deep1m: ${jsNote}`);
}

/**
 * scheme.capture_serialize.D for each depth.
 * @param {Reporter} rep @param {ReturnType<typeof loadOurs>} ours
 */
function captureSerialize(rep, ours) {
  const depths = [10, 1000, 100_000];
  const savedCell = ours.global('saved');
  const usCell = ours.global('capture-us');
  for (const d of depths) {
    const name = `scheme.capture_serialize.${d}`;
    if (!rep.wantsAny([name, `${name}_bytes`])) continue;
    const inner = d <= 10 ? 2000 : d <= 1000 ? 100 : 2;
    const rounds = d <= 1000 ? 9 : 5;
    const capture = ours.caller('deep-capture', [d]);
    expectEqual(name, capture(), d);
    /** @type {number[]} */ const capUs = [];
    /** @type {number[]} */ const serUs = [];
    /** @type {number[]} */ const totalUs = [];
    /** @type {Uint8Array} */
    let bytes = new Uint8Array(0);
    for (let r = -1; r < rounds; r++) { // round -1 is the warm-up
      usCell.v = 0;
      for (let i = 0; i < inner; i++) capture();
      const cap = usCell.v / inner;
      const k = savedCell.v;
      const t0 = performance.now();
      for (let i = 0; i < inner; i++) bytes = encodeValue(k);
      const ser = ((performance.now() - t0) * 1000) / inner;
      if (r < 0) continue;
      capUs.push(cap);
      serUs.push(ser);
      totalUs.push(cap + ser);
    }
    // The encoded continuation must be the real thing: decode it and resume it with 5.
    const decoded = decodeValue(bytes, {
      resolveCode: (hash, env) => resolveRuntimeCode(hash, env) ?? (hash === ours.prog.hash ? ours.prog : null),
    });
    const resumed = runToCompletion(new Thread(decoded, [5]));
    expectEqual(`${name} (decoded and resumed with 5)`, resumed.ok ? resumed.value : resumed.error, d + 5);
    const total = summarize(totalUs);
    const cap = summarize(capUs);
    const ser = summarize(serUs);
    if (rep.wants(name)) rep.bench(name, total.median, 'us', { stats: total });
    if (rep.wants(`${name}_bytes`)) rep.bench(`${name}_bytes`, bytes.length, 'bytes');
    rep.comment(
      `${name}: capture ${formatNumber(cap.median)} us (current-jiffy around call/cc, mean of ${inner}) + ` +
      `encodeValue ${formatNumber(ser.median)} us (${formatNumber(bytes.length / d)} bytes per frame); ` +
      `decoded and resumed: ${d} + 5 = ${d + 5}` +
      (d === 1000 ? `; target <= 1000 us: ${total.median <= 1000 ? 'met' : 'NOT met'}` : ''),
    );
  }
}

async function main() {
  if (process.argv[2] === '--biwa-child') {
    biwaChild(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
    return;
  }
  const rep = new Reporter(prefixFromArgv());
  const all = [
    'js.fib30', 'scheme.fib30', 'biwa.fib30', 'js.tak', 'scheme.tak', 'biwa.tak',
    'js.loop10m', 'scheme.loop10m', 'biwa.loop10m', 'js.mbrot', 'scheme.mbrot', 'scheme.strbuild',
    'scheme.ack', 'scheme.fibc', 'scheme.ctak',
    'scheme.startup', 'scheme.startup_nocache', 'scheme.startup_nobundle', 'node.startup',
    ...GUILE.map(([k]) => `guile.${k}`), 'scheme.deep1m',
    ...[10, 1000, 100000].flatMap((d) => [`scheme.capture_serialize.${d}`, `scheme.capture_serialize.${d}_bytes`]),
  ];
  if (!rep.wantsAny(all)) return; // (a prefix selecting scheme.X also selects js.X and biwa.X)
  const ours = loadOurs();
  rep.comment(`scheme: node ${process.version}; benchmark program compiled and linked in ${formatNumber(ours.compileMs)} ms (not timed below)`);

  await compare(rep, ours, {
    key: 'fib30', jsFn: () => js.fib(30), scheme: ours.caller('fib', [30]), expect: 832040,
    opts: { warmup: 5, rounds: 21 }, biwaWarmup: 0, biwaRounds: BIWA_ROUNDS, cpuRatio: true,
  });
  await compare(rep, ours, {
    key: 'tak', jsFn: () => js.tak(18, 12, 6), scheme: ours.caller('tak', [18, 12, 6]), expect: 7,
    opts: { warmup: 2, rounds: 15, roundMs: 50 }, biwaWarmup: 1, biwaRounds: 5,
  });
  await compare(rep, ours, {
    key: 'loop10m', jsFn: () => js.loop10m(LOOP_N), scheme: ours.caller('loop10m', [LOOP_N]), expect: LOOP_SUM,
    opts: { warmup: 2, rounds: 11 }, biwaWarmup: 0, biwaRounds: 1,
  });
  await compare(rep, ours, {
    key: 'mbrot', jsFn: () => js.mbrot(MBROT_N), scheme: ours.caller('mbrot', [MBROT_N]), expect: MBROT_SUM,
    opts: { warmup: 2, rounds: 11, roundMs: 50 }, biwaWarmup: 0, biwaRounds: 0,
  });
  alone(rep, ours, 'strbuild', [STRBUILD_N], STRBUILD_LEN);
  alone(rep, ours, 'ack', [3, 9], 4093);
  alone(rep, ours, 'fibc', [20], 6765);
  alone(rep, ours, 'ctak', [18, 12, 6], 7);
  // Guile needs our figures of this run for its ratios: scheme.X of the same programs
  if (rep.wantsAny(GUILE.map(([k]) => `guile.${k}`))) {
    for (const [k, call] of GUILE) {
      if (rep.get(`scheme.${k}`) !== undefined) continue; // measured above
      const args = call.slice(1, -1).split(' ').slice(1).map(Number);
      const run = ours.caller(call.slice(1, -1).split(' ')[0], args);
      const st = measure(run, { warmup: 2, rounds: 9 });
      rep.bench(`scheme.${k}`, st.median, 'ms', { stats: st, note: 'reference for guile' });
    }
  }
  guile(rep);
  startup(rep);
  deep1m(rep, ours);
  captureSerialize(rep, ours);
}

await main();
