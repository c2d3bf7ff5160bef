#!/usr/bin/env node
// @ts-check
/**
 * The language's benchmarks: compiled Termite Scheme beside hand-written JavaScript and
 * BiwaScheme 0.8.3, measured in the same run.
 *
 *   node bench/scheme.js [name-prefix]        (npm run bench -- scheme)
 *
 *   scheme.fib30 / js.fib30 / biwa.fib30        (fib 30) = 832040, ms
 *   scheme.tak / js.tak / biwa.tak              (tak 18 12 6) = 7, ms
 *   scheme.loop10m / js.loop10m / biwa.loop10m  a named-let loop of 10,000,000 iterations
 *                                               summing i (= 49,999,995,000,000), ms
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
 * ratio is also given per round. BiwaScheme runs in a child process of this script
 * (its evaluate is synchronous, so a time limit needs another process): the
 * definitions are evaluated first (not timed), then the call. Times are wall-clock medians of
 * several rounds after warm-up; each figure is followed by its spread.
 * BiwaScheme's fib30 and loop10m take about 10 s and 55-90 s per call, so they get
 * few rounds (BENCH_BIWA_ROUNDS, default 2 for fib30; loop10m once) and a time limit
 * (BENCH_BIWA_LIMIT_S, default 240 s per benchmark); a limit hit is reported as a
 * comment and no figure is printed.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  compileProgramText, linkProgram, Thread, runToCompletion, encodeValue, decodeValue, resolveRuntimeCode,
} from '@termite/scheme';
import {
  Reporter, prefixFromArgv, measure, measureInterleaved, calibrate, summarize, runChild, formatNumber,
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
};

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
  const units = compileProgramText(COMMON + OURS, { file: 'bench/scheme.js' });
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

/**
 * One comparison: js.X, scheme.X, biwa.X.
 * @param {Reporter} rep @param {ReturnType<typeof loadOurs>} ours
 * @param {{key: string, jsFn: () => number, scheme: () => any, expect: number,
 *          opts: import('./lib/timing.js').MeasureOptions & {roundMs?: number},
 *          biwaWarmup: number, biwaRounds: number}} b
 */
async function compare(rep, ours, b) {
  const names = { js: `js.${b.key}`, scheme: `scheme.${b.key}`, biwa: `biwa.${b.key}` };
  // Our figure brings its references along (`-- scheme` runs js.* and biwa.* too);
  // a reference can also be run alone (`-- biwa.tak`).
  const withRefs = rep.wants(names.scheme);
  const run = { js: withRefs || rep.wants(names.js), scheme: withRefs, biwa: withRefs || rep.wants(names.biwa) };
  if (!run.js && !run.scheme && !run.biwa) return;
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
  } else if (run.js) {
    expectEqual(names.js, b.jsFn(), b.expect);
    const st = measure(b.jsFn, { ...b.opts, inner: inner(b.jsFn) });
    rep.bench(names.js, st.median, 'ms', { stats: st });
  }
  if (run.biwa) {
    const st = await biwa(rep, names.biwa, b.biwaWarmup, b.biwaRounds);
    if (st) rep.bench(names.biwa, st.median, 'ms', { stats: st, note: `${b.biwaWarmup} warm-up + ${st.samples.length} timed calls` });
  }
  rep.ratioComment(names.scheme, names.js, b.key === 'fib30' ? { max: 5, label: '(scheme / js)' } : { label: '(scheme / js)' });
  if (interleavedRatio) {
    const r = interleavedRatio;
    rep.comment(`ratio ${names.scheme} / ${names.js} per interleaved round: median ${formatNumber(r.median)}, min ${formatNumber(r.min)}, max ${formatNumber(r.max)}` +
      (b.key === 'fib30' ? ` (target <= 5: ${r.median <= 5 ? 'met' : 'NOT met'})` : ''));
  }
  rep.ratioComment(names.biwa, names.js, { label: '(biwa / js)' });
  rep.ratioComment(names.biwa, names.scheme, { label: '(biwa / scheme: how much faster we are)' });
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
    'js.loop10m', 'scheme.loop10m', 'biwa.loop10m', 'scheme.deep1m',
    ...[10, 1000, 100000].flatMap((d) => [`scheme.capture_serialize.${d}`, `scheme.capture_serialize.${d}_bytes`]),
  ];
  if (!rep.wantsAny(all)) return; // (a prefix selecting scheme.X also selects js.X and biwa.X)
  const ours = loadOurs();
  rep.comment(`scheme: node ${process.version}; benchmark program compiled and linked in ${formatNumber(ours.compileMs)} ms (not timed below)`);

  await compare(rep, ours, {
    key: 'fib30', jsFn: () => js.fib(30), scheme: ours.caller('fib', [30]), expect: 832040,
    opts: { warmup: 5, rounds: 21 }, biwaWarmup: 0, biwaRounds: BIWA_ROUNDS,
  });
  await compare(rep, ours, {
    key: 'tak', jsFn: () => js.tak(18, 12, 6), scheme: ours.caller('tak', [18, 12, 6]), expect: 7,
    opts: { warmup: 2, rounds: 15, roundMs: 50 }, biwaWarmup: 1, biwaRounds: 5,
  });
  await compare(rep, ours, {
    key: 'loop10m', jsFn: () => js.loop10m(LOOP_N), scheme: ours.caller('loop10m', [LOOP_N]), expect: LOOP_SUM,
    opts: { warmup: 2, rounds: 11 }, biwaWarmup: 0, biwaRounds: 1,
  });
  deep1m(rep, ours);
  captureSerialize(rep, ours);
}

await main();
