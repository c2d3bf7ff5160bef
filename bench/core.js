#!/usr/bin/env node
// @ts-check
/**
 * Benchmarks of @termite/core beside the pure-JS reference
 * (bench/jsref-tuplespace.js), in the same run.
 *
 *   node bench/core.js [name-prefix]
 *
 * Prints `bench <name> <value> <unit>` per figure (the median of ROUNDS
 * timed rounds, after a warm-up), plus `#` comment lines saying what was
 * measured and the ratios the targets are stated in.
 *
 * Rates are per second of this process's CPU time (process.cpuUsage), not
 * of wall time: the machines this runs on are shared, and a process that
 * gets 40% of a core would otherwise report 40% of its speed. Core and
 * reference are measured the same way in the same run, in alternating
 * rounds (core, reference, core, ...), and a ratio is the median of the
 * per-round ratios, so a slow spell of the machine falls on both.
 * BENCH_ROUNDS and BENCH_ROUND_MS (CPU ms per round) override the defaults.
 *
 *   core.out_in / jsref.out_in       out(['ping', 42]) + inp(['ping', formal.integer])
 *                                    pairs/s, from JS values (a new array each
 *                                    out), encoding and decoding included
 *   core.match_100k / jsref.match_100k
 *                                    in/rd ops/s with ['A', i, formal.integer,
 *                                    formal.any] among 100,000 tuples
 *                                    ['A', i, j, value]; every in is followed by
 *                                    an out of the same tuple (count stays 100,000)
 *   core.sched                       scheduler calls/s: one op = one core call in
 *                                    a mix of next, send (mailbox push), receive
 *                                    (take-first), yield, sendAfter + advance,
 *                                    spawn + exit
 *   core.pingpong                    same-node ping-pong round trips/s through
 *                                    the scheduler and mailboxes (8 core calls
 *                                    per round trip)
 */
import { loadCore, formal } from '@termite/core';
import { RefSpace, refFormal } from './jsref-tuplespace.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 300);
const prefix = process.argv[2] ?? '';

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/**
 * Run `step` (which performs `per` operations) repeatedly for ROUND_MS,
 * ROUNDS times after one warm-up round; median operations per second.
 * @param {() => void} step
 * @param {number} per
 */
function measure(step, per) {
  const rates = [];
  for (let r = 0; r <= ROUNDS; r++) {
    const rate = round(step, per);
    if (r > 0) rates.push(rate);
  }
  return median(rates);
}

/**
 * Measure two implementations of the same operations in alternating rounds
 * (a, b, a, b, ...), so that a slow spell of this noisy machine falls on
 * both rather than on whichever ran during it. Returns each one's median
 * rate and the median of the per-round ratios a/b.
 * @param {() => void} stepA @param {() => void} stepB @param {number} per
 * @returns {{ a: number, b: number, ratio: number }}
 */
function measurePair(stepA, stepB, per) {
  const as = [], bs = [], ratios = [];
  for (let r = 0; r <= ROUNDS; r++) {
    const a = round(stepA, per), b = round(stepB, per);
    if (r === 0) continue;
    as.push(a);
    bs.push(b);
    ratios.push(a / b);
  }
  return { a: median(as), b: median(bs), ratio: median(ratios) };
}

/**
 * Run `step` for ROUND_MS of CPU time; operations per second.
 * @param {() => void} step @param {number} per
 */
function round(step, per) {
  let ops = 0;
  const t0 = cpuMs();
  let t = t0;
  for (let guard = 0; t - t0 < ROUND_MS && guard < 1e9; guard++) {
    for (let k = 0; k < 256; k++) step();
    ops += 256 * per;
    t = cpuMs();
  }
  return (ops * 1000) / (t - t0);
}

/** CPU time of this process in ms. */
function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** @param {string} name @param {number} value @param {string} unit */
function report(name, value, unit) {
  console.log(`bench ${name} ${Math.round(value)} ${unit}`);
}

// ---- out/in pairs -----------------------------------------------------------

async function outIn() {
  const core = await loadCore();
  const space = core.createSpace();
  const tmpl = ['ping', formal.integer];
  const ref = new RefSpace();
  const rtmpl = ['ping', refFormal.integer];
  const m = measurePair(() => {
    space.out(['ping', 42]);
    if (space.inp(tmpl) === undefined) throw new Error('lost a tuple');
  }, () => {
    ref.out(['ping', 42]);
    if (ref.inp(rtmpl) === undefined) throw new Error('lost a tuple');
  }, 1);
  core.destroy();
  report('core.out_in', m.a, 'pairs/s');
  report('jsref.out_in', m.b, 'pairs/s');
  console.log(`# out_in ratio core/jsref = ${m.ratio.toFixed(2)} (median of ${ROUNDS} alternating rounds; target >= 0.5)`);
}

// ---- selective matching among 100,000 ----------------------------------------

const N = 100_000;

async function match100k() {
  const core = await loadCore();
  const space = core.createSpace();
  for (let i = 0; i < N; i++) space.out(['A', i, i * 3, `value ${i}`]);
  const ref = new RefSpace();
  for (let i = 0; i < N; i++) ref.out(['A', i, i * 3, `value ${i}`]);
  let k = 12345;
  /** Pseudo-random index (one sequence, drawn from by both implementations). */
  const pick = () => (k = (k * 1103515245 + 12345) & 0x7fffffff) % N;
  const m = measurePair(() => {
    const i = pick();
    const t = space.inp(['A', i, formal.integer, formal.any]);
    if (t === undefined) throw new Error('missing tuple');
    space.out(t);
    if (space.rdp(['A', pick(), formal.integer, formal.any]) === undefined) throw new Error('missing tuple');
  }, () => {
    const i = pick();
    const t = ref.inp(['A', i, refFormal.integer, refFormal.any]);
    if (t === undefined) throw new Error('missing tuple');
    ref.out(t);
    if (ref.rdp(['A', pick(), refFormal.integer, refFormal.any]) === undefined) throw new Error('missing tuple');
  }, 2);
  if (space.size !== N) throw new Error(`space holds ${space.size}`);
  core.destroy();
  report('core.match_100k', m.a, 'ops/s');
  report('jsref.match_100k', m.b, 'ops/s');
  console.log(`# match_100k ratio core/jsref = ${m.ratio.toFixed(1)} (median of ${ROUNDS} alternating rounds; target >= 10)`);
}

// ---- scheduler ---------------------------------------------------------------------

async function sched() {
  const core = await loadCore();
  const a = core.spawn(), b = core.spawn();
  core.send(b, 0);
  core.send(a, 0);
  let now = 0, k = 0;
  report('core.sched', measure(() => {
    const pid = core.next();                 // 1
    core.send(pid === a ? b : a, k);         // 2 (push)
    core.receive(pid);                       // 3 (take-first)
    if ((k & 7) === 0) {
      core.sendAfter(pid, k, now + 1, { clock: 1 }); // 4
      core.advance(1, (now += 2));           // 5 (fires it)
      core.receive(pid);                     // 6
      const q = core.spawn();                // 7
      core.exit(q);                          // 8
    }
    core.yield(pid);                         // 4 or 9
    k++;
  }, 4 + 5 / 8), 'ops/s');
  console.log('# core.sched: one op = one core call (next, push, take-first, yield; every 8th step also sendAfter, advance, take, spawn, exit)');
  core.destroy();
}

async function pingpong() {
  const core = await loadCore();
  const a = core.spawn(), b = core.spawn();
  core.next(); // a runs first and waits for mail
  core.waitMessage(a);
  let v = 0;
  core.next(); // b
  core.send(a, v);
  core.waitMessage(b);
  report('core.pingpong', measure(() => {
    // a: wakes with b's message, answers, waits; b likewise
    let pid = core.next();
    v = /** @type {number} */ (core.receive(pid));
    core.send(b, v + 1);
    core.waitMessage(pid);
    pid = core.next();
    v = /** @type {number} */ (core.receive(pid));
    core.send(a, v + 1);
    core.waitMessage(pid);
  }, 1), 'rt/s');
  console.log('# core.pingpong: one round trip = 2 x (next, take-first, push, wait) through the core; Erlang/OTP same node ~2.0 M rt/s (BENCHMARKS.md, References and workloads)');
  core.destroy();
}

/** Groups of figures; a group runs when one of its names starts with the prefix. */
const groups = [
  { names: ['core.out_in', 'jsref.out_in'], run: outIn },
  { names: ['core.match_100k', 'jsref.match_100k'], run: match100k },
  { names: ['core.sched'], run: sched },
  { names: ['core.pingpong'], run: pingpong },
];
for (const g of groups) if (g.names.some((n) => n.startsWith(prefix))) await g.run();
