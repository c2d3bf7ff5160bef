#!/usr/bin/env node
// @ts-check
/**
 * Erlang/OTP reference figures, measured by the project's own Erlang programs
 * (bench/erlang/*.erl) in the same `npm run bench` run as ours.
 *
 *   node bench/erlang/run-erlang.js [name-prefix]     (npm run bench -- erlang)
 *
 *   erlang.ring.seed0, erlang.ring.seed1000000   s, ring of 250,000 (ring.erl)
 *   erlang.ring.idle_bytes                       bytes per idle process (ring.erl)
 *   erlang.pingpong.local                        round trips/s, one node (pingpong.erl)
 *   erlang.pingpong.2node                        round trips/s, two nodes on this machine
 *   erlang.remote_spawn.2node                    µs per spawn of a closure + reply
 *   erlang.payload.1k.2node, erlang.payload.64k.2node   round trips/s of a binary echo
 *
 * Each figure is the median of several timed rounds inside one Erlang VM, after a
 * warm-up round; the spread follows as a comment. The sources are compiled with erlc
 * into a temporary directory (removed at exit). Two-node figures use a private epmd on
 * a free port bound to 127.0.0.1 and two nodes `-name x@127.0.0.1` with
 * `-start_epmd false`, distribution bound to 127.0.0.1, a random cookie. Every OS
 * process started here (erl nodes, epmd) runs under a time limit and is stopped by
 * its PID (process group). BENCH_ERL_FLAGS adds emulator flags to every node (e.g.
 * "+sbwt none"); the default is Erlang as installed.
 *
 * For other benchmark scripts (ring, ping-pong, mesh), which print Erlang's figure
 * beside their own in the same run:
 *
 *   import { erlangInstalled, runErlangBenchmarks } from './erlang/run-erlang.js';
 *   if (erlangInstalled()) await runErlangBenchmarks(rep, ['erlang.ring.seed0']);
 *   else rep.comment('erlang not installed');
 *
 * or the single measurements (erlangRing, erlangPingpongLocal, erlangTwoNode), which
 * return Stats and print nothing.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import {
  Reporter, prefixFromArgv, runChild, startChild, stopChild, freePort, which, waitFor, summarize,
} from '../lib/index.js';

/** @typedef {import('../lib/timing.js').Stats} Stats */

const here = dirname(fileURLToPath(import.meta.url));
const extraFlags = (process.env.BENCH_ERL_FLAGS ?? '').split(/\s+/).filter(Boolean);

/** Every figure this module can produce, with its unit. */
export const ERLANG_FIGURES = /** @type {const} */ ({
  'erlang.ring.seed0': 's',
  'erlang.ring.seed1000000': 's',
  'erlang.ring.idle_bytes': 'bytes',
  'erlang.pingpong.local': 'rt/s',
  'erlang.pingpong.2node': 'rt/s',
  'erlang.remote_spawn.2node': 'us',
  'erlang.payload.1k.2node': 'rt/s',
  'erlang.payload.64k.2node': 'rt/s',
  'erlang.stream.2node': 'msg/s',
});

/** Whether erl and erlc (and epmd, for two nodes) are on PATH. */
export function erlangInstalled() {
  return which('erl') !== null && which('erlc') !== null;
}

/** @type {Promise<string>|null} */
let compiled = null;

/**
 * Compile bench/erlang/*.erl into a temporary directory (once per process).
 * @returns {Promise<string>} the directory holding the .beam files
 */
export function compileErlang() {
  if (compiled) return compiled;
  compiled = (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'termite-bench-erl-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    const sources = readdirSync(here).filter((f) => f.endsWith('.erl')).map((f) => join(here, f));
    const r = await runChild('erlc', ['-o', dir, ...sources], { timeoutMs: 120_000 });
    if (r.timedOut || r.code !== 0) throw new Error(`erlc failed (${r.timedOut ? 'time limit' : `exit ${r.code}`}): ${r.stderr}${r.stdout}`);
    return dir;
  })();
  return compiled;
}

/**
 * The OTP release and scheduler count, for a comment.
 * @returns {Promise<string>}
 */
export async function erlangVersion() {
  const r = await runChild('erl', ['-noshell', '-noinput', ...extraFlags, '-eval',
    'io:format("OTP ~s, erts ~s, ~b schedulers~n", [erlang:system_info(otp_release), erlang:system_info(version), erlang:system_info(schedulers)]), halt().'],
  { timeoutMs: 30_000 });
  return r.stdout.trim() || `unknown (${r.stderr.trim()})`;
}

/**
 * Parse "result <name> <round> <value>" lines.
 * @param {string} stdout
 * @returns {Map<string, number[]>}
 */
function parseResults(stdout) {
  /** @type {Map<string, number[]>} */
  const m = new Map();
  for (const line of stdout.split('\n')) {
    const r = /^result (\S+) (\d+) (\S+)\s*$/.exec(line);
    if (!r) continue;
    const v = Number(r[3]);
    if (!Number.isFinite(v)) continue;
    const a = m.get(r[1]) ?? [];
    a.push(v);
    m.set(r[1], a);
  }
  return m;
}

/**
 * Run one Erlang VM (no distribution) with `-run Module main Args...`.
 * @param {string} module @param {string[]} args @param {{timeoutS: number, flags?: string[]}} opts
 */
async function runVm(module, args, opts) {
  const dir = await compileErlang();
  const r = await runChild('erl', ['-noshell', '-noinput', ...(opts.flags ?? []), ...extraFlags, '-pa', dir, '-run', module, 'main', ...args], {
    timeoutMs: opts.timeoutS * 1000,
  });
  if (r.timedOut) throw new Error(`erl ${module} stopped at its ${opts.timeoutS} s limit`);
  if (r.code !== 0) throw new Error(`erl ${module} exited with ${r.code ?? r.signal}: ${r.stderr.trim()}`);
  return parseResults(r.stdout);
}

/**
 * The ring of BENCHMARKS.md's workloads (N = 250,000) with `seed`: seconds per ring, and the
 * bytes per idle process measured in the same VM afterwards.
 * @param {number} seed
 * @param {{n?: number, warmup?: number, rounds?: number, timeoutS?: number}} [opts]
 * @returns {Promise<{seconds: Stats, idleBytes: number}>}
 */
export async function erlangRing(seed, opts = {}) {
  const { n = 250_000, warmup = 1, rounds = 3, timeoutS = 180 } = opts;
  const res = await runVm('ring', [String(n), String(seed), String(warmup), String(rounds)], {
    timeoutS, flags: ['+P', String(Math.max(1 << 20, 2 * n))],
  });
  const secs = res.get(`ring.seed${seed}`);
  const idle = res.get('ring.idle_bytes');
  if (!secs || !idle) throw new Error('ring.erl printed no result');
  return { seconds: summarize(secs), idleBytes: idle[0] };
}

/**
 * Same-node ping-pong: round trips per second.
 * @param {{count?: number, warmup?: number, rounds?: number, timeoutS?: number}} [opts]
 * @returns {Promise<Stats>}
 */
export async function erlangPingpongLocal(opts = {}) {
  const { count = 1_000_000, warmup = 1, rounds = 5, timeoutS = 120 } = opts;
  const res = await runVm('pingpong', [String(count), String(warmup), String(rounds)], { timeoutS });
  const v = res.get('pingpong.local');
  if (!v) throw new Error('pingpong.erl printed no result');
  return summarize(v);
}

/** The two-node groups twonode.erl knows, and the figures each prints. */
export const TWO_NODE_GROUPS = /** @type {const} */ ({
  pingpong: 'erlang.pingpong.2node',
  remote_spawn: 'erlang.remote_spawn.2node',
  payload1k: 'erlang.payload.1k.2node',
  payload64k: 'erlang.payload.64k.2node',
  stream: 'erlang.stream.2node',
});

/**
 * Emulator flags that stop Erlang's schedulers from spinning before they sleep (busy
 * wait): Erlang as a Node process is, woken by the kernel on each message. The mesh
 * benchmark measures both, so the ratio to Erlang can be read with and without the spin.
 */
export const ERLANG_NO_SPIN = ['+sbwt', 'none', '+sbwtdcpu', 'none', '+sbwtdio', 'none'];

/**
 * Two nodes on this machine: a private epmd, node B idle, node A running the groups
 * against B. Everything is stopped by PID before this returns.
 * @param {(keyof typeof TWO_NODE_GROUPS)[]} groups
 * @param {{timeoutS?: number, flags?: string[]}} [opts] flags: emulator flags of both nodes
 * @returns {Promise<Map<string, Stats>>} figure name (erlang.*) → stats
 */
export async function erlangTwoNode(groups, opts = {}) {
  const timeoutS = opts.timeoutS ?? 240;
  const dir = await compileErlang();
  if (which('epmd') === null) throw new Error('epmd not found');
  const port = await freePort();
  const epmd = startChild('epmd', ['-port', String(port), '-address', '127.0.0.1']);
  /** @type {import('../lib/proc.js').ChildHandle|null} */
  let nodeB = null;
  try {
    const up = await waitFor(() => epmd.running() && tcpOpen(port), 10_000, 50);
    if (!up) throw new Error(`private epmd did not start on port ${port}: ${epmd.stderr()}`);
    const env = { ...process.env, ERL_EPMD_PORT: String(port) };
    const cookie = randomBytes(16).toString('hex');
    const tag = `${process.pid}_${randomBytes(3).toString('hex')}`;
    const common = ['-noshell', '-noinput', ...(opts.flags ?? []), ...extraFlags, '-setcookie', cookie, '-start_epmd', 'false',
      '-kernel', 'inet_dist_use_interface', '{127,0,0,1}', '-pa', dir];
    const nameB = `tmbench_b_${tag}@127.0.0.1`;
    nodeB = startChild('erl', [...common, '-name', nameB], { env });
    const r = await runChild('erl', [...common, '-name', `tmbench_a_${tag}@127.0.0.1`, '-run', 'twonode', 'main', nameB, ...groups], {
      env, timeoutMs: timeoutS * 1000,
    });
    if (r.timedOut) throw new Error(`two-node run stopped at its ${timeoutS} s limit`);
    if (r.code !== 0) throw new Error(`two-node run exited with ${r.code ?? r.signal}: ${r.stderr.trim()}`);
    const res = parseResults(r.stdout);
    /** @type {Map<string, Stats>} */
    const out = new Map();
    for (const [name, values] of res) out.set(`erlang.${name}`, summarize(values));
    return out;
  } finally {
    if (nodeB) await stopChild(nodeB);
    await stopChild(epmd);
  }
}

/** @param {number} port @returns {Promise<boolean>} */
function tcpOpen(port) {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    const done = (/** @type {boolean} */ ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Measure and print the given Erlang figures (the caller has decided they are
 * wanted). Prints "# erlang not installed" and nothing else when erl is absent.
 * A failure is printed as a comment; the other figures still run.
 * @param {Reporter} rep
 * @param {string[]} names names from ERLANG_FIGURES
 */
export async function runErlangBenchmarks(rep, names) {
  const want = new Set(names.filter((n) => n in ERLANG_FIGURES));
  if (want.size === 0) return;
  if (!erlangInstalled()) {
    rep.comment('erlang not installed (erl/erlc not on PATH): erlang.* figures skipped');
    return;
  }
  rep.comment(`erlang: ${await erlangVersion()}${extraFlags.length ? `, flags ${extraFlags.join(' ')}` : ''}`);
  /** @param {string} what @param {() => Promise<void>} fn */
  const guarded = async (what, fn) => {
    try {
      await fn();
    } catch (e) {
      rep.comment(`${what}: not measured: ${e instanceof Error ? e.message : e}`);
    }
  };
  for (const seed of [0, 1_000_000]) {
    const name = `erlang.ring.seed${seed}`;
    const idle = seed === 0 && want.has('erlang.ring.idle_bytes');
    if (!want.has(name) && !idle) continue;
    await guarded(name, async () => {
      const r = await erlangRing(seed, want.has(name) ? {} : { warmup: 0, rounds: 1 });
      if (want.has(name)) rep.bench(name, r.seconds.median, 's', { stats: r.seconds, note: '250,000 processes, wall time from first spawn to last exit' });
      if (idle) rep.bench('erlang.ring.idle_bytes', r.idleBytes, 'bytes', { note: 'growth of erlang:memory(processes) per idle process blocked in receive, over 10,000' });
    });
  }
  if (want.has('erlang.pingpong.local')) {
    await guarded('erlang.pingpong.local', async () => {
      const st = await erlangPingpongLocal();
      rep.bench('erlang.pingpong.local', st.median, 'rt/s', { stats: st });
    });
  }
  const groups = /** @type {(keyof typeof TWO_NODE_GROUPS)[]} */ (Object.keys(TWO_NODE_GROUPS)).filter((g) => want.has(TWO_NODE_GROUPS[g]));
  if (groups.length > 0) {
    await guarded('erlang two-node figures', async () => {
      const res = await erlangTwoNode(groups);
      for (const g of groups) {
        const name = TWO_NODE_GROUPS[g];
        const st = res.get(name);
        if (!st) {
          rep.comment(`${name}: not measured (no result)`);
          continue;
        }
        rep.bench(name, st.median, ERLANG_FIGURES[name], { stats: st, note: 'two nodes on this machine, loopback TCP' });
      }
    });
  }
}

async function main() {
  const rep = new Reporter(prefixFromArgv());
  await runErlangBenchmarks(rep, Object.keys(ERLANG_FIGURES).filter((n) => rep.wants(n)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
